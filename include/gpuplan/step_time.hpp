#pragma once
// How long a training step (or an inference token) takes on a GPU: FLOPs from the model's real
// shape, the GPU's dense peak times a utilisation, and the collectives data parallelism adds
// over the links the catalog gives. Pure: no I/O, no catalog lookups.
#include <array>
#include <cstdint>
#include <optional>

#include "gpuplan/catalog.hpp"
#include "gpuplan/model.hpp"
#include "gpuplan/workload.hpp"

namespace gpuplan {

// A calibration profile's utilisation table: one slot per GPU class (GpuForm) and Method.
inline constexpr int kHfuSlots = 3 * 6;
inline int hfu_index(GpuForm form, Method method) { return static_cast<int>(form) * 6 + static_cast<int>(method); }

// Constants of the time model that a calibration profile may override.
struct TimeConstants {
  // Hardware FLOPs utilisation (achieved / dense peak, recomputation included). 0 = the default
  // for the GPU class and precision (see default_hfu).
  double hfu = 0;
  // Calibrated HFU per GPU class and method, as bf16 (fp8 scales as in default_hfu); 0 = no
  // calibration for that slot. `hfu` above, when set, wins.
  std::array<double, kHfuSlots> calibrated_hfu{};
  // Scales the default utilisation of slots without their own calibration (a team's stack
  // pooled over every class and method).
  double hfu_scale = 1.0;
  // Fraction of gradient/parameter collectives hidden under backward compute (DDP buckets,
  // FSDP prefetch), when there is enough compute to hide them.
  double comm_overlap = 0.8;
  // Fraction of the link's bandwidth a ring collective achieves (NCCL bus bandwidth).
  double link_efficiency = 0.8;
  // Fraction of tensor-parallel all-reduces hidden under the GEMMs around them. They sit on the
  // critical path (each GEMM needs the previous one's reduced output); Megatron's
  // --tp-comm-overlap and async TP pipeline them with chunks of the GEMM. 0.5 is the middle of
  // what the TP rows of README's time-model table need (torchtitan vanilla TP, NeMo and
  // Megatron with overlap on); see README.
  double tp_comm_overlap = 0.5;
  // Fraction of MoE dispatch/combine all-to-alls hidden. The experts' GEMMs need the
  // dispatched tokens, and Megatron-Core overlaps the all-to-all only when a recipe opts in
  // (--overlap-moe-expert-parallel-comm), so none by default.
  double ep_comm_overlap = 0;
  // Host memory bandwidth per node that a CPU optimizer step (ZeRO-Offload's CPU Adam) streams
  // at, GB/s. A dual-socket DDR4-3200 host peaks at 409.6 GB/s (16 channels x 25.6 GB/s,
  // JEDEC); CPU Adam reads and writes several arrays at once and reaches a fraction of it. 100 is
  // an assumption a calibration profile should replace with a measured STREAM figure.
  double host_memory_gbps = 100;
  // Host FLOP/s per node for the same step, TFLOP/s (AVX-512 Adam is ~12 FLOPs per parameter,
  // so memory bandwidth binds first on any current server).
  double host_tflops = 1.0;
  // Decode reads weights and KV cache once per step at this fraction of peak bandwidth.
  double bandwidth_efficiency = 0.75;
  // Dequantising kernels (int4/int8/nf4/fp8 weights) reach a lower share of it: gpt-fast on an
  // A100 reads 862.69 GB/s with int4 weights against 1397.31 GB/s in bf16.
  double quantised_bandwidth_factor = 862.69 / 1397.31;
  // bitsandbytes' dequantize_4bit (QLoRA's default backend) runs as its own kernel before each
  // matmul and streams NF4 in and bf16 out at this share of peak memory bandwidth. Fitted to
  // litgpt's A100 table (QLoRA - LoRA time per iteration for phi-1.5, StableLM 3B, Llama 2 7B
  // and 13B, nf4 and nf4-dq: the median of the eight implied shares, 0.20-0.44); see README.
  double bnb_dequant_bandwidth_share = 0.265;
  // Fixed cost of every decode pass (serving's step_overhead_seconds; a profile sets both).
  double step_overhead_seconds = 0.001;
};

// Used for node-to-node links when an offer does not state its network: 10 GbE, in GB/s.
inline constexpr double kUnknownInterNodeGbps = 1.25;

// The links a job's GPUs talk over. Bandwidths in GB/s (10^9 B/s), one direction.
struct Links {
  int gpus_per_node = 1;
  double intra_node_gbps = 0;   // per GPU (NVLink, PCIe)
  double inter_node_gbps = 0;   // per node (all its NICs together); 0 = kUnknownInterNodeGbps
  double host_link_gbps = 0;    // per GPU to host memory (PCIe); 0 = from the GPU (host_link_gbps)
};

// Seconds a ring collective moving `passes` x (n-1)/n of `bytes` per member takes (all-reduce: 2
// passes) over a group of `size` GPUs, `local` of them on each node, while `busy` GPUs of each
// node run the same collective in their own groups and share its network. Hierarchical, as
// NCCL runs it: inside a node over the intra-node link, between nodes over the node's network
// (kUnknownInterNodeGbps when unknown); the two phases pipeline, so the slower sets the time.
// Training's collectives and serving's tensor-parallel all-reduces both run on it.
double collective_seconds(double bytes, double passes, int size, int local, int busy, const Links& l, double link_efficiency);

// PCIe bandwidth between a GPU and host memory, GB/s one direction: the GPU's own link when it
// is a PCIe card, else PCIe 5.0 x16 (64) for Hopper/Blackwell SXM boards and PCIe 4.0 x16 (32)
// for older ones (PCI-SIG per-lane rates x 16 lanes).
double host_link_gbps(const Gpu& gpu);

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
// What a step runs at: k.hfu, else the calibrated slot, else default_hfu.
double effective_hfu(const Gpu& gpu, const Workload& w, const TimeConstants& k);
// fp8 GEMMs reach this share of the utilisation bf16 reaches on the same card.
inline constexpr double kFp8HfuFactor = 0.7;

// The dense peak (TFLOP/s) for the workload's compute precision; 0 when the GPU lacks it.
double peak_tflops(const Gpu& gpu, Precision p);

struct StepTime {
  double tokens_per_step = 0;        // global batch tokens per optimizer step
  double compute_seconds = 0;        // per optimizer step, per GPU (all micro-batches, no bubble)
  double comm_seconds = 0;           // collectives per optimizer step (DP, TP, CP, PP), per GPU
  double exposed_comm_seconds = 0;   // the part not hidden under compute
  double tp_comm_seconds = 0;        // tensor-parallel all-reduces (part of comm_seconds)
  double bubble_seconds = 0;         // pipeline fill and drain
  double bubble_fraction = 0;        // (p-1)/v / (m + (p-1)/v)
  double offload_seconds = 0;        // PCIe transfers and CPU optimizer step left exposed
  double step_seconds = 0;
  double tokens_per_second = 0;      // whole job
  double tokens_per_second_per_gpu = 0;
  double hfu = 0;
  double mfu = 0;
  double scaling_efficiency = 1;     // compute / step: what parallelism and offload cost
  double peak_tflops = 0;
  int data_parallel = 1;
};

// One optimizer step of `w`: grad_accum micro-batches of micro_batch sequences on each of the
// data-parallel replicas, each replica spread over tensor x pipeline x context-parallel GPUs
// (Megatron's rank order: TP innermost, then CP, DP, PP). Pure and allocation-free: a plan can
// call it for every TP x PP x DP candidate.
StepTime estimate_step_time(const ModelArch& m, const ParamCounts& pc, const Workload& w, int grad_accum,
                            const Gpu& gpu, const Links& links, const TimeConstants& k = {});

// Whether the parallel layout can run the model: TP divides the attention heads, PP x virtual
// stages is at most the layers, CP divides the sequence and TP x PP x CP divides the GPUs.
// nullptr when it can, else the reason.
const char* parallel_layout_problem(const ModelArch& m, const Workload& w);

// Inference decode: sequences × tokens per second when reading weights and KV cache bounds it.
struct DecodeTime {
  double step_seconds = 0;           // one token for every sequence in the batch
  double tokens_per_second = 0;      // all sequences
  double prefill_tokens_per_second = 0;
};
// `links`: what the replica's GPUs are joined by (job_links); nullopt = the GPU's own link, one node.
DecodeTime estimate_decode(const ModelArch& m, const ParamCounts& pc, const Workload& w, const Gpu& gpu,
                           const TimeConstants& k = {}, const std::optional<Links>& links = std::nullopt);

}  // namespace gpuplan
