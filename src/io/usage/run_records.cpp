#include "io/usage/run_records.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "gpuplan/name_match.hpp"
#include "io/text/files.hpp"
#include "io/usage/ledger.hpp"
#include "io/usage/ledger_record_check.hpp"

namespace gpuplan::io {

namespace {

using nlohmann::json;

const std::vector<std::string>& known_keys() {
  static const std::vector<std::string> k = {
      "schema", "id", "source", "note", "date", "gpu", "gpu_count", "torch_version", "cuda_version", "model",
      "model_config", "model_config_path", "model_arch", "method", "precision", "micro_batch", "seq_len",
      "checkpointing", "attention", "world_size", "grad_accum", "settings", "steps", "warmup_steps",
      "peak_allocated_bytes", "peak_reserved_bytes", "device_bytes", "tokens_per_second", "device", "host",
      "family", "metrics", "utilization", "samples", "requests", "restore_seconds"};
  return k;
}

struct Reader {
  const json& j;
  SourceLocation at;
  std::vector<InputError>& errors;

  const json* get(const char* key) const {
    const auto it = j.find(key);
    return it == j.end() || it->is_null() ? nullptr : &*it;
  }
  std::string str(const char* key) const {
    const json* v = get(key);
    if (!v) return "";
    if (!v->is_string()) errors.emplace_back(at, key, "expected a string");
    return v->is_string() ? v->get<std::string>() : "";
  }
  std::optional<double> number(const char* key, bool positive, double max = 1e300) const {
    const json* v = get(key);
    if (!v) return std::nullopt;
    if (!v->is_number() || !std::isfinite(v->get<double>()) || v->get<double>() < 0 || (positive && v->get<double>() == 0)) {
      errors.emplace_back(at, key, positive ? "expected a positive number or null" : "expected a non-negative number or null");
      return std::nullopt;
    }
    if (v->get<double>() > max) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "expected at most %g, a physical ceiling", max);
      errors.emplace_back(at, key, buf);
      return std::nullopt;
    }
    return v->get<double>();
  }
  int count(const char* key, int fallback) const {
    const json* v = get(key);
    if (!v) return fallback;
    if (!v->is_number_integer() || v->get<std::int64_t>() < 0 || v->get<std::int64_t>() > (1 << 24)) {
      errors.emplace_back(at, key, "expected a whole number from 0 to 16777216");
      return fallback;
    }
    return static_cast<int>(v->get<std::int64_t>());
  }
};

std::string flag_of(std::string key) {
  std::replace(key.begin(), key.end(), '_', '-');
  return "--" + key;
}

// A JSON value as the flag text estimate would read: true switches on, false leaves out.
std::optional<std::string> flag_value(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<std::int64_t>());
  if (v.is_number()) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", v.get<double>());
    return std::string(buf);
  }
  return std::nullopt;
}

void add_setting(RunRecord& r, const Reader& rd, const std::string& key, const json& v) {
  if (v.is_null()) return;
  if (v.is_boolean()) {
    if (v.get<bool>()) r.settings.emplace_back(flag_of(key), "");
    return;
  }
  auto text = flag_value(v);
  if (!text) {
    rd.errors.emplace_back(rd.at, key, "expected a string, number or true/false");
    return;
  }
  r.settings.emplace_back(flag_of(key), *text);
}

// The probe's names for the settings estimate spells differently.
void read_top_level_settings(RunRecord& r, const Reader& rd) {
  for (const char* key : {"method", "precision", "micro_batch", "seq_len", "world_size"})
    if (const json* v = rd.get(key)) add_setting(r, rd, key == std::string("world_size") ? "gpus" : key, *v);
  if (const json* v = rd.get("checkpointing")) {
    if (v->is_boolean()) r.settings.emplace_back("--checkpointing", v->get<bool>() ? "full" : "none");
    else add_setting(r, rd, "checkpointing", *v);
  }
  if (const json* v = rd.get("attention")) {
    std::string a = v->is_string() ? v->get<std::string>() : "";
    if (a == "flash_attention_2" || a == "flash_attention_3") a = "flash";  // Hugging Face's attn_implementation names
    if (!v->is_string()) rd.errors.emplace_back(rd.at, "attention", "expected a string");
    else r.settings.emplace_back("--attention", a);
  }
  if (const json* s = rd.get("settings")) {
    if (!s->is_object()) rd.errors.emplace_back(rd.at, "settings", "expected an object of estimate flags");
    else
      for (const auto& [k, v] : s->items()) add_setting(r, rd, k, v);
  }
}

int json_int(const json& a, const char* key, std::vector<InputError>& errors, const SourceLocation& at, int lo) {
  const auto it = a.find(key);
  if (it == a.end() || !it->is_number_integer() || it->get<std::int64_t>() < lo || it->get<std::int64_t>() > (1 << 30)) {
    errors.emplace_back(at, std::string("model_arch.") + key, "expected a whole number of at least " + std::to_string(lo));
    return lo;
  }
  return static_cast<int>(it->get<std::int64_t>());
}

ModelArch read_model_arch(const json& a, const SourceLocation& at, std::vector<InputError>& errors) {
  ModelArch m;
  static const std::vector<std::string> keys = {"id", "layers", "hidden_size", "intermediate_size", "attention_heads",
                                                "kv_heads", "head_dim", "vocab_size", "tied_embeddings", "mlp", "norm",
                                                "qkv_bias", "o_bias", "mlp_bias", "learned_positions", "causal_lm",
                                                "max_context"};
  for (const auto& [k, v] : a.items())
    if (std::find(keys.begin(), keys.end(), k) == keys.end()) errors.emplace_back(at, "model_arch." + k, "unknown key");
  m.id = a.value("id", std::string("custom"));
  m.layers = json_int(a, "layers", errors, at, 1);
  m.hidden_size = json_int(a, "hidden_size", errors, at, 1);
  m.intermediate_size = json_int(a, "intermediate_size", errors, at, 1);
  m.attention_heads = json_int(a, "attention_heads", errors, at, 1);
  m.kv_heads = a.contains("kv_heads") ? json_int(a, "kv_heads", errors, at, 1) : m.attention_heads;
  m.head_dim = a.contains("head_dim") ? json_int(a, "head_dim", errors, at, 1) : m.hidden_size / std::max(1, m.attention_heads);
  m.vocab_size = json_int(a, "vocab_size", errors, at, 1);
  m.learned_positions = a.contains("learned_positions") ? json_int(a, "learned_positions", errors, at, 0) : 0;
  m.max_context = a.contains("max_context") ? json_int(a, "max_context", errors, at, 1) : 0;
  auto flag = [&](const char* key, bool fallback) {
    const auto it = a.find(key);
    if (it == a.end()) return fallback;
    if (!it->is_boolean()) errors.emplace_back(at, std::string("model_arch.") + key, "expected true or false");
    return it->is_boolean() ? it->get<bool>() : fallback;
  };
  m.tied_embeddings = flag("tied_embeddings", false);
  m.qkv_bias = flag("qkv_bias", false);
  m.o_bias = flag("o_bias", false);
  m.mlp_bias = flag("mlp_bias", false);
  m.causal_lm = flag("causal_lm", true);
  const std::string mlp = a.value("mlp", std::string("gated")), norm = a.value("norm", std::string("rmsnorm"));
  if (mlp != "gated" && mlp != "plain") errors.emplace_back(at, "model_arch.mlp", "expected gated or plain");
  if (norm != "rmsnorm" && norm != "layernorm") errors.emplace_back(at, "model_arch.norm", "expected rmsnorm or layernorm");
  m.mlp = mlp == "plain" ? MlpKind::plain : MlpKind::gated;
  m.norm = norm == "layernorm" ? NormKind::layernorm : NormKind::rmsnorm;
  if (m.kv_heads > 0 && m.attention_heads % m.kv_heads != 0)
    errors.emplace_back(at, "model_arch.kv_heads", "must divide attention_heads");
  return m;
}

void read_model(RunRecord& r, const Reader& rd) {
  r.model = rd.str("model");
  r.model_config_path = rd.str("model_config_path");
  if (const json* c = rd.get("model_config")) {
    if (!c->is_object()) rd.errors.emplace_back(rd.at, "model_config", "expected a config.json object");
    else r.model_config_json = c->dump();
  }
  if (const json* a = rd.get("model_arch")) {
    if (!a->is_object()) rd.errors.emplace_back(rd.at, "model_arch", "expected an object");
    else r.model_arch = read_model_arch(*a, rd.at, rd.errors);
  }
  if (r.model.empty() && r.model_config_path.empty() && r.model_config_json.empty() && !r.model_arch)
    rd.errors.emplace_back(rd.at, "model", "missing: give model, model_config, model_config_path or model_arch");
}

RunRecord parse_record(const json& j, const SourceLocation& at, std::vector<InputError>& errors) {
  RunRecord r;
  r.where = at;
  if (!j.is_object()) {
    errors.emplace_back(at, "", "expected a JSON object per line");
    return r;
  }
  for (const auto& [k, v] : j.items())
    if (std::find(known_keys().begin(), known_keys().end(), k) == known_keys().end()) {
      const std::string near = closest_name(k, known_keys());
      errors.emplace_back(at, k, "unknown field" + (near.empty() ? std::string() : " (did you mean '" + near + "'?)"));
    }
  const Reader rd{j, at, errors};
  const std::string schema = rd.str("schema");
  if (!schema.empty() && schema != "gpuplan-run/1") errors.emplace_back(at, "schema", "expected \"gpuplan-run/1\", got \"" + schema + "\"");
  r.id = rd.str("id");
  if (r.id.empty()) r.id = at.path + ":" + std::to_string(at.line);
  r.gpu = rd.str("gpu");
  r.torch_version = rd.str("torch_version");
  r.cuda_version = rd.str("cuda_version");
  r.source = rd.str("source");
  r.note = rd.str("note");
  read_model(r, rd);
  read_top_level_settings(r, rd);
  r.grad_accum = std::max(1, rd.count("grad_accum", 1));
  r.steps = rd.count("steps", 0);
  r.warmup_steps = rd.count("warmup_steps", 0);
  // Physical ceilings: no GPU holds 100 TB, none runs a billion tokens a second.
  constexpr double kMaxBytes = 1e14, kMaxTokensPerSecond = 1e9;
  r.allocated_bytes = rd.number("peak_allocated_bytes", true, kMaxBytes);
  r.reserved_bytes = rd.number("peak_reserved_bytes", true, kMaxBytes);
  r.device_bytes = rd.number("device_bytes", true, kMaxBytes);
  r.tokens_per_second = rd.number("tokens_per_second", true, kMaxTokensPerSecond);
  if (r.allocated_bytes && r.reserved_bytes && *r.reserved_bytes < *r.allocated_bytes)
    errors.emplace_back(at, "peak_reserved_bytes", "is below peak_allocated_bytes (the allocator reserves at least what it allocates)");
  const std::size_t before = errors.size();
  read_outcomes(j, r.outcomes, at, errors);
  if (errors.size() == before) check_ledger_outcomes(r.outcomes, at, errors);
  if (!r.allocated_bytes && !r.reserved_bytes && !r.device_bytes && !r.tokens_per_second)
    errors.emplace_back(at, "tokens_per_second", "a record measures nothing: give tokens_per_second or a memory peak");
  return r;
}

}  // namespace

std::vector<RunRecord> parse_run_records(const std::string& text, const std::string& path) {
  std::vector<RunRecord> out;
  std::vector<InputError> errors;
  int line_no = 0;
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    ++line_no;
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    const SourceLocation at{path, line_no, static_cast<int>(first) + 1};
    const json j = json::parse(line, nullptr, false);
    if (j.is_discarded()) {
      errors.emplace_back(at, "", "not valid JSON (one JSON object per line)");
      continue;
    }
    out.push_back(parse_record(j, at, errors));
  }
  if (out.empty() && errors.empty()) errors.emplace_back(SourceLocation{path, 1, 1}, "", "no run records in the file");
  if (!errors.empty()) throw InputErrors(std::move(errors));
  return out;
}

std::vector<RunRecord> read_run_records(const std::string& path) { return parse_run_records(read_file(path), path); }

}  // namespace gpuplan::io
