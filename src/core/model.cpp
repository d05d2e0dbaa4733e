#include "gpuplan/model.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <cstdio>

namespace gpuplan {

std::string arch_problem(const ModelArch& m) {
  const auto width = [](int a, int b) { return static_cast<std::int64_t>(a) * b; };
  const std::string limit = std::to_string(kMaxModelWidth);
  if (width(m.attention_heads, m.head_dim) > kMaxModelWidth)
    return "attention_heads x head_dim = " + std::to_string(width(m.attention_heads, m.head_dim)) + " exceeds " + limit;
  if (width(m.kv_heads, m.head_dim) > kMaxModelWidth)
    return "kv_heads x head_dim = " + std::to_string(width(m.kv_heads, m.head_dim)) + " exceeds " + limit;
  if (m.hidden_size > kMaxModelWidth || m.intermediate_size > kMaxModelWidth)
    return "hidden_size and intermediate_size must be at most " + limit;
  // MLA's projections (layer_shapes) are heads x (nope + v) and heads x v wide.
  if (m.mla() && (width(m.attention_heads, m.qk_nope_head_dim + m.v_head_dim) > kMaxModelWidth ||
                  static_cast<std::int64_t>(m.kv_lora_rank) + m.qk_rope_head_dim > kMaxModelWidth || m.q_lora_rank > kMaxModelWidth))
    return "attention_heads x (qk_nope_head_dim + v_head_dim) and kv_lora_rank + qk_rope_head_dim must be at most " + limit;
  const double total = count_params(m).total();
  if (!(total <= kMaxModelParams)) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3g", total);
    return std::string("the shape implies ") + buf + " parameters, beyond the 1e15 limit";
  }
  return "";
}

LayerShapes layer_shapes(const ModelArch& m) {
  LayerShapes s;
  // Readers keep heads x head_dim within kMaxModelWidth (arch_problem), so these fit an int.
  const int q_out = static_cast<int>(static_cast<std::int64_t>(m.attention_heads) * m.head_dim);
  const int kv_out = static_cast<int>(static_cast<std::int64_t>(m.kv_heads) * m.head_dim);
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
  c.routed_experts = moe_layers * (m.experts > 0 ? m.experts : 0) * (mlp_weights + mlp_bias);
  return c;
}

int moe_layers(const ModelArch& m) { return m.experts > 0 ? std::max(0, m.layers - m.first_dense_layers) : 0; }

double attention_macs_per_token(const ModelArch& m, double context) {
  const double qk = m.mla() ? m.qk_nope_head_dim + m.qk_rope_head_dim : m.head_dim;
  const double v = m.mla() ? m.v_head_dim : m.head_dim;
  const double per_token_layer = static_cast<double>(m.attention_heads) * (qk + v);
  if (m.sliding_window <= 0 || context <= m.sliding_window) return m.layers * per_token_layer * context;
  const int global = m.global_every > 0 ? m.layers / m.global_every : 0;
  return per_token_layer * (global * context + (m.layers - global) * static_cast<double>(m.sliding_window));
}

double kv_cache_values(const ModelArch& m, double context) {
  if (m.mla()) return static_cast<double>(m.layers) * (m.kv_lora_rank + m.qk_rope_head_dim) * context;
  const double per_token_layer = 2.0 * m.kv_heads * m.head_dim;
  if (m.sliding_window <= 0) return m.layers * per_token_layer * context;
  const int global = m.global_every > 0 ? m.layers / m.global_every : 0;
  const double local_context = std::min(context, static_cast<double>(m.sliding_window));
  return per_token_layer * (global * context + (m.layers - global) * local_context);
}

namespace {

// Shapes of published dense decoders, smallest first, with their own vocabulary and tying:
// below ~1B the embedding is a large share of the model, so a 128k-token vocabulary on a
// 125M model would be wrong by itself. The two smallest rungs have no published namesake;
// they follow the proportions of TinyStories-class models (head_dim 64, small vocabulary).
struct Rung {
  const char* source;
  int layers, hidden, heads, kv, vocab;
  bool tied;
};
constexpr Rung kLadder[] = {
    {"a toy decoder (TinyStories-class)", 4, 128, 2, 2, 4096, true},
    {"a small decoder (TinyStories-class)", 8, 256, 4, 4, 8192, true},
    {"a small decoder with the Llama 2 tokenizer", 12, 512, 8, 8, 32000, true},
    {"SmolLM2-135M", 30, 576, 9, 3, 49152, true},
    {"SmolLM2-360M", 32, 960, 15, 5, 49152, true},
    {"Qwen2.5-0.5B", 24, 896, 14, 2, 151936, true},
    {"Llama 3.2 1B", 16, 2048, 32, 8, 128256, true},
    {"Llama 3.2 3B", 28, 3072, 24, 8, 128256, true},
    {"Llama 3.1 8B", 32, 4096, 32, 8, 128256, false},
    {"Qwen2.5-14B", 48, 5120, 40, 8, 152064, false},
    {"Qwen2.5-32B", 64, 5120, 40, 8, 152064, false},
    {"Llama 3.1 70B", 80, 8192, 64, 8, 128256, false},
    {"Llama 3.1 405B", 126, 16384, 128, 8, 128256, false},
};
// Published SwiGLU decoders use intermediate/hidden between about 2.7 and 5.4; a rung is used
// only when the count it must absorb keeps the ratio inside [1, kMaxMlpRatio].
constexpr double kMaxMlpRatio = 6.0;

ModelArch rung_arch(const Rung& r, int layers) {
  ModelArch a;
  a.id = "params";
  a.family = "llama";
  a.layers = layers;
  a.hidden_size = r.hidden;
  a.attention_heads = r.heads;
  a.kv_heads = r.kv;
  a.head_dim = r.hidden / r.heads;
  a.vocab_size = r.vocab;
  a.tied_embeddings = r.tied;
  a.max_context = 131072;
  a.params_only = true;
  return a;
}

// Intermediate size that makes the total `params` (before rounding), given everything else.
double mlp_width_for(const ModelArch& a, double params) {
  ModelArch probe = a;
  probe.intermediate_size = 0;
  return (params - count_params(probe).total()) / (3.0 * a.hidden_size * a.layers);
}

}  // namespace

AssumedModel model_from_param_count(double params) {
  // Rungs by closeness in log size; take the first whose MLP can absorb the rest plausibly.
  std::vector<const Rung*> order;
  for (const auto& r : kLadder) order.push_back(&r);
  ModelArch sized[std::size(kLadder)];
  for (std::size_t k = 0; k < std::size(kLadder); ++k) {
    sized[k] = rung_arch(kLadder[k], kLadder[k].layers);
    sized[k].intermediate_size = static_cast<int>(std::lround(8.0 / 3.0 * kLadder[k].hidden));
  }
  const auto distance = [&](const Rung* r) {
    return std::fabs(std::log(count_params(sized[r - kLadder]).total() / params));
  };
  std::stable_sort(order.begin(), order.end(), [&](const Rung* x, const Rung* y) { return distance(x) < distance(y); });
  const auto fits = [&](const Rung& r, int layers) {
    const double ratio = mlp_width_for(rung_arch(r, layers), params) / r.hidden;
    return ratio >= 1 && ratio <= kMaxMlpRatio;
  };
  const Rung* best = nullptr;
  int layers = 0;
  for (const Rung* r : order)
    if (fits(*r, r->layers)) {
      best = r;
      layers = r->layers;
      break;
    }
  // Between rungs (or beyond the largest): keep the nearest rung's width and vocabulary and
  // choose the depth that puts its MLP at 3x the hidden size.
  for (std::size_t k = 0; !best && k < order.size(); ++k) {
    const Rung& r = *order[k];
    ModelArch probe = rung_arch(r, 0);
    const double fixed = count_params(probe).total();
    probe.layers = 1;
    const double per_layer = count_params(probe).total() - fixed + 3.0 * 3.0 * r.hidden * r.hidden;
    const long depth = std::lround((params - fixed) / per_layer);
    if (depth >= 1 && depth <= 10000 && fits(r, static_cast<int>(depth))) {
      best = &r;
      layers = static_cast<int>(depth);
    }
  }
  if (!best) {
    best = &kLadder[0];
    layers = best->layers;
  }
  AssumedModel out;
  ModelArch& a = out.arch;
  a = rung_arch(*best, layers);
  a.intermediate_size = static_cast<int>(std::max(1L, std::lround(mlp_width_for(a, params))));
  a.published_params = static_cast<std::int64_t>(std::llround(params));
  char want[64];
  std::snprintf(want, sizeof want, "%.4gM", params / 1e6);
  a.name = std::string(want) + " parameters (assumed architecture)";
  out.shape_of = best->source;
  out.shape_layers = best->layers;
  out.asked_params = params;
  out.total_params = count_params(a).total();
  return out;
}

}  // namespace gpuplan
