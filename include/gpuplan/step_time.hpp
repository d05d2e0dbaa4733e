#pragma once
// How long a training step (or an inference token) takes on a GPU: FLOPs from the model's real
// shape, the GPU's dense peak times a utilisation, and the collectives data parallelism adds
// over the links the catalog gives. Pure: no I/O, no catalog lookups.
#include <cstdint>

#include "gpuplan/catalog.hpp"
#include "gpuplan/model.hpp"
#include "gpuplan/workload.hpp"

namespace gpuplan {

// Constants of the time model that a calibration profile may override.
struct TimeConstants {
  // Hardware FLOPs utilisation (achieved / dense peak, recomputation included). 0 = the default
  // for the GPU class and precision (see default_hfu).
  double hfu = 0;
  // Fraction of gradient/parameter collectives hidden under backward compute (DDP buckets,
  // FSDP prefetch), when there is enough compute to hide them.
  double comm_overlap = 0.8;
  // Fraction of the link's bandwidth a ring collective achieves (NCCL bus bandwidth).
  double link_efficiency = 0.8;
  // QLoRA dequantises each NF4 weight before its matmul: measured slowdown against LoRA on the
  // same GPU and recipe (torchtune README, Llama 3.1 8B on a 4090: 3083 vs 2413 tokens/s).
  double qlora_slowdown = 3083.0 / 2413.0;
  // Decode reads weights and KV cache once per step at this fraction of peak bandwidth.
  double bandwidth_efficiency = 0.75;
  // Dequantising kernels (int4/int8/nf4/fp8 weights) reach a lower share of it: gpt-fast on an
  // A100 reads 862.69 GB/s with int4 weights against 1397.31 GB/s in bf16.
  double quantised_bandwidth_factor = 862.69 / 1397.31;
};

// The links a job's GPUs talk over. Bandwidths in GB/s (10^9 B/s), one direction.
struct Links {
  int gpus_per_node = 1;
  double intra_node_gbps = 0;   // per GPU (NVLink, PCIe)
  double inter_node_gbps = 0;   // per node (all its NICs together); 0 = single node only
};

// Model FLOPs per trained token (PaLM appendix B convention: 6N for the matmul weights plus
// 12·L·H·Q·T for attention; a frozen base's weight gradients, 2N, are not done and not counted),
// and what the hardware executes (activation recomputation added).
struct TokenFlops {
  double model = 0;     // what MFU is measured against
  double hardware = 0;  // model + recomputation
};
TokenFlops training_flops_per_token(const ModelArch& m, const ParamCounts& pc, const Workload& w);

// Default HFU by GPU form and method, from published runs (see README "time model").
double default_hfu(const Gpu& gpu, const Workload& w);

// The dense peak (TFLOP/s) for the workload's compute precision; 0 when the GPU lacks it.
double peak_tflops(const Gpu& gpu, Precision p);

struct StepTime {
  double tokens_per_step = 0;        // global batch tokens per optimizer step
  double compute_seconds = 0;        // per optimizer step, per GPU (all micro-batches)
  double comm_seconds = 0;           // collectives per optimizer step
  double exposed_comm_seconds = 0;   // the part not hidden under compute
  double step_seconds = 0;
  double tokens_per_second = 0;      // whole job
  double tokens_per_second_per_gpu = 0;
  double hfu = 0;
  double mfu = 0;
  double scaling_efficiency = 1;     // data-parallel speed-up / GPUs
  double peak_tflops = 0;
};

// One optimizer step of `w` (micro_batch × grad_accum × data-parallel GPUs sequences).
StepTime estimate_step_time(const ModelArch& m, const ParamCounts& pc, const Workload& w, int grad_accum,
                            const Gpu& gpu, const Links& links, const TimeConstants& k = {});

// Inference decode: sequences × tokens per second when reading weights and KV cache bounds it.
struct DecodeTime {
  double step_seconds = 0;           // one token for every sequence in the batch
  double tokens_per_second = 0;      // all sequences
  double prefill_tokens_per_second = 0;
};
DecodeTime estimate_decode(const ModelArch& m, const ParamCounts& pc, const Workload& w, const Gpu& gpu,
                           const TimeConstants& k = {});

}  // namespace gpuplan
