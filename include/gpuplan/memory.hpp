#pragma once
// Per-GPU memory of a training or inference job, component by component. Pure and
// allocation-free so the planner can call it millions of times a second.
#include <array>
#include <cstdint>

#include "gpuplan/model.hpp"
#include "gpuplan/workload.hpp"

namespace gpuplan {

// Component order is the JSON key order; names are a stable contract (docs/json.md).
enum class MemComponent {
  weights, adapters, gradients, optimizer, master_weights, activations, logits, kv_cache, overhead, fragmentation
};
inline constexpr int kMemComponentCount = 10;
const char* to_string(MemComponent c);

struct MemoryBreakdown {
  std::array<double, kMemComponentCount> bytes{};  // per GPU
  double cpu_bytes = 0;            // host RAM the offloaded states need (whole job, per node)
  // Part of the per-GPU bytes held in CUDA managed memory (paged optimizers): on the card
  // while it has room, paged to host under pressure, and not counted by torch's allocator.
  double paged_bytes = 0;
  double params_total = 0;
  double params_trainable = 0;
  int data_parallel = 1;           // gpus / (tensor x pipeline x context parallel)

  double& operator[](MemComponent c) { return bytes[static_cast<int>(c)]; }
  double operator[](MemComponent c) const { return bytes[static_cast<int>(c)]; }
  // Live tensors: what torch.cuda.max_memory_allocated reports (no context, no slack).
  double tensor_bytes() const;
  // What torch.cuda.max_memory_allocated reports: tensors less the managed (paged) part.
  double allocated_bytes() const { return tensor_bytes() - paged_bytes; }
  // What the card must hold: tensors + fragmentation + overhead (nvidia-smi's view).
  double per_gpu_bytes() const;
};

MemoryBreakdown estimate_memory(const ModelArch& model, const ParamCounts& params, const Workload& w);
inline MemoryBreakdown estimate_memory(const ModelArch& model, const Workload& w) {
  return estimate_memory(model, count_params(model), w);
}

// Ways one layer's KV cache splits over a tensor-parallel group of `tp` GPUs: by KV head, so
// at most kv_heads ways (beyond that each GPU keeps a copy of its head); MLA's compressed latent
// serves every head and is held whole on each GPU (vLLM, SGLang), so it never splits.
int kv_cache_split(const ModelArch& m, int tp);
// Bytes per KV-cache element as the workload stores it (native = the compute precision's).
double kv_cache_element_bytes(const Workload& w);
// The KV cache's element type as run, for every answer to print: "bf16", "fp8", ...
const char* kv_cache_dtype_name(const Workload& w);
// KV-cache bytes one sequence of `context` tokens holds on one GPU: sliding-window layers keep
// at most the window, MLA its latent, split by kv_cache_split and over the pipeline's stages.
double kv_cache_bytes_per_gpu(const ModelArch& m, const Workload& w, double context);

// torchtitan's per-op selective activation checkpointing (activation_checkpoint.mode =
// "selective", selective_ac_option = "op"; torchtitan/parallelisms/parallelize_llama.py at
// 9dec370): each decoder layer is a checkpointed region that keeps its input and the outputs of
// the ops on the save list (matmuls, the attention kernel, TP's reduce-scatter), except every
// second matmul counted in the order they run; all else is recomputed in backward.
bool op_selective_checkpointing(const Workload& w);
// Bytes one layer keeps per token under that policy, before tensor parallelism: the layer's
// input, the outputs of its 1st, 3rd, 5th ... matmul (a Llama layer: q, v, gate and down of
// q, k, v, o, gate, up, down) and the attention kernel's output with its fp32 log-sum-exp. An
// MoE layer's routed experts run in grouped GEMMs, which are not on the list: recomputed.
double op_sac_saved_bytes_per_token(const ModelArch& m, const Workload& w);
// Weights per layer whose matmuls the policy reruns in backward (every second one: k, o and
// up in a Llama layer; all of an MoE layer's active experts).
double op_sac_recomputed_weights(const ModelArch& m);

// Bytes per stored weight for a format (quantisation constants included).
double bytes_per_weight(WeightFormat f, bool double_quant);

// Trainable parameters under the workload's method (LoRA adapters, last K layers, ...).
double trainable_params(const ModelArch& model, const ParamCounts& params, const Workload& w);

// Largest micro-batch (sequences per GPU) whose per-GPU total fits in `capacity_bytes`; 0 when
// even one sequence does not fit. Searched with the memory model itself, not guessed.
std::int64_t max_micro_batch(const ModelArch& model, const ParamCounts& params, Workload w, double capacity_bytes);

// Longest sequence (multiple of 128 down to 128) at this micro-batch that fits; 0 if none.
std::int64_t max_seq_len(const ModelArch& model, const ParamCounts& params, Workload w, double capacity_bytes);

}  // namespace gpuplan
