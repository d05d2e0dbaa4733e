#include "gpuplan/model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gpuplan {

LayerShapes layer_shapes(const ModelArch& m) {
  LayerShapes s;
  const int q_out = m.attention_heads * m.head_dim;
  const int kv_out = m.kv_heads * m.head_dim;
  s.q = {m.hidden_size, q_out};
  s.k = {m.hidden_size, kv_out};
  s.v = {m.hidden_size, kv_out};
  s.o = {q_out, m.hidden_size};
  if (m.mla()) {  // the projections LoRA targets in MLA: q, kv_a (compress), kv_b (expand), o
    s.q = {m.hidden_size, m.attention_heads * (m.qk_nope_head_dim + m.qk_rope_head_dim)};
    s.k = {m.hidden_size, m.kv_lora_rank + m.qk_rope_head_dim};
    s.v = {m.kv_lora_rank, m.attention_heads * (m.qk_nope_head_dim + m.v_head_dim)};
    s.o = {m.attention_heads * m.v_head_dim, m.hidden_size};
  }
  if (m.mlp == MlpKind::gated) s.gate = {m.hidden_size, m.intermediate_size};
  s.up = {m.hidden_size, m.intermediate_size};
  s.down = {m.intermediate_size, m.hidden_size};
  return s;
}

namespace {

// One layer's attention projection weights (no biases, no norms).
double attention_weights(const ModelArch& m) {
  const double h = m.hidden_size;
  if (m.mla()) {
    const double heads = m.attention_heads, qk = m.qk_nope_head_dim + m.qk_rope_head_dim;
    const double q_part = m.q_lora_rank > 0 ? h * m.q_lora_rank + static_cast<double>(m.q_lora_rank) * heads * qk : h * heads * qk;
    return q_part + h * (m.kv_lora_rank + m.qk_rope_head_dim) +
           static_cast<double>(m.kv_lora_rank) * heads * (m.qk_nope_head_dim + m.v_head_dim) + heads * m.v_head_dim * h;
  }
  const double q = static_cast<double>(m.attention_heads) * m.head_dim;
  const double kv = static_cast<double>(m.kv_heads) * m.head_dim;
  return h * q + 2 * h * kv + q * h;
}

}  // namespace

ParamCounts count_params(const ModelArch& m) {
  const double h = m.hidden_size;
  const double L = m.layers;
  const double i = m.intermediate_size;
  const double q = static_cast<double>(m.attention_heads) * m.head_dim;
  const double kv = static_cast<double>(m.kv_heads) * m.head_dim;
  const double experts = m.experts > 0 ? m.experts : 1;
  const double active_experts = m.experts > 0 ? m.experts_per_token : 1;
  // MoE models may open with dense layers of their own width (DeepSeek-V3: 3 of 61).
  const double moe_layers = m.experts > 0 ? L - m.first_dense_layers : 0;
  const double dense_layers = L - moe_layers;
  const double dense_width = m.experts > 0 && m.dense_intermediate_size > 0 ? m.dense_intermediate_size : i;
  const double per_layer_experts = experts + m.shared_experts;

  ParamCounts c;
  c.embedding = static_cast<double>(m.vocab_size) * h + static_cast<double>(m.learned_positions) * h;

  const double attn_weights = attention_weights(m);
  const double attn_bias = m.mla() ? 0 : (m.qkv_bias ? q + 2 * kv : 0) + (m.o_bias ? h : 0);
  c.attention = L * (attn_weights + attn_bias);

  const bool gated = m.mlp == MlpKind::gated;
  auto mlp_w = [&](double width) { return (gated ? 3 : 2) * h * width; };
  auto mlp_b = [&](double width) { return m.mlp_bias ? (gated ? 2 * width + h : width + h) : 0.0; };
  const double mlp_weights = mlp_w(i), mlp_bias = mlp_b(i);
  c.mlp = dense_layers * (mlp_w(dense_width) + mlp_b(dense_width)) + moe_layers * per_layer_experts * (mlp_weights + mlp_bias);
  c.router = m.experts > 0 ? moe_layers * (h * m.experts + (m.router_bias ? m.experts : 0)) : 0;

  const double per_norm = m.norm == NormKind::layernorm ? 2 * h : h;
  const double qk_norms = m.qk_norm ? 2.0 * (m.mla() ? m.qk_nope_head_dim + m.qk_rope_head_dim : m.head_dim) : 0;
  const double latent_norms = m.mla() ? static_cast<double>(m.q_lora_rank) + m.kv_lora_rank : 0;
  c.norms = (L * m.norms_per_layer + 1) * per_norm + L * (qk_norms + latent_norms);
  c.lm_head = m.tied_embeddings ? 0 : static_cast<double>(m.vocab_size) * h;

  c.linear_weights = L * attn_weights + dense_layers * mlp_w(dense_width) + moe_layers * per_layer_experts * mlp_weights;
  c.active = c.total() - moe_layers * (experts - active_experts) * (mlp_weights + mlp_bias);
  return c;
}

double kv_cache_values(const ModelArch& m, double context) {
  if (m.mla()) return static_cast<double>(m.layers) * (m.kv_lora_rank + m.qk_rope_head_dim) * context;
  const double per_token_layer = 2.0 * m.kv_heads * m.head_dim;
  if (m.sliding_window <= 0) return m.layers * per_token_layer * context;
  const int global = m.global_every > 0 ? m.layers / m.global_every : 0;
  const double local_context = std::min(context, static_cast<double>(m.sliding_window));
  return per_token_layer * (global * context + (m.layers - global) * local_context);
}

AssumedModel model_from_param_count(double params) {
  // Width/depth pairs of published dense decoders (Llama 2/3, Qwen2.5), smallest first.
  struct Rung { double params; int layers; int hidden; int inter; int heads; int kv; };
  static constexpr Rung kLadder[] = {
      {0.5e9, 24, 896, 4864, 14, 2},     {1.2e9, 16, 2048, 8192, 32, 8},
      {3.2e9, 28, 3072, 8192, 24, 8},    {8.0e9, 32, 4096, 14336, 32, 8},
      {14.8e9, 48, 5120, 13824, 40, 8},  {32.8e9, 64, 5120, 27648, 40, 8},
      {70.6e9, 80, 8192, 28672, 64, 8},  {405.9e9, 126, 16384, 53248, 128, 8},
  };
  const Rung* best = &kLadder[0];
  for (const auto& r : kLadder)
    if (std::fabs(std::log(r.params / params)) < std::fabs(std::log(best->params / params))) best = &r;

  AssumedModel out;
  ModelArch& a = out.arch;
  a.id = "params";
  a.family = "llama";
  a.layers = best->layers;
  a.hidden_size = best->hidden;
  a.attention_heads = best->heads;
  a.kv_heads = best->kv;
  a.head_dim = best->hidden / best->heads;
  a.vocab_size = 128256;
  a.tied_embeddings = false;
  a.max_context = 131072;
  a.params_only = true;
  // Keep depth, width and vocabulary from the rung; size the MLP so the total matches.
  ModelArch probe = a;
  probe.intermediate_size = 0;
  const double fixed = count_params(probe).total();
  const double per_unit = 3.0 * a.hidden_size * a.layers;
  double inter = (params - fixed) / per_unit;
  if (inter < a.hidden_size) inter = a.hidden_size;  // tiny counts: keep a sane shape
  a.intermediate_size = static_cast<int>(std::lround(inter));
  a.published_params = static_cast<std::int64_t>(std::llround(params));
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2fB", params / 1e9);
  a.name = std::string(buf) + " parameters (assumed architecture)";
  out.assumptions = {
      "dense Llama-style decoder (gated SwiGLU MLP, RMSNorm, RoPE, no biases)",
      "depth " + std::to_string(a.layers) + ", hidden " + std::to_string(a.hidden_size) + ", " +
          std::to_string(a.attention_heads) + " heads, " + std::to_string(a.kv_heads) +
          " KV heads (GQA), taken from the nearest published model size",
      "vocabulary 128256 (Llama 3), untied embeddings; intermediate size " + std::to_string(a.intermediate_size) +
          " chosen so the total matches",
      "activation and KV-cache memory depend on these guesses; give --model or --model-config for real figures",
  };
  return out;
}

}  // namespace gpuplan
