// Inferring a decoder's architecture from the names and shapes in its safetensors header
// (Hugging Face Llama/Mistral/Qwen2/Mixtral naming). Weights are stored [out, in], so a
// projection's first dimension is its output width.
#include <cmath>
#include <cstdio>

#include "io/model_files/hf_config.hpp"

namespace gpuplan::io {
namespace {

struct Shapes {
  const TensorShapes& t;

  // The shape of the per-layer tensor whose name ends in `suffix` ("self_attn.q_proj.weight").
  const std::vector<std::uint64_t>* layer(const std::string& suffix) const {
    for (const auto& [name, shape] : t.by_name) {
      const auto at = name.find("layers.*.");
      if (at != std::string::npos && name.size() >= suffix.size() &&
          name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0 && name.find(suffix) >= at + 9)
        return &shape;
    }
    return nullptr;
  }
  const std::vector<std::uint64_t>* top(const std::string& suffix) const {
    for (const auto& [name, shape] : t.by_name)
      if (name.find("layers.*.") == std::string::npos && name.size() >= suffix.size() &&
          name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
        return &shape;
    return nullptr;
  }
  bool any_layer_contains(const std::string& part) const {
    for (const auto& kv : t.by_name)
      if (kv.first.find("layers.*.") != std::string::npos && kv.first.find(part) != std::string::npos) return true;
    return false;
  }
  // Per-layer norms (input_layernorm, post_attention_layernorm, ...), not q_norm/k_norm.
  int norms_per_layer() const {
    int n = 0;
    for (const auto& kv : t.by_name) {
      const std::string& name = kv.first;
      if (name.find("layers.*.") == std::string::npos || name.size() < 7 || name.compare(name.size() - 7, 7, ".weight") != 0)
        continue;
      const auto dot = name.rfind('.', name.size() - 8);
      const std::string part = name.substr(dot + 1, name.size() - 8 - dot);
      if (part.find("norm") != std::string::npos && part != "q_norm" && part != "k_norm") ++n;
    }
    return n;
  }
};

bool is_matrix(const std::vector<std::uint64_t>* s) { return s && s->size() == 2 && (*s)[0] > 0 && (*s)[1] > 0; }

// heads x head_dim is all the shapes fix; head_dim is the largest common one that divides both
// widths (128 for most models since Llama, 64 for small ones).
int guess_head_dim(std::uint64_t q_out, std::uint64_t kv_out) {
  for (int d : {128, 64, 32, 16, 8})
    if (q_out % static_cast<std::uint64_t>(d) == 0 && kv_out % static_cast<std::uint64_t>(d) == 0) return d;
  return 1;
}

std::string count_text(double n) {
  char buf[32];
  std::snprintf(buf, sizeof buf, n >= 1e9 ? "%.2fB" : "%.1fM", n >= 1e9 ? n / 1e9 : n / 1e6);
  return buf;
}

}  // namespace

std::optional<InferredModel> infer_architecture(const WeightCount& w) {
  const Shapes s{w.shapes};
  const auto* q = s.layer("self_attn.q_proj.weight");
  const auto* k = s.layer("self_attn.k_proj.weight");
  const auto* embed = s.top("embed_tokens.weight");
  if (!is_matrix(q) || !is_matrix(k) || !is_matrix(embed) || w.shapes.layers < 1) return std::nullopt;
  InferredModel out;
  ModelArch& m = out.arch;
  m.hidden_size = static_cast<int>(std::min<std::uint64_t>((*embed)[1], 1u << 30));
  m.vocab_size = static_cast<int>(std::min<std::uint64_t>((*embed)[0], 1u << 30));
  m.layers = w.shapes.layers;
  const std::uint64_t q_out = (*q)[0], kv_out = (*k)[0];
  const auto* q_norm = s.layer("self_attn.q_norm.weight");
  const bool head_dim_known = q_norm && q_norm->size() == 1 && (*q_norm)[0] > 0;
  m.head_dim = head_dim_known ? static_cast<int>(std::min<std::uint64_t>((*q_norm)[0], 1u << 20)) : guess_head_dim(q_out, kv_out);
  if (q_out % static_cast<std::uint64_t>(m.head_dim) || kv_out % static_cast<std::uint64_t>(m.head_dim)) return std::nullopt;
  m.attention_heads = static_cast<int>(std::min<std::uint64_t>(q_out / static_cast<std::uint64_t>(m.head_dim), 1u << 20));
  m.kv_heads = static_cast<int>(std::min<std::uint64_t>(kv_out / static_cast<std::uint64_t>(m.head_dim), 1u << 20));
  if (m.kv_heads < 1 || m.attention_heads % m.kv_heads != 0) return std::nullopt;
  // MLP: dense (gate/up/down), Mixtral (block_sparse_moe.experts.*.w1/w2/w3) or Qwen-MoE style.
  const auto* gate = s.layer("mlp.gate_proj.weight");
  const auto* up = s.layer("mlp.up_proj.weight");
  const auto* w1 = s.layer("experts.*.w1.weight");
  const auto* expert_gate = s.layer("experts.*.gate_proj.weight");
  const auto* mlp = is_matrix(w1) ? w1 : is_matrix(expert_gate) ? expert_gate : is_matrix(gate) ? gate : up;
  if (!is_matrix(mlp)) return std::nullopt;
  m.intermediate_size = static_cast<int>(std::min<std::uint64_t>((*mlp)[0], 1u << 30));
  m.mlp = (is_matrix(w1) || is_matrix(expert_gate) || is_matrix(gate)) ? MlpKind::gated : MlpKind::plain;
  if (is_matrix(w1) || is_matrix(expert_gate)) {
    m.experts = w.shapes.experts;
    m.experts_per_token = std::min(2, m.experts);
  }
  m.qkv_bias = s.layer("self_attn.q_proj.bias") != nullptr;
  m.o_bias = s.layer("self_attn.o_proj.bias") != nullptr;
  m.mlp_bias = s.layer("mlp.down_proj.bias") != nullptr;
  m.norm = s.layer("input_layernorm.bias") ? NormKind::layernorm : NormKind::rmsnorm;
  m.norms_per_layer = std::max(1, s.norms_per_layer());
  m.tied_embeddings = s.top("lm_head.weight") == nullptr;
  m.max_context = 131072;
  m.family = "llama";
  m.id = "safetensors";
  m.published_params = static_cast<std::int64_t>(std::llround(w.total));
  if (!arch_problem(m).empty()) return std::nullopt;

  const double inferred = count_params(m).total();
  out.notes.push_back("architecture inferred from tensor shapes: " + std::to_string(m.layers) + " layers, hidden " +
                      std::to_string(m.hidden_size) + ", " + std::to_string(m.attention_heads) + " heads of " +
                      std::to_string(m.head_dim) + (head_dim_known ? " (head_dim from q_norm)" : " (head_dim assumed)") +
                      ", " + std::to_string(m.kv_heads) + " KV heads" + (m.kv_heads < m.attention_heads ? " (GQA)" : "") +
                      ", intermediate " + std::to_string(m.intermediate_size) + ", vocabulary " + std::to_string(m.vocab_size));
  std::string extras = m.tied_embeddings ? "tied embeddings (no lm_head)" : "untied lm_head";
  if (m.qkv_bias) extras += ", q/k/v biases";
  if (m.o_bias) extras += ", o bias";
  if (m.mlp_bias) extras += ", MLP biases";
  extras += m.norm == NormKind::layernorm ? ", LayerNorm" : ", RMSNorm";
  if (m.experts > 0)
    extras += ", " + std::to_string(m.experts) + " experts (experts per token is not in the weights: 2 assumed)";
  if (s.any_layer_contains("shared_expert")) extras += "; shared experts are not modelled";
  out.notes.push_back(extras + "; context length not in the weights: 131072 assumed");
  out.notes.push_back("the inferred architecture has " + count_text(inferred) + " parameters; the file holds " +
                      count_text(w.total));
  return out;
}

}  // namespace gpuplan::io
