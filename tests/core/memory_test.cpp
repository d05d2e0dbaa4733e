#include <catch2/catch.hpp>

#include "core/test_models.hpp"
#include "gpuplan/memory.hpp"
#include "gpuplan/units.hpp"

using namespace gpuplan;

namespace {
ModelArch llama8b() { return testing::llama31_8b(); }
ModelArch gpt3_175b() {
  ModelArch m;
  m.layers = 96;
  m.hidden_size = 12288;
  m.intermediate_size = 4 * 12288;
  m.attention_heads = 96;
  m.kv_heads = 96;
  m.head_dim = 128;
  m.vocab_size = 50257;
  m.mlp = MlpKind::plain;
  m.norm = NormKind::layernorm;
  return m;
}
double model_states(const MemoryBreakdown& r) {
  return r[MemComponent::weights] + r[MemComponent::gradients] + r[MemComponent::optimizer] + r[MemComponent::master_weights];
}
}  // namespace

TEST_CASE("mixed-precision Adam holds 16 bytes per parameter (ZeRO paper, 2+2+12)", "[memory]") {
  const ModelArch m = llama8b();
  Workload w;  // full, bf16, adamw
  const MemoryBreakdown r = estimate_memory(m, w);
  CHECK(model_states(r) / r.params_total == Approx(16.0));
  CHECK(r[MemComponent::weights] / r.params_total == Approx(2.0));
  CHECK(r[MemComponent::master_weights] / r.params_total == Approx(4.0));
  CHECK(r[MemComponent::optimizer] / r.params_total == Approx(8.0));
}

TEST_CASE("ZeRO stages shard what the paper says they shard", "[memory]") {
  const ModelArch m = llama8b();
  Workload w;
  w.gpus = 64;
  w.sharding = Sharding::zero1;
  // ZeRO-1: 2 + 2 + 12/N bytes per parameter.
  CHECK(model_states(estimate_memory(m, w)) / count_params(m).total() == Approx(4.0 + 12.0 / 64));
  w.sharding = Sharding::zero2;
  CHECK(model_states(estimate_memory(m, w)) / count_params(m).total() == Approx(2.0 + 14.0 / 64));
  w.sharding = Sharding::zero3;
  const MemoryBreakdown z3 = estimate_memory(m, w);
  // 16/N plus the gathered working set of two layers.
  CHECK(model_states(z3) / z3.params_total < 16.0 / 64 + 0.2);
  CHECK(model_states(z3) / z3.params_total > 16.0 / 64);
}

TEST_CASE("pure bf16 drops the master copy, fp32 training has none", "[memory]") {
  const ModelArch m = llama8b();
  Workload w;
  w.pure_bf16 = true;
  CHECK(estimate_memory(m, w)[MemComponent::master_weights] == 0);
  w.pure_bf16 = false;
  w.precision = Precision::fp32;
  const MemoryBreakdown r = estimate_memory(m, w);
  CHECK(r[MemComponent::master_weights] == 0);
  CHECK(model_states(r) / r.params_total == Approx(16.0));  // 4 + 4 + 8
}

TEST_CASE("QLoRA's NF4 costs the paper's bits per parameter", "[memory]") {
  // Dettmers et al. 2023: 4 bits + 32/64 = 4.5 bits; double quantisation 4 + 8/64 + 32/(64*256) = 4.127.
  CHECK(bytes_per_weight(WeightFormat::nf4, false) * 8 == Approx(4.5));
  CHECK(bytes_per_weight(WeightFormat::nf4, true) * 8 == Approx(4.127).epsilon(0.001));
  CHECK(bytes_per_weight(WeightFormat::int4_gptq, false) * 8 == Approx(4.15625));
}

TEST_CASE("LoRA adapter counts match the LoRA paper's GPT-3 figures", "[memory]") {
  // Hu et al. 2021, Table 4: 4.7M trainable (r=1 on Wq, Wv) and 37.7M (r=8 on Wq, Wv).
  const ModelArch m = gpt3_175b();
  Workload w;
  w.method = Method::lora;
  w.lora_targets = kLoraQ | kLoraV;
  w.lora_rank = 1;
  CHECK(trainable_params(m, count_params(m), w) == Approx(4.7e6).epsilon(0.01));
  w.lora_rank = 8;
  CHECK(trainable_params(m, count_params(m), w) == Approx(37.7e6).epsilon(0.01));
}

TEST_CASE("KV cache is 2 x layers x kv_heads x head_dim x bytes per token", "[memory]") {
  const ModelArch m = llama8b();
  Workload w;
  w.method = Method::inference;
  w.micro_batch = 4;
  w.seq_len = 8192;
  const double per_token = 2.0 * 32 * 8 * 128 * 2;  // 128 KiB in bf16 thanks to GQA
  CHECK(estimate_memory(m, w)[MemComponent::kv_cache] == Approx(per_token * 4 * 8192));
  w.kv_cache_dtype = KvDtype::fp8;
  CHECK(estimate_memory(m, w)[MemComponent::kv_cache] == Approx(per_token * 4 * 8192 / 2));
}

TEST_CASE("activation knobs move memory the right way", "[memory]") {
  const ModelArch m = llama8b();
  Workload w;
  w.seq_len = 4096;
  const double base = estimate_memory(m, w)[MemComponent::activations];
  Workload ck = w;
  ck.checkpointing = Checkpointing::full;
  CHECK(estimate_memory(m, ck)[MemComponent::activations] < base / 5);
  Workload eager = w;
  eager.attention = Attention::eager;
  CHECK(estimate_memory(m, eager)[MemComponent::activations] > base * 1.5);  // s x s scores
  Workload two = w;
  two.micro_batch = 2;
  CHECK(estimate_memory(m, two)[MemComponent::activations] == Approx(2 * base));
  Workload fused = w;
  fused.loss = Loss::fused;
  CHECK(estimate_memory(m, fused)[MemComponent::logits] < estimate_memory(m, w)[MemComponent::logits] / 10);
}

TEST_CASE("the largest micro-batch is searched, and it is the largest", "[memory]") {
  const ModelArch m = llama8b();
  Workload w;
  w.method = Method::qlora;
  w.checkpointing = Checkpointing::full;
  const double cap = 24.0 * kGiB;
  const std::int64_t b = max_micro_batch(m, count_params(m), w, cap);
  REQUIRE(b >= 1);
  w.micro_batch = b;
  CHECK(estimate_memory(m, w).per_gpu_bytes() <= cap);
  w.micro_batch = b + 1;
  CHECK(estimate_memory(m, w).per_gpu_bytes() > cap);
  Workload full;
  CHECK(max_micro_batch(m, count_params(m), full, cap) == 0);  // 8B full fine-tune cannot fit 24 GiB
}

TEST_CASE("offload moves optimizer states to the CPU and reports them", "[memory]") {
  const ModelArch m = llama8b();
  Workload w;
  w.offload = Offload::optimizer;
  const MemoryBreakdown r = estimate_memory(m, w);
  CHECK(r[MemComponent::optimizer] == 0);
  CHECK(r.cpu_bytes == Approx(12.0 * r.params_total));
}

TEST_CASE("pure bf16 keeps torch optimizer moments in bf16, 8-bit states stay 8-bit", "[memory]") {
  const ModelArch m = llama8b();
  Workload w;
  w.pure_bf16 = true;
  CHECK(estimate_memory(m, w)[MemComponent::optimizer] / estimate_memory(m, w).params_trainable == Approx(4.0));
  w.optimizer = Optimizer::sgd_momentum;
  CHECK(estimate_memory(m, w)[MemComponent::optimizer] / estimate_memory(m, w).params_trainable == Approx(2.0));
  w.optimizer = Optimizer::adamw_8bit;
  CHECK(estimate_memory(m, w)[MemComponent::optimizer] / estimate_memory(m, w).params_trainable == Approx(2.0).epsilon(0.01));
  // LoRA adapters are fp32 whatever the base: their moments are too.
  w.method = Method::lora;
  w.optimizer = Optimizer::adamw;
  CHECK(estimate_memory(m, w)[MemComponent::optimizer] / estimate_memory(m, w).params_trainable == Approx(8.0));
}

TEST_CASE("sharded offload moves gradients to the host too, keeping about one layer's", "[memory]") {
  const ModelArch m = llama8b();
  Workload w;
  w.pure_bf16 = true;
  w.gpus = 8;
  w.sharding = Sharding::fsdp;
  const MemoryBreakdown kept = estimate_memory(m, w);
  w.offload = Offload::optimizer_params;
  const MemoryBreakdown off = estimate_memory(m, w);
  CHECK(off[MemComponent::gradients] == Approx(kept.params_trainable * 2.0 / m.layers));
  CHECK(off[MemComponent::gradients] < kept[MemComponent::gradients]);
  // Host RAM: bf16 weights + bf16 gradients + bf16 AdamW moments for the whole model.
  CHECK(off.cpu_bytes == Approx(8.0 * off.params_total).epsilon(0.001));
}

TEST_CASE("paged optimizer states are reported apart from allocator-counted bytes", "[memory]") {
  const ModelArch m = llama8b();
  Workload w;
  w.optimizer = Optimizer::paged_adamw_8bit;
  const MemoryBreakdown r = estimate_memory(m, w);
  CHECK(r.paged_bytes == r[MemComponent::optimizer]);
  CHECK(r.allocated_bytes() == Approx(r.tensor_bytes() - r[MemComponent::optimizer]));
  w.optimizer = Optimizer::adamw_8bit;
  CHECK(estimate_memory(m, w).paged_bytes == 0);
}
