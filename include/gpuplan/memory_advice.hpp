#pragma once
// Concrete ways out when a job does not fit, each re-estimated with the same memory model.
#include <cstdint>
#include <vector>

#include "gpuplan/memory.hpp"

namespace gpuplan {

// One change to the job, as a code with the numbers its flags need; the renderer
// (io/render/memory_words) spells the flags and the reason.
enum class MemoryFix {
  int4_weights,      // serving: 4-bit AWQ weights
  fp8_kv_cache,      // serving: an 8-bit KV cache
  serve_one,         // serving: one sequence at a time
  checkpointing,     // keep only each layer's input
  lora,              // low-rank adapters on a frozen 16-bit base
  qlora,             // 4-bit NF4 base plus adapters
  adamw_8bit,        // Adam states at 1 byte
  shard_zero3,       // `gpus` GPUs, ZeRO-3
  accumulate,        // micro-batch 1, `grad_accum` steps of accumulation
  shorter_sequence,  // `seq_len`, the longest that fits
};

struct MemoryAdvice {
  MemoryFix fix = MemoryFix::checkpointing;
  int gpus = 0, grad_accum = 0;   // shard_zero3, accumulate
  std::int64_t seq_len = 0;       // shorter_sequence
  bool with_checkpointing = false;  // on top of full activation checkpointing (no single change fits)
  double per_gpu_bytes = 0;  // resulting total per GPU
  bool fits = false;
};

std::vector<MemoryAdvice> advise_memory(const ModelArch& model, const ParamCounts& params, const Workload& w,
                                        double capacity_bytes);

}  // namespace gpuplan
