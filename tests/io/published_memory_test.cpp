// Published multi-GPU training runs against the memory model, each sized with the activation
// profile of the engine that ran it (--activations). Two torchtitan rows print their peak
// (torch.cuda max reserved, torchtitan/metrics.py at 9dec370); the Megatron/NeMo rows print no
// memory, but they ran on 80 GB H100s, so each must fit one. The bands are the README's claims
// ("What the model assumes"): change both or neither. `./build/tests/gpuplan_tests
// "[memory][published]"` prints the table.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/memory.hpp"
#include "gpuplan/units.hpp"
#include "io/shipped_catalog.hpp"

using namespace gpuplan;

namespace {

struct Run {
  std::string id;
  std::string model;
  Workload w;
  std::optional<double> reserved_gib;  // the run's printed peak (max reserved), when it has one
  double band = 0;                     // |error| allowed against it
};

Workload train(int gpus, std::int64_t micro_batch, std::int64_t seq, Checkpointing ckpt, Sharding sharding,
               ActivationProfile engine) {
  Workload w;
  w.method = Method::pretrain;
  w.gpus = gpus;
  w.micro_batch = micro_batch;
  w.seq_len = seq;
  w.checkpointing = ckpt;
  w.sharding = sharding;
  w.attention = Attention::flash;
  w.activations = engine;
  return w;
}

Workload parallel(Workload w, int tp, int pp, int cp = 1, int vp = 1) {
  w.tensor_parallel = tp;
  w.pipeline_parallel = pp;
  w.context_parallel = cp;
  w.virtual_pipeline = vp;
  w.sequence_parallel = tp > 1;  // Megatron, NeMo and torchtitan turn it on with TP
  return w;
}

std::vector<Run> runs() {
  using C = Checkpointing;
  using A = ActivationProfile;
  std::vector<Run> v;
  // pytorch/torchtitan benchmarks/llama3_h100_202412_torchtitan.md @ b5bcd76, Table 1: Llama 3.1 8B,
  // FSDP on 8 GPUs, local batch 2, "selective activation checkpointing", no torch.compile: 82.4 GiB.
  // The run's config is train_configs/llama3_8b.toml at 9dec370: seq_len 8192, activation_checkpoint
  // mode 'selective', selective_ac_option 'op' (the per-op policy); loss is an fp32 cross-entropy.
  // Held apart: nothing was fitted to it. Runs low: the reduce-scatter's fp32 gradient buffers and
  // the loss backward's third fp32 logits copy are not modelled.
  v.push_back({"torchtitan Llama 3.1 8B, FSDP 8, op-selective AC", "llama-3.1-8b",
               train(8, 2, 8192, C::selective, Sharding::fsdp, A::torchtitan), 82.4, 0.10});
  // The same file, Table 2: FSDP 2 x CP 4 at 131,072 tokens, local batch 1, full AC, torch.compile
  // and Float8 (not modelled: compile recomputes pointwise ops, so the estimate errs high): 84.0 GiB.
  v.push_back({"torchtitan Llama 3.1 8B, FSDP 2 x CP 4, 128K, full AC", "llama-3.1-8b",
               parallel(train(8, 1, 131072, C::full, Sharding::fsdp, A::torchtitan), 1, 1, 4), 84.0, 0.25});
  // The Llama 3 Herd of Models, Table 4: 405B at 8K, TP 8, PP 16, DP 64, no recomputation;
  // optimizer states and gradients sharded over DP (ZeRO-2-like).
  v.push_back({"Llama 3 405B 8K (Meta, Megatron-like)", "llama-3.1-405b",
               parallel(train(8192, 1, 8192, C::none, Sharding::zero2, A::megatron), 8, 16), std::nullopt, 0});
  // NVIDIA/NeMo docs/source/performance/performance_summary.md @ 070a0bb (NeMo 24.07, DGX-H100,
  // distributed optimizer): LLAMA3-70B TP 4, PP 4, CP 2, VP 5 on 64 GPUs, MBS 1, 8192 tokens;
  // LLAMA3-8B CP 2 on 8. Not here: the same page's LLAMA2-70B SFT (TP 4, PP 4 on 16 GPUs, so DP 1,
  // packed 4096 tokens, FP8) comes to ~94 GiB as printed — unsharded fp32 states of a quarter of
  // the layers on each GPU — so NeMo ran it with settings the page does not print (recompute or
  // FP8 parameters are candidates); README lists it as a known miss.
  v.push_back({"NeMo Llama 3 70B, TP4 PP4 CP2 VP5", "llama-3.1-70b",
               parallel(train(64, 1, 8192, C::none, Sharding::zero1, A::megatron), 4, 4, 2, 5), std::nullopt, 0});
  v.push_back({"NeMo Llama 3 8B, CP2", "llama-3.1-8b",
               parallel(train(8, 1, 8192, C::none, Sharding::zero1, A::megatron), 1, 1, 2), std::nullopt, 0});
  return v;
}

}  // namespace

TEST_CASE("published multi-GPU runs: torchtitan's peaks within their band, Megatron/NeMo runs fit an 80 GB H100",
          "[memory][published]") {
  const double h100 = static_cast<double>(testing::shipped_gpu("h100-sxm").usable_bytes());
  for (const Run& r : runs()) {
    const ModelArch& m = testing::shipped_model(r.model);
    const MemoryBreakdown b = estimate_memory(m, r.w);
    INFO(r.id);
    if (r.reserved_gib) {
      // max_memory_reserved: live tensors plus the allocator's slack, no CUDA context.
      const double estimate = b.allocated_bytes() * (1 + r.w.constants.fragmentation);
      const double error = estimate / (*r.reserved_gib * kGiB) - 1;
      std::printf("published-run %-56s estimate %6.1f GiB  measured %5.1f GiB  error %+5.1f%%  (band ±%.0f%%)\n",
                  r.id.c_str(), estimate / kGiB, *r.reserved_gib, 100 * error, 100 * r.band);
      CHECK(std::abs(error) <= r.band);
    } else {
      std::printf("published-run %-56s estimate %6.1f GiB  on an H100 of %5.1f GiB usable\n", r.id.c_str(),
                  b.per_gpu_bytes() / kGiB, h100 / kGiB);
      CHECK(b.per_gpu_bytes() <= h100);
    }
  }
}
