#include "io/hf_config.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include "gpuplan/error.hpp"
#include "io/files.hpp"
#include "io/input_text.hpp"
#include "io/json_text.hpp"

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

ModelArch parse_hf_config(const std::string& text, const std::string& path) {
  const json j = parse_json_strict(text, path, "config.json", 64);
  if (!j.is_object()) throw InputError({path, 1, 1}, "", "expected a JSON object (a Hugging Face config.json)");
  static const std::set<std::string> kSupported = {"llama", "mistral", "mixtral", "qwen2", "gemma", "gemma2", "phi3", "gpt2", "falcon"};
  if (!j.contains("model_type") || !j["model_type"].is_string())
    throw InputError({path, 1, 1}, "model_type", "missing (expected one of: llama, mistral, mixtral, qwen2, gemma, gemma2, phi3, gpt2, falcon)");
  const std::string type = j["model_type"];
  if (!kSupported.count(type))
    throw InputError(locate_key(text, path, "model_type"), "model_type",
                     "unsupported model_type \"" + quote_input(type) + "\" (supported: llama, mistral, mixtral, qwen2, gemma, gemma2, phi3, gpt2, falcon)");
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
    const bool tied_default = type == "gemma" || type == "gemma2";
    m.tied_embeddings = r.opt_bool("tie_word_embeddings").value_or(tied_default);
    m.max_context = r.opt_int({"max_position_embeddings"}, 1, std::int64_t{1} << 30).value_or(4096);
    if (type == "mixtral") {
      m.experts = static_cast<int>(r.integer({"num_local_experts"}, 1, 4096));
      m.experts_per_token = static_cast<int>(r.integer({"num_experts_per_tok"}, 1, m.experts));
    }
  }
  m.vocab_size = static_cast<int>(r.integer({"vocab_size"}, 1, 1 << 24));
  if (m.attention_heads % m.kv_heads != 0)
    throw InputError(locate_key(text, path, "num_key_value_heads"), "num_key_value_heads", "must divide num_attention_heads");
  m.head_dim = static_cast<int>(r.opt_int({"head_dim"}, 1, 65536).value_or(m.hidden_size / m.attention_heads));
  if (m.head_dim <= 0) throw InputError({path, 1, 1}, "hidden_size", "smaller than num_attention_heads");
  const std::string problem = arch_problem(m);
  if (!problem.empty()) throw InputError({path, 0, 0}, "", problem);
  m.published_params = static_cast<std::int64_t>(std::llround(count_params(m).total()));
  return m;
}

ModelArch read_hf_config(const std::string& path) { return parse_hf_config(read_file(path, 16u << 20), path); }

}  // namespace gpuplan::io
