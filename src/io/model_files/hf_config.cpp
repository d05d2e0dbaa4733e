#include "io/model_files/hf_config.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include "gpuplan/error.hpp"
#include "io/text/files.hpp"
#include "io/text/input_text.hpp"
#include "io/text/json_text.hpp"

namespace gpuplan::io {
namespace {

using nlohmann::json;

SourceLocation locate_key(const std::string& text, const std::string& path, const std::string& key) {
  return json_locate_key(text, path, key);
}

struct ConfigReader {
  const json& j;
  const std::string& text;
  const std::string& path;

  const json* find(std::initializer_list<const char*> keys) const {
    for (const char* k : keys)
      if (j.contains(k) && !j[k].is_null()) return &j[k];
    return nullptr;
  }
  std::int64_t integer(std::initializer_list<const char*> keys, std::int64_t min_v, std::int64_t max_v) const {
    const json* v = find(keys);
    if (!v) throw InputError({path, 1, 1}, *keys.begin(), "missing required key");
    return check_int(*v, *keys.begin(), min_v, max_v);
  }
  std::optional<std::int64_t> opt_int(std::initializer_list<const char*> keys, std::int64_t min_v, std::int64_t max_v) const {
    const json* v = find(keys);
    if (!v) return std::nullopt;
    return check_int(*v, *keys.begin(), min_v, max_v);
  }
  std::int64_t check_int(const json& v, const char* key, std::int64_t min_v, std::int64_t max_v) const {
    if (!v.is_number_integer() && !(v.is_number_float() && std::floor(v.get<double>()) == v.get<double>()))
      throw InputError(locate_key(text, path, key), key, "expected a whole number, got " + quote_input(v.dump()));
    const double d = v.get<double>();
    if (d < static_cast<double>(min_v) || d > static_cast<double>(max_v))
      throw InputError(locate_key(text, path, key), key,
                       "expected " + std::to_string(min_v) + " to " + std::to_string(max_v) + ", got " + quote_input(v.dump()));
    return static_cast<std::int64_t>(d);
  }
  std::optional<bool> opt_bool(const char* key) const {
    const json* v = find({key});
    if (!v) return std::nullopt;
    if (!v->is_boolean()) throw InputError(locate_key(text, path, key), key, "expected true or false, got " + quote_input(v->dump()));
    return v->get<bool>();
  }
};

}  // namespace

namespace {

// Gemma 3's local:global layout: layer_types lists each layer ("sliding_attention" or
// "full_attention"); older configs give sliding_window_pattern N (N-1 local, then one global).
// Returns N (every Nth layer global), or 0 when every layer is local, -1 when the layout is not
// one global every N layers.
int global_every_of(const ConfigReader& r) {
  if (const json* lt = r.find({"layer_types"})) {
    if (!lt->is_array()) throw InputError(locate_key(r.text, r.path, "layer_types"), "layer_types", "expected a list of layer kinds");
    std::vector<int> globals;
    for (std::size_t i = 0; i < lt->size(); ++i) {
      const json& v = (*lt)[i];
      if (!v.is_string()) throw InputError(locate_key(r.text, r.path, "layer_types"), "layer_types", "expected strings, got " + quote_input(v.dump()));
      if (v.get<std::string>() == "full_attention") globals.push_back(static_cast<int>(i));
    }
    if (globals.empty()) return 0;
    const int every = globals.front() + 1;
    if (globals.size() != lt->size() / static_cast<std::size_t>(every)) return -1;
    for (std::size_t k = 0; k < globals.size(); ++k)
      if (globals[k] != static_cast<int>((k + 1) * every - 1)) return -1;
    return every;
  }
  return static_cast<int>(r.opt_int({"sliding_window_pattern"}, 1, 1 << 20).value_or(0));
}

// The features of current models: QK-norm, sliding windows, MoE with shared experts and dense
// first layers, and multi-head latent attention (docs/catalog-format.md, `models:`).
void read_current_features(const ConfigReader& r, const std::string& type, ModelArch& m) {
  constexpr std::int64_t kDim = 1 << 20;
  const bool qwen3 = type == "qwen3" || type == "qwen3_moe";
  const bool gemma3 = type == "gemma3_text";
  const bool deepseek = type == "deepseek_v2" || type == "deepseek_v3";
  m.qk_norm = qwen3 || gemma3;  // both models' attention has q_norm and k_norm (no config key)
  if (gemma3) m.norms_per_layer = 4;
  // A window counts when the config turns it on: Qwen's use_sliding_window is false in every
  // published Qwen3 config, whose sliding_window is null or unused.
  // Gemma 2 alternates local and global layers; Mistral 7B v0.1 windows every layer (its later
  // versions set sliding_window null).
  const bool gemma2 = type == "gemma2";
  const bool window_on = gemma3 || gemma2 || type == "mistral" || r.opt_bool("use_sliding_window").value_or(false);
  if (window_on) {
    if (const auto w = r.opt_int({"sliding_window"}, 1, std::int64_t{1} << 30); w && *w < m.max_context) {
      m.sliding_window = static_cast<int>(*w);
      int every = global_every_of(r);
      if (gemma2 && every == 0 && !r.find({"layer_types"})) every = 2;  // Gemma2Config: even layers local, odd global
      if (every < 0) throw InputError(locate_key(r.text, r.path, "layer_types"), "layer_types", "only one global layer every N layers is modelled");
      m.global_every = every;
    }
  }
  if (type == "qwen3_moe") {
    m.experts = static_cast<int>(r.integer({"num_experts"}, 1, 4096));
    m.experts_per_token = static_cast<int>(r.integer({"num_experts_per_tok"}, 1, m.experts));
    m.intermediate_size = static_cast<int>(r.integer({"moe_intermediate_size"}, 1, kDim));
    if (const json* only = r.find({"mlp_only_layers"}); only && !(only->is_array() && only->empty()))
      throw InputError(locate_key(r.text, r.path, "mlp_only_layers"), "mlp_only_layers", "dense layers among MoE layers are not modelled");
  }
  if (deepseek) {
    m.experts = static_cast<int>(r.integer({"n_routed_experts"}, 1, 4096));
    m.experts_per_token = static_cast<int>(r.integer({"num_experts_per_tok"}, 1, m.experts));
    m.shared_experts = static_cast<int>(r.opt_int({"n_shared_experts"}, 0, 64).value_or(0));
    m.dense_intermediate_size = m.intermediate_size;
    m.intermediate_size = static_cast<int>(r.integer({"moe_intermediate_size"}, 1, kDim));
    m.first_dense_layers = static_cast<int>(r.opt_int({"first_k_dense_replace"}, 0, m.layers).value_or(0));
    if (r.opt_int({"moe_layer_freq"}, 1, 1 << 20).value_or(1) != 1)
      throw InputError(locate_key(r.text, r.path, "moe_layer_freq"), "moe_layer_freq", "only 1 (every layer after the dense ones is MoE) is modelled");
    // V3 gates with a per-expert score-correction bias (topk_method noaux_tc); V2 has none.
    m.router_bias = type == "deepseek_v3";
    m.q_lora_rank = static_cast<int>(r.opt_int({"q_lora_rank"}, 1, kDim).value_or(0));
    m.kv_lora_rank = static_cast<int>(r.integer({"kv_lora_rank"}, 1, kDim));
    m.qk_nope_head_dim = static_cast<int>(r.integer({"qk_nope_head_dim"}, 1, 65536));
    m.qk_rope_head_dim = static_cast<int>(r.integer({"qk_rope_head_dim"}, 1, 65536));
    m.v_head_dim = static_cast<int>(r.integer({"v_head_dim"}, 1, 65536));
  }
}

}  // namespace

namespace {

ModelArch parse_arch(const json& j, const std::string& text, const std::string& path, const std::string& type) {
  ConfigReader r{j, text, path};
  constexpr std::int64_t kDim = 1 << 20;
  ModelArch m;
  m.family = type;
  m.id = std::filesystem::path(path).parent_path().filename().string();
  if (m.id.empty()) m.id = "config";
  m.name = m.id + " (" + type + " config.json)";
  if (type == "gpt2") {
    m.layers = static_cast<int>(r.integer({"n_layer", "num_hidden_layers"}, 1, 10000));
    m.hidden_size = static_cast<int>(r.integer({"n_embd", "hidden_size"}, 1, kDim));
    m.attention_heads = static_cast<int>(r.integer({"n_head", "num_attention_heads"}, 1, 65536));
    m.kv_heads = m.attention_heads;
    m.intermediate_size = static_cast<int>(r.opt_int({"n_inner"}, 1, kDim).value_or(4 * m.hidden_size));
    m.learned_positions = static_cast<int>(r.integer({"n_positions", "max_position_embeddings"}, 1, 1 << 24));
    m.max_context = m.learned_positions;
    m.mlp = MlpKind::plain;
    m.norm = NormKind::layernorm;
    m.qkv_bias = m.o_bias = m.mlp_bias = true;
    m.tied_embeddings = r.opt_bool("tie_word_embeddings").value_or(true);
  } else if (type == "falcon") {
    m.layers = static_cast<int>(r.integer({"num_hidden_layers", "n_layer"}, 1, 10000));
    m.hidden_size = static_cast<int>(r.integer({"hidden_size"}, 1, kDim));
    m.attention_heads = static_cast<int>(r.integer({"num_attention_heads", "n_head"}, 1, 65536));
    const bool new_arch = r.opt_bool("new_decoder_architecture").value_or(false);
    const bool mqa = r.opt_bool("multi_query").value_or(true);
    m.kv_heads = new_arch ? static_cast<int>(r.integer({"num_kv_heads"}, 1, 65536)) : (mqa ? 1 : m.attention_heads);
    m.intermediate_size = static_cast<int>(r.opt_int({"ffn_hidden_size"}, 1, kDim).value_or(4 * m.hidden_size));
    m.mlp = MlpKind::plain;
    m.norm = NormKind::layernorm;
    m.norms_per_layer = new_arch ? 2 : (r.opt_bool("parallel_attn").value_or(true) ? 1 : 2);
    const bool bias = r.opt_bool("bias").value_or(false);
    m.qkv_bias = m.o_bias = m.mlp_bias = bias;
    m.tied_embeddings = r.opt_bool("tie_word_embeddings").value_or(true);
    m.max_context = r.opt_int({"max_position_embeddings"}, 1, 1 << 30).value_or(2048);
  } else {
    m.layers = static_cast<int>(r.integer({"num_hidden_layers"}, 1, 10000));
    m.hidden_size = static_cast<int>(r.integer({"hidden_size"}, 1, kDim));
    m.intermediate_size = static_cast<int>(r.integer({"intermediate_size"}, 1, kDim));
    m.attention_heads = static_cast<int>(r.integer({"num_attention_heads"}, 1, 65536));
    m.kv_heads = static_cast<int>(r.opt_int({"num_key_value_heads"}, 1, 65536).value_or(m.attention_heads));
    m.mlp = MlpKind::gated;
    m.norm = NormKind::rmsnorm;
    m.norms_per_layer = type == "gemma2" ? 4 : 2;
    m.qkv_bias = type == "qwen2" || r.opt_bool("attention_bias").value_or(false);
    m.o_bias = r.opt_bool("attention_bias").value_or(false);
    m.mlp_bias = r.opt_bool("mlp_bias").value_or(false);
    const bool tied_default = type == "gemma" || type == "gemma2" || type == "gemma3_text";
    m.tied_embeddings = r.opt_bool("tie_word_embeddings").value_or(tied_default);
    m.max_context = r.opt_int({"max_position_embeddings"}, 1, std::int64_t{1} << 30).value_or(4096);
    if (type == "mixtral") {
      m.experts = static_cast<int>(r.integer({"num_local_experts"}, 1, 4096));
      m.experts_per_token = static_cast<int>(r.integer({"num_experts_per_tok"}, 1, m.experts));
    }
  }
  m.vocab_size = static_cast<int>(r.integer({"vocab_size"}, 1, 1 << 24));
  read_current_features(r, type, m);
  if (m.attention_heads % m.kv_heads != 0)
    throw InputError(locate_key(text, path, "num_key_value_heads"), "num_key_value_heads", "must divide num_attention_heads");
  m.head_dim = static_cast<int>(r.opt_int({"head_dim"}, 1, 65536).value_or(m.hidden_size / m.attention_heads));
  // MLA's query/key head is the no-position part plus the rotary part (DeepSeek: 128 + 64).
  if (m.mla()) m.head_dim = m.qk_nope_head_dim + m.qk_rope_head_dim;
  if (m.head_dim <= 0) throw InputError({path, 1, 1}, "hidden_size", "smaller than num_attention_heads");
  return m;
}

}  // namespace

namespace {

// The values transformers' Gemma3TextConfig gives the keys a Gemma 3 config.json leaves out (the
// 4B-27B text_config names only what differs). The layer count and widths have no default here:
// Gemma3TextConfig's (26 x 2304) match no released model, so a config without them is refused.
json with_gemma3_text_defaults(const json& config) {
  json merged = {{"num_attention_heads", 8},   {"num_key_value_heads", 4},          {"head_dim", 256},
                 {"vocab_size", 262208},       {"max_position_embeddings", 131072}, {"sliding_window", 4096},
                 {"tie_word_embeddings", true}};
  // sliding_window_pattern 6 is the default only where the config does not list layer_types.
  if (!config.contains("layer_types")) merged["sliding_window_pattern"] = 6;
  for (const auto& [key, value] : config.items()) merged[key] = value;
  return merged;
}

// Checks the shape and counts its parameters.
ModelArch finish(ModelArch m, const std::string& /*text*/, const std::string& path) {
  const std::string problem = arch_problem(m);
  if (!problem.empty()) throw InputError({path, 0, 0}, "", problem);
  m.published_params = static_cast<std::int64_t>(std::llround(count_params(m).total()));
  return m;
}

}  // namespace

ModelArch parse_hf_config(const std::string& text, const std::string& path) {
  const json j = parse_json_strict(text, path, "config.json", 64);
  if (!j.is_object()) throw InputError({path, 1, 1}, "", "expected a JSON object (a Hugging Face config.json)");
  static const std::set<std::string> kSupported = {"llama",  "mistral",     "mixtral",   "qwen2",     "qwen3",      "qwen3_moe",
                                                   "gemma",  "gemma2",      "gemma3",    "gemma3_text", "deepseek_v2", "deepseek_v3",
                                                   "phi3",   "gpt2",        "falcon"};
  const char* kList = "llama, mistral, mixtral, qwen2, qwen3, qwen3_moe, gemma, gemma2, gemma3, gemma3_text, deepseek_v2, deepseek_v3, phi3, gpt2, falcon";
  if (!j.contains("model_type") || !j["model_type"].is_string())
    throw InputError({path, 1, 1}, "model_type", std::string("missing (expected one of: ") + kList + ")");
  const std::string type = j["model_type"];
  if (!kSupported.count(type))
    throw InputError(locate_key(text, path, "model_type"), "model_type",
                     "unsupported model_type \"" + quote_input(type) + "\" (supported: " + kList + ")");
  // Gemma 3's multimodal checkpoints (4B and up) keep the language model under text_config, and
  // leave out the keys that equal Gemma3TextConfig's defaults; the vision tower is not read.
  if (type == "gemma3" && j.contains("text_config") && j["text_config"].is_object()) {
    ModelArch m = parse_arch(with_gemma3_text_defaults(j["text_config"]), text, path, "gemma3_text");
    m.family = type;
    return finish(m, text, path);
  }
  if (type == "gemma3" || type == "gemma3_text") {
    ModelArch m = parse_arch(with_gemma3_text_defaults(j), text, path, "gemma3_text");
    m.family = type;
    return finish(m, text, path);
  }
  ModelArch m = parse_arch(j, text, path, type);
  m.family = type;
  return finish(m, text, path);
}

ModelArch read_hf_config(const std::string& path) { return parse_hf_config(read_file(path, 16u << 20), path); }

}  // namespace gpuplan::io
