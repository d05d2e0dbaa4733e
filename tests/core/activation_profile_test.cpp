// --activations megatron: Transformer Engine's fused norms and SwiGLU keep 16-bit tensors where
// Hugging Face's eager modules keep fp32 norm inputs and every SwiGLU intermediate. Checked
// against a hand count, against Korthikanti et al. 2022's 34·s·b·h per layer with selective
// recompute (divided by t with sequence parallelism), and against physical bounds.
#include <catch2/catch.hpp>

#include "core/test_models.hpp"
#include "gpuplan/memory.hpp"
#include "gpuplan/step_time.hpp"

using namespace gpuplan;

namespace {

Workload full_ft(ActivationProfile a) {
  Workload w;
  w.method = Method::full;
  w.micro_batch = 1;
  w.seq_len = 4096;
  w.activations = a;
  return w;
}

double activations(const ModelArch& m, const Workload& w) { return estimate_memory(m, w)[MemComponent::activations]; }

// Korthikanti's GPT: multi-head attention, 4h GELU MLP, LayerNorm, dropout.
ModelArch gpt(int layers, int hidden, int heads) {
  ModelArch m;
  m.id = "gpt";
  m.layers = layers;
  m.hidden_size = hidden;
  m.intermediate_size = 4 * hidden;
  m.attention_heads = heads;
  m.kv_heads = heads;
  m.head_dim = hidden / heads;
  m.vocab_size = 51200;
  m.mlp = MlpKind::plain;
  m.norm = NormKind::layernorm;
  return m;
}

}  // namespace

TEST_CASE("Megatron/TE activations of a Llama layer, counted by hand", "[memory][activations]") {
  const ModelArch m = testing::llama31_8b();  // h 4096, q 4096, kv 1024, i 14336, 32 heads
  const double tokens = 4096, layers = 32;
  // Per token and layer, bf16: two norms (16-bit input + fp32 rsigma) 2 x (8192 + 4); the
  // qkv and gate/up inputs 8192 each; flash attention's q, k, v, output and fp32 statistics
  // 2 x (4096 + 2048) + 2 x 4096 + 4 x 32; fused SwiGLU's input 2 x 28672 and down's input 2 x 14336.
  const double megatron = 2 * (8192 + 4) + 8192 + 8192 + (12288 + 8192 + 128) + (57344 + 28672);
  CHECK(activations(m, full_ft(ActivationProfile::megatron)) == Approx(tokens * layers * megatron));
  // Hugging Face keeps fp32 norm inputs (4 x 4096 each) and gate, act, up and product (4 x 2 x 14336).
  const double hf = 2 * 4 * 4096 + 8192 + 8192 + (12288 + 8192 + 128) + 4 * 2 * 14336;
  CHECK(activations(m, full_ft(ActivationProfile::hf)) == Approx(tokens * layers * hf));
}

TEST_CASE("Megatron/TE activations are Korthikanti's 34sbh per layer, divided by t with sequence parallelism",
          "[memory][activations]") {
  const ModelArch m = gpt(24, 2048, 16);
  const double h = 2048, a = 16, s = 2048, layers = 24;
  Workload w = full_ft(ActivationProfile::megatron);
  w.seq_len = 2048;
  w.dropout = true;
  // 34·h bytes a token, plus the fp32 statistics the paper leaves out: flash attention's
  // log-sum-exp (4 bytes a head) and LayerNorm's mean and rsigma (8 bytes a norm).
  const double per_token = 34 * h + 4 * a + 2 * 8;
  CHECK(activations(m, w) == Approx(s * layers * per_token));
  w.gpus = 8;
  w.tensor_parallel = 8;
  w.sequence_parallel = true;
  CHECK(activations(m, w) == Approx(s * layers * per_token / 8));
}

TEST_CASE("Megatron/TE never keeps more than HF eager, nor less than the inputs the weight gradients need",
          "[memory][activations][property]") {
  int checked = 0;
  for (const ModelArch& m : {testing::llama32_3b(), testing::llama31_8b(), testing::llama31_70b(), gpt(24, 2048, 16)})
    for (Method method : {Method::full, Method::lora, Method::pretrain})
      for (Attention attn : {Attention::eager, Attention::sdpa})
        for (Checkpointing c : {Checkpointing::none, Checkpointing::selective, Checkpointing::full})
          for (int tp : {1, 8})
            for (bool sp : {false, true}) {
              if (sp && tp == 1) continue;
              Workload w = full_ft(ActivationProfile::hf);
              w.method = method;
              w.attention = attn;
              w.checkpointing = c;
              w.gpus = tp;
              w.tensor_parallel = tp;
              w.sequence_parallel = sp;
              const double hf = activations(m, w);
              w.activations = ActivationProfile::megatron;
              const double te = activations(m, w);
              INFO(m.id << " method " << static_cast<int>(method) << " attention " << static_cast<int>(attn) << " ckpt "
                        << static_cast<int>(c) << " tp " << tp << " sp " << sp);
              // TE's LayerNorm statistics (fp32 mean and rsigma) are counted; the HF count leaves them out.
              const double stats = m.norm == NormKind::layernorm ? w.seq_len * m.layers * m.norms_per_layer * 8.0 : 0.0;
              CHECK(te <= hf * (1 + 1e-12) + stats);
              if (method != Method::lora && c == Checkpointing::none) {
                // Every trained linear's 16-bit input (qkv, o, gate/up, down) must be kept, split by TP at most.
                const double inputs = 2.0 * (2 * m.hidden_size + m.attention_heads * m.head_dim + m.intermediate_size);
                CHECK(te >= w.seq_len * m.layers * inputs / tp * (1 - 1e-12));
              }
              ++checked;
            }
  CHECK(checked > 100);
}

TEST_CASE("torchtitan's per-op selective checkpointing of a Llama layer, counted by hand", "[memory][activations]") {
  const ModelArch m = testing::llama31_8b();  // h 4096, q 4096, kv 1024, i 14336, 32 heads
  const double tokens = 4096, layers = 32;
  Workload w = full_ft(ActivationProfile::torchtitan);
  // Without checkpointing torchtitan's modules keep what Hugging Face's do.
  const double whole = 2 * 4 * 4096 + 8192 + 8192 + (12288 + 8192 + 128) + 4 * 2 * 14336;
  CHECK(activations(m, w) == Approx(tokens * layers * whole));
  // The op policy keeps, per token and layer in bf16: the layer's input 8192; the 1st, 3rd, 5th
  // and 7th matmul outputs of q, k, v, o, gate, up, down: q 8192, v 2048, gate 28672, down 8192;
  // flash attention's output 8192 and fp32 log-sum-exp 4 x 32. Backward recomputes one layer's rest.
  w.checkpointing = Checkpointing::selective;
  const double saved = 8192 + 8192 + 2048 + 28672 + 8192 + 8192 + 128;
  CHECK(op_sac_saved_bytes_per_token(m, w) == Approx(saved));
  CHECK(activations(m, w) == Approx(tokens * (layers * saved + (whole - saved))));
  // Under Megatron/TE and Hugging Face profiles "selective" stays the attention-score recompute.
  w.activations = ActivationProfile::hf;
  CHECK(activations(m, w) == Approx(tokens * layers * whole));
}

TEST_CASE("torchtitan's op policy reruns the k, o and up matmuls and not attention", "[time][activations]") {
  const ModelArch m = testing::llama31_8b();
  const ParamCounts pc = count_params(m);
  Workload w = full_ft(ActivationProfile::torchtitan);
  const double none = training_flops_per_token(m, pc, w).hardware;
  w.checkpointing = Checkpointing::selective;
  // k 4096 x 1024, o 4096 x 4096, up 4096 x 14336, two FLOPs a weight, 32 layers.
  const double rerun = 2.0 * 32 * (4096.0 * 1024 + 4096.0 * 4096 + 4096.0 * 14336);
  CHECK(op_sac_recomputed_weights(m) == Approx(4096.0 * 1024 + 4096.0 * 4096 + 4096.0 * 14336));
  CHECK(training_flops_per_token(m, pc, w).hardware == Approx(none + rerun));
  CHECK(training_flops_per_token(m, pc, w).model == Approx(training_flops_per_token(m, pc, full_ft(ActivationProfile::hf)).model));
}

TEST_CASE("torchtitan's op policy keeps between full checkpointing and none, and reruns less than full",
          "[memory][activations][time][property]") {
  int checked = 0;
  for (const ModelArch& m : {testing::llama32_3b(), testing::llama31_8b(), testing::llama31_70b(), gpt(24, 2048, 16)})
    for (Method method : {Method::full, Method::pretrain})
      for (std::int64_t seq : {512, 4096, 32768})
        for (int tp : {1, 8})
          for (bool sp : {false, true}) {
            if (sp && tp == 1) continue;
            Workload w = full_ft(ActivationProfile::torchtitan);
            w.method = method;
            w.seq_len = seq;
            w.gpus = tp;
            w.tensor_parallel = tp;
            w.sequence_parallel = sp;
            const ParamCounts pc = count_params(m);
            const double none = activations(m, w);
            const TokenFlops f0 = training_flops_per_token(m, pc, w);
            w.checkpointing = Checkpointing::full;
            const double full = activations(m, w);
            const double full_hw = training_flops_per_token(m, pc, w).hardware;
            w.checkpointing = Checkpointing::selective;
            const double op = activations(m, w);
            const TokenFlops f = training_flops_per_token(m, pc, w);
            INFO(m.id << " seq " << seq << " tp " << tp << " sp " << sp);
            CHECK(op <= none * (1 + 1e-12));
            CHECK(op >= full * (1 - 1e-12));
            CHECK(f.hardware > f0.hardware);
            CHECK(f.hardware < full_hw);
            CHECK(f.model == Approx(f0.model));
            ++checked;
          }
  CHECK(checked == 4 * 2 * 3 * 3);
}

TEST_CASE("torchtitan's FSDP root unit keeps the embeddings and output gathered, by hand", "[memory][activations]") {
  const ModelArch m = testing::llama31_8b();
  const ParamCounts pc = count_params(m);
  Workload w = full_ft(ActivationProfile::hf);
  w.gpus = 8;
  w.sharding = Sharding::fsdp;
  const double hf = estimate_memory(m, pc, w)[MemComponent::weights];
  w.activations = ActivationProfile::torchtitan;
  const double titan = estimate_memory(m, pc, w)[MemComponent::weights];
  // 128256 x 4096 embedding and output in bf16, gathered: each GPU adds the 7/8 it does not own.
  CHECK(titan - hf == Approx(2.0 * 128256 * 4096 * 2 * 7.0 / 8));
  // Never more than the whole unsharded model plus the two layers FSDP keeps gathered.
  w.gpus = 1;
  w.sharding = Sharding::ddp;
  CHECK(titan < estimate_memory(m, pc, w)[MemComponent::weights]);
}
