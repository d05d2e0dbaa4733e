#include "io/hf_config.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include "gpuplan/error.hpp"
#include "io/files.hpp"

namespace gpuplan::io {
namespace {

using nlohmann::json;

// nlohmann reports byte offsets; turn one into a line and column for the message.
SourceLocation locate(const std::string& text, const std::string& path, std::size_t offset) {
  SourceLocation w{path, 1, 1};
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') { ++w.line; w.column = 1; } else { ++w.column; }
  }
  return w;
}
SourceLocation locate_key(const std::string& text, const std::string& path, const std::string& key) {
  const auto pos = text.find("\"" + key + "\"");
  return pos == std::string::npos ? SourceLocation{path, 1, 1} : locate(text, path, pos);
}

void check_depth(const std::string& text, const std::string& path, int limit) {
  int depth = 0;
  bool in_str = false, esc = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_str) {
      if (esc) esc = false;
      else if (c == '\\') esc = true;
      else if (c == '"') in_str = false;
      continue;
    }
    if (c == '"') in_str = true;
    else if (c == '{' || c == '[') {
      if (++depth > limit) throw InputError(locate(text, path, i), "", "JSON nested deeper than " + std::to_string(limit) + " levels");
    } else if (c == '}' || c == ']') --depth;
  }
}

json parse_json(const std::string& text, const std::string& path, int depth_limit) {
  check_depth(text, path, depth_limit);
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    throw InputError(locate(text, path, e.byte > 0 ? e.byte - 1 : 0), "", std::string("invalid JSON: ") + e.what());
  } catch (const json::exception& e) {
    // e.g. out_of_range for a number such as 1e400 (found by fuzz_hf_config)
    throw InputError({path, 0, 0}, "", std::string("invalid JSON: ") + e.what());
  }
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
      throw InputError(locate_key(text, path, key), key, "expected a whole number, got " + v.dump());
    const double d = v.get<double>();
    if (d < static_cast<double>(min_v) || d > static_cast<double>(max_v))
      throw InputError(locate_key(text, path, key), key,
                       "expected " + std::to_string(min_v) + " to " + std::to_string(max_v) + ", got " + v.dump());
    return static_cast<std::int64_t>(d);
  }
  std::optional<bool> opt_bool(const char* key) const {
    const json* v = find({key});
    if (!v) return std::nullopt;
    if (!v->is_boolean()) throw InputError(locate_key(text, path, key), key, "expected true or false, got " + v->dump());
    return v->get<bool>();
  }
};

}  // namespace

ModelArch parse_hf_config(const std::string& text, const std::string& path) {
  const json j = parse_json(text, path, 64);
  if (!j.is_object()) throw InputError({path, 1, 1}, "", "expected a JSON object (a Hugging Face config.json)");
  static const std::set<std::string> kSupported = {"llama", "mistral", "mixtral", "qwen2", "gemma", "gemma2", "phi3", "gpt2", "falcon"};
  if (!j.contains("model_type") || !j["model_type"].is_string())
    throw InputError({path, 1, 1}, "model_type", "missing (expected one of: llama, mistral, mixtral, qwen2, gemma, gemma2, phi3, gpt2, falcon)");
  const std::string type = j["model_type"];
  if (!kSupported.count(type))
    throw InputError(locate_key(text, path, "model_type"), "model_type",
                     "unsupported model_type \"" + type + "\" (supported: llama, mistral, mixtral, qwen2, gemma, gemma2, phi3, gpt2, falcon)");
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
  m.published_params = static_cast<std::int64_t>(std::llround(count_params(m).total()));
  return m;
}

ModelArch read_hf_config(const std::string& path) { return parse_hf_config(read_file(path, 16u << 20), path); }

namespace {

double dtype_bytes(const std::string& d) {
  static const std::map<std::string, double> kSizes = {
      {"F64", 8}, {"F32", 4}, {"F16", 2}, {"BF16", 2}, {"I64", 8}, {"I32", 4}, {"I16", 2}, {"I8", 1}, {"U8", 1},
      {"U16", 2}, {"U32", 4}, {"U64", 8}, {"BOOL", 1}, {"F8_E4M3", 1}, {"F8_E5M2", 1}, {"F8_E8M0", 1}, {"F4", 0.5}};
  auto it = kSizes.find(d);
  return it == kSizes.end() ? 0 : it->second;
}

}  // namespace

WeightCount parse_safetensors(const std::string& bytes, std::uint64_t file_size, const std::string& path) {
  if (bytes.size() < 8) throw InputError({path, 0, 0}, "", "truncated safetensors file: shorter than its 8-byte header length");
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(bytes[static_cast<std::size_t>(i)]);
  if (n > kMaxSafetensorsHeader)
    throw InputError({path, 0, 0}, "", "safetensors header claims " + std::to_string(n) + " bytes, over the 100 MB limit");
  if (n > file_size - 8 || n + 8 > bytes.size())
    throw InputError({path, 0, 0}, "", "truncated or corrupt safetensors file: header of " + std::to_string(n) +
                                           " bytes runs past the end of the file");
  const std::string header = bytes.substr(8, static_cast<std::size_t>(n));
  json j;
  try {
    check_depth(header, path, 16);
    j = json::parse(header);
  } catch (const json::exception& e) {
    throw InputError({path, 0, 0}, "", std::string("corrupt safetensors header: ") + e.what());
  } catch (const InputError& e) {
    throw InputError({path, 0, 0}, "", "corrupt safetensors header: " + e.problem());
  }
  if (!j.is_object()) throw InputError({path, 0, 0}, "", "corrupt safetensors header: expected a JSON object");
  const std::uint64_t data_size = file_size - 8 - n;
  WeightCount out;
  out.files = 1;
  for (const auto& [name, t] : j.items()) {
    if (name == "__metadata__") continue;
    if (!t.is_object() || !t.contains("dtype") || !t["dtype"].is_string() || !t.contains("shape") ||
        !t["shape"].is_array() || !t.contains("data_offsets") || !t["data_offsets"].is_array() || t["data_offsets"].size() != 2)
      throw InputError({path, 0, 0}, name, "corrupt safetensors header: tensor needs dtype, shape and data_offsets");
    const std::string dtype = t["dtype"];
    const double size = dtype_bytes(dtype);
    if (size == 0) throw InputError({path, 0, 0}, name + ".dtype", "unknown safetensors dtype \"" + dtype + "\"");
    double elems = 1;
    for (const auto& d : t["shape"]) {
      if (!d.is_number_unsigned()) throw InputError({path, 0, 0}, name + ".shape", "expected non-negative integers");
      elems *= d.get<double>();
    }
    if (elems > 1e15) throw InputError({path, 0, 0}, name + ".shape", "tensor is implausibly large");
    const auto& off = t["data_offsets"];
    if (!off[0].is_number_unsigned() || !off[1].is_number_unsigned())
      throw InputError({path, 0, 0}, name + ".data_offsets", "expected two non-negative integers");
    const std::uint64_t b = off[0], e = off[1];
    if (e < b || e > data_size)
      throw InputError({path, 0, 0}, name + ".data_offsets", "points past the end of the file (truncated download?)");
    if (static_cast<double>(e - b) != elems * size)
      throw InputError({path, 0, 0}, name, "header lies: shape and dtype need " + std::to_string(static_cast<std::uint64_t>(elems * size)) +
                                               " bytes, data_offsets span " + std::to_string(e - b));
    out.total += elems;
    out.by_dtype[dtype] += elems;
    ++out.tensors;
  }
  return out;
}

WeightCount read_safetensors(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  require_regular_file(path);  // names a FIFO or a device, which would block or never end
  if (path.size() >= 5 && path.substr(path.size() - 5) == ".json") {
    const std::string text = read_file(path, 64u << 20);
    const json j = parse_json(text, path, 16);
    if (!j.is_object() || !j.contains("weight_map") || !j["weight_map"].is_object())
      throw InputError({path, 1, 1}, "weight_map", "missing: expected a model.safetensors.index.json");
    std::set<std::string> shards;
    for (const auto& [k, v] : j["weight_map"].items()) {
      if (!v.is_string()) throw InputError(locate_key(text, path, k), "weight_map." + k, "expected a shard file name");
      const std::string s = v;
      if (s.find("..") != std::string::npos || (!s.empty() && s[0] == '/'))
        throw InputError(locate_key(text, path, k), "weight_map." + k, "shard path must stay beside the index");
      shards.insert(s);
    }
    WeightCount total;
    for (const auto& s : shards) {
      const WeightCount c = read_safetensors((fs::path(path).parent_path() / s).string());
      total.total += c.total;
      for (const auto& [d, n] : c.by_dtype) total.by_dtype[d] += n;
      total.files += c.files;
      total.tensors += c.tensors;
    }
    return total;
  }
  const std::uint64_t size = fs::file_size(path, ec);
  std::ifstream in(path, std::ios::binary);
  std::string head(8, '\0');
  in.read(head.data(), 8);
  head.resize(static_cast<std::size_t>(in.gcount()));
  if (head.size() == 8) {
    std::uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(head[static_cast<std::size_t>(i)]);
    if (n <= kMaxSafetensorsHeader && n <= size - 8) {
      std::string rest(static_cast<std::size_t>(n), '\0');
      in.read(rest.data(), static_cast<std::streamsize>(n));
      rest.resize(static_cast<std::size_t>(in.gcount()));
      head += rest;
    }
  }
  return parse_safetensors(head, size, path);
}

}  // namespace gpuplan::io
