#include "gpuplan/memory_advice.hpp"

#include <algorithm>
#include <string>

namespace gpuplan {

std::vector<MemoryAdvice> advise_memory(const ModelArch& m, const ParamCounts& pc, const Workload& w,
                                        double capacity) {
  std::vector<MemoryAdvice> out;
  auto add = [&](std::string change, std::string why, const Workload& alt) {
    const double total = estimate_memory(m, pc, alt).per_gpu_bytes();
    out.push_back({std::move(change), std::move(why), total, total <= capacity});
  };
  if (!is_training(w.method)) {
    if (w.weight_format == WeightFormat::native) {
      Workload alt = w;
      alt.weight_format = WeightFormat::int4_awq;
      add("--quant int4-awq", "4-bit weights take about a quarter of 16-bit ones", alt);
    }
    if (w.kv_cache_dtype == KvDtype::native) {
      Workload alt = w;
      alt.kv_cache_dtype = KvDtype::fp8;
      add("--kv-cache-dtype fp8", "halves the KV cache", alt);
    }
    if (w.micro_batch > 1) {
      Workload alt = w;
      alt.micro_batch = 1;
      add("--batch 1", "one sequence at a time", alt);
    }
    return out;
  }
  if (w.checkpointing != Checkpointing::full) {
    Workload alt = w;
    alt.checkpointing = Checkpointing::full;
    add("--checkpointing full", "keep only each layer's input; costs about one extra forward pass", alt);
  }
  if (w.method == Method::full || w.method == Method::pretrain) {
    Workload alt = w;
    alt.method = Method::lora;
    add("--method lora", "train low-rank adapters; the base model stays frozen in 16-bit", alt);
  }
  if (w.method != Method::qlora && w.method != Method::pretrain && w.precision != Precision::fp32) {
    Workload alt = w;
    alt.method = Method::qlora;
    add("--method qlora", "4-bit NF4 base weights plus LoRA adapters", alt);
  }
  if (w.optimizer == Optimizer::adamw) {
    Workload alt = w;
    alt.optimizer = Optimizer::adamw_8bit;
    add("--optimizer adamw-8bit", "Adam states at 1 byte each instead of 4", alt);
  }
  if (w.gpus == 1 || (w.sharding != Sharding::zero3 && w.sharding != Sharding::fsdp)) {
    for (int n : {2, 4, 8, 16, 32, 64}) {
      if (n < w.gpus) continue;
      Workload alt = w;
      alt.gpus = n;
      alt.sharding = Sharding::zero3;
      const double total = estimate_memory(m, pc, alt).per_gpu_bytes();
      if (total <= capacity || n == 64) {
        add("--gpus " + std::to_string(n) + " --sharding zero3", "shard weights, gradients and optimizer states", alt);
        break;
      }
    }
  }
  if (w.micro_batch > 1) {
    Workload alt = w;
    alt.micro_batch = 1;
    add("--micro-batch 1 --grad-accum " + std::to_string(w.micro_batch),
        "same global batch through gradient accumulation", alt);
  }
  const std::int64_t seq = max_seq_len(m, pc, w, capacity);
  if (seq > 0 && seq < w.seq_len) {
    Workload alt = w;
    alt.seq_len = seq;
    add("--seq-len " + std::to_string(seq), "the longest sequence that fits at this micro-batch", alt);
  }
  // When no single change is enough, checkpointing first and each other change on top of it:
  // large jobs usually need two.
  const bool none_fits = std::none_of(out.begin(), out.end(), [](const MemoryAdvice& a) { return a.fits; });
  if (none_fits && w.checkpointing != Checkpointing::full) {
    Workload ck = w;
    ck.checkpointing = Checkpointing::full;
    for (auto& a : advise_memory(m, pc, ck, capacity)) {
      a.change = "--checkpointing full " + a.change;
      a.explanation = "with checkpointing: " + a.explanation;
      out.push_back(std::move(a));
    }
  }
  return out;
}

}  // namespace gpuplan
