#include "gpuplan/memory_advice.hpp"

#include <algorithm>

namespace gpuplan {

std::vector<MemoryAdvice> advise_memory(const ModelArch& m, const ParamCounts& pc, const Workload& w,
                                        double capacity) {
  std::vector<MemoryAdvice> out;
  auto add = [&](MemoryFix fix, const Workload& alt) -> MemoryAdvice& {
    MemoryAdvice a;
    a.fix = fix;
    a.per_gpu_bytes = estimate_memory(m, pc, alt).per_gpu_bytes();
    a.fits = a.per_gpu_bytes <= capacity;
    out.push_back(a);
    return out.back();
  };
  if (!is_training(w.method)) {
    if (w.weight_format == WeightFormat::native) {
      Workload alt = w;
      alt.weight_format = WeightFormat::int4_awq;
      add(MemoryFix::int4_weights, alt);
    }
    if (w.kv_cache_dtype == KvDtype::native) {
      Workload alt = w;
      alt.kv_cache_dtype = KvDtype::fp8;
      add(MemoryFix::fp8_kv_cache, alt);
    }
    if (w.micro_batch > 1) {
      Workload alt = w;
      alt.micro_batch = 1;
      add(MemoryFix::serve_one, alt);
    }
    return out;
  }
  if (w.checkpointing != Checkpointing::full) {
    Workload alt = w;
    alt.checkpointing = Checkpointing::full;
    add(MemoryFix::checkpointing, alt);
  }
  if (w.method == Method::full || w.method == Method::pretrain) {
    Workload alt = w;
    alt.method = Method::lora;
    add(MemoryFix::lora, alt);
  }
  if (w.method != Method::qlora && w.method != Method::pretrain && w.precision != Precision::fp32) {
    Workload alt = w;
    alt.method = Method::qlora;
    add(MemoryFix::qlora, alt);
  }
  if (w.optimizer == Optimizer::adamw) {
    Workload alt = w;
    alt.optimizer = Optimizer::adamw_8bit;
    add(MemoryFix::adamw_8bit, alt);
  }
  if (w.gpus == 1 || (w.sharding != Sharding::zero3 && w.sharding != Sharding::fsdp)) {
    for (int n : {2, 4, 8, 16, 32, 64}) {
      if (n < w.gpus) continue;
      Workload alt = w;
      alt.gpus = n;
      alt.sharding = Sharding::zero3;
      const double total = estimate_memory(m, pc, alt).per_gpu_bytes();
      if (total <= capacity || n == 64) {
        add(MemoryFix::shard_zero3, alt).gpus = n;
        break;
      }
    }
  }
  if (w.micro_batch > 1) {
    Workload alt = w;
    alt.micro_batch = 1;
    add(MemoryFix::accumulate, alt).grad_accum = w.micro_batch;
  }
  const std::int64_t seq = max_seq_len(m, pc, w, capacity);
  if (seq > 0 && seq < w.seq_len) {
    Workload alt = w;
    alt.seq_len = seq;
    add(MemoryFix::shorter_sequence, alt).seq_len = seq;
  }
  // When no single change is enough, checkpointing first and each other change on top of it:
  // large jobs usually need two.
  const bool none_fits = std::none_of(out.begin(), out.end(), [](const MemoryAdvice& a) { return a.fits; });
  if (none_fits && w.checkpointing != Checkpointing::full) {
    Workload ck = w;
    ck.checkpointing = Checkpointing::full;
    for (auto& a : advise_memory(m, pc, ck, capacity)) {
      a.with_checkpointing = true;
      out.push_back(std::move(a));
    }
  }
  return out;
}

}  // namespace gpuplan
