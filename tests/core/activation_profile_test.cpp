// --activations megatron: Transformer Engine's fused norms and SwiGLU keep 16-bit tensors where
// Hugging Face's eager modules keep fp32 norm inputs and every SwiGLU intermediate. Checked
// against a hand count, against Korthikanti et al. 2022's 34·s·b·h per layer with selective
// recompute (divided by t with sequence parallelism), and against physical bounds.
#include <catch2/catch.hpp>

#include "core/test_models.hpp"
#include "gpuplan/memory.hpp"

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
