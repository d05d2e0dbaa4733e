#include "io/catalogs/yaml_catalog.hpp"
#include "io/text/yaml_tree.hpp"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <map>
#include <set>

#include "gpuplan/name_match.hpp"
#include "gpuplan/units.hpp"
#include "io/text/files.hpp"
#include "io/text/input_text.hpp"

namespace gpuplan::io {
namespace {

// Thrown once a file has produced kMaxErrors problems: a broken file (or 1,000 aliases of a
// 1,000-key map) must not print a million lines.
struct TooManyErrors {};

// Physical lower bounds. A value below these is a typo or a unit slip, and near-zero rates turn
// divisions into infinities that then rank as the best offer. Each floor is far below any real
// part: the smallest GPU memory sold is 2 GiB, the slowest PCIe link 0.25 GB/s, 1 GFLOP/s is a
// phone CPU, and no currency trades at 10 million per unit of the base (or 1/10,000 of one).
constexpr struct {
  double memory_gib = 0.25;
  double bandwidth_gbps = 0.1;    // GB/s or Gb/s
  double tflops = 0.001;
  double watts = 1;
  double list_price = 1;          // USD
  double hourly_price = 1e-4;     // sheet currency per GPU-hour
  double fx_rate = 1e-4;          // units of a currency per unit of the base
} kMin{};
inline constexpr std::size_t kMaxErrors = 50;

// Collects problems instead of stopping at the first, so `catalog validate` reports them all.
class Reader {
 public:
  explicit Reader(std::string path) : path_(std::move(path)) {}

  SourceLocation at(const TreeNode& n) const {
    const YAML::Mark m = n.Mark();
    return {path_, m.line >= 0 ? m.line + 1 : 0, m.column >= 0 ? m.column + 1 : 0};
  }
  void error(const TreeNode& n, const std::string& field, const std::string& problem) {
    errors.emplace_back(at(n), quote_input(field), problem);
    if (errors.size() >= kMaxErrors) throw TooManyErrors{};
  }

  // Unknown keys are errors: a typo must not pass silently.
  void check_keys(const TreeNode& map, const std::string& prefix, const std::vector<std::string>& allowed) {
    std::set<std::string> seen;
    for (const auto& kv : map) {
      const std::string key = kv.first.Scalar();
      // yaml-cpp keeps the first of two equal keys; a repeated key is almost always an edit
      // that was meant to replace the first, so refuse it rather than guess.
      if (!seen.insert(key).second) {
        error(kv.first, prefix + key, "duplicate key in this mapping");
        continue;
      }
      bool ok = false;
      for (const auto& a : allowed) ok = ok || a == key;
      if (ok) continue;
      std::string msg = "unknown key";
      const std::string near = closest_name(key, allowed);
      if (!near.empty()) msg += " (did you mean '" + near + "'?)";
      else msg += " (expected one of: " + join(allowed) + ")";
      error(kv.first, prefix + key, msg);
    }
  }

  bool require_map(const TreeNode& n, const std::string& field) {
    if (n.IsMap()) return true;
    error(n, field, "expected a mapping of keys to values");
    return false;
  }

  std::optional<std::string> str(const TreeNode& map, const std::string& key, const std::string& field, bool required) {
    const TreeNode n = map[key];
    if (!n) {
      if (required) error(map, field + key, "missing required key");
      return std::nullopt;
    }
    if (!n.IsScalar()) {
      error(n, field + key, "expected a string");
      return std::nullopt;
    }
    if (n.Scalar().empty()) {
      error(n, field + key, "expected a non-empty string");
      return std::nullopt;
    }
    return n.Scalar();
  }

  std::optional<double> num(const TreeNode& map, const std::string& key, const std::string& field, bool required,
                            double min_value, bool strictly_above = false, double max_value = 1e18) {
    const TreeNode n = map[key];
    if (!n) {
      if (required) error(map, field + key, "missing required key");
      return std::nullopt;
    }
    if (n.IsNull()) {
      if (required) error(n, field + key, "expected a number, got null");
      return std::nullopt;
    }
    double v = 0;
    if (!n.IsScalar() || !parse_number(n.Scalar(), &v)) {
      error(n, field + key, "expected a number, got \"" + (n.IsScalar() ? quote_input(n.Scalar()) : std::string("<non-scalar>")) + "\"");
      return std::nullopt;
    }
    if (strictly_above ? !(v > min_value) : !(v >= min_value)) {
      error(n, field + key, std::string("expected a number ") + (strictly_above ? "greater than " : "at least ") +
                                fmt_num(min_value) + ", got " + quote_input(n.Scalar()));
      return std::nullopt;
    }
    if (v > max_value) {
      error(n, field + key, "value " + quote_input(n.Scalar()) + " is beyond the limit " + fmt_num(max_value));
      return std::nullopt;
    }
    return v;
  }

  std::optional<std::int64_t> integer(const TreeNode& map, const std::string& key, const std::string& field,
                                      bool required, std::int64_t min_value, std::int64_t max_value) {
    auto v = num(map, key, field, required, static_cast<double>(min_value), false, static_cast<double>(max_value));
    if (!v) return std::nullopt;
    if (*v != std::floor(*v)) {
      error(map[key], field + key, "expected a whole number, got " + quote_input(map[key].Scalar()));
      return std::nullopt;
    }
    return static_cast<std::int64_t>(*v);
  }

  std::optional<bool> boolean(const TreeNode& map, const std::string& key, const std::string& field, bool required) {
    const TreeNode n = map[key];
    if (!n) {
      if (required) error(map, field + key, "missing required key");
      return std::nullopt;
    }
    const std::string s = n.IsScalar() ? n.Scalar() : "";
    if (s == "true") return true;
    if (s == "false") return false;
    error(n, field + key, "expected true or false, got \"" + quote_input(s) + "\"");
    return std::nullopt;
  }

  std::vector<std::string> str_list(const TreeNode& map, const std::string& key, const std::string& field) {
    std::vector<std::string> out;
    const TreeNode n = map[key];
    if (!n) return out;
    if (!n.IsSequence()) {
      error(n, field + key, "expected a list of strings");
      return out;
    }
    for (const auto& item : n) {
      if (!item.IsScalar() || item.Scalar().empty()) error(item, field + key, "expected a non-empty string");
      else out.push_back(item.Scalar());
    }
    return out;
  }

  template <class E>
  std::optional<E> choice(const TreeNode& map, const std::string& key, const std::string& field, bool required,
                          const std::vector<std::pair<std::string, E>>& options) {
    auto s = str(map, key, field, required);
    if (!s) return std::nullopt;
    for (const auto& [name, v] : options)
      if (*s == name) return v;
    std::vector<std::string> names;
    for (const auto& o : options) names.push_back(o.first);
    error(map[key], field + key, "unknown value \"" + quote_input(*s) + "\" (expected one of: " + join(names) + ")");
    return std::nullopt;
  }

  void check_id(const TreeNode& map, const std::string& field, const std::string& id) {
    if (!is_catalog_id(id))
      error(map["id"], field + "id", "ids are lowercase letters, digits, '.' and '-' (got \"" + quote_input(id) + "\")");
  }

  static bool parse_number(const std::string& s, double* out) {
    if (s.empty()) return false;
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size() || errno == ERANGE || !std::isfinite(v)) return false;
    // strtod accepts hex and "inf"/"nan": data files must use plain decimal numbers.
    for (char c : s)
      if (std::isalpha(static_cast<unsigned char>(c)) && c != 'e' && c != 'E') return false;
    *out = v;
    return true;
  }
  static std::string fmt_num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
  }
  static std::string join(const std::vector<std::string>& v) {
    std::string out;
    for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
    return out;
  }

  // Prices that may be zero (free egress) but not a vanishing fraction of a cent.
  std::optional<double> price_or_free(const TreeNode& map, const std::string& key, const std::string& field, double max) {
    auto v = num(map, key, field, false, 0, false, max);
    if (v && *v != 0 && *v < kMin.hourly_price) {
      error(map[key], field + key, "expected 0 or at least " + fmt_num(kMin.hourly_price) + ", got " + quote_input(map[key].Scalar()));
      return std::nullopt;
    }
    return v;
  }

  const std::string& path() const { return path_; }
  std::vector<InputError> errors;

 private:
  std::string path_;
};

void parse_gpus(Reader& r, const TreeNode& list, Catalog& out) {
  if (!list.IsSequence()) {
    r.error(list, "gpus", "expected a list of GPUs");
    return;
  }
  std::set<std::string> seen;
  int idx = 0;
  for (const auto& n : list) {
    const std::string f = "gpus[" + std::to_string(idx++) + "].";
    if (!r.require_map(n, f.substr(0, f.size() - 1))) continue;
    r.check_keys(n, f, {"id", "name", "vendor", "architecture", "form", "aliases", "memory_gib", "usable_memory_gib", "memory_bandwidth_gbps",
                        "tflops", "tdp_watts", "interconnect", "ecc", "price_usd"});
    Gpu g;
    g.where = r.at(n);
    g.id = r.str(n, "id", f, true).value_or("");
    if (!g.id.empty()) {
      r.check_id(n, f, g.id);
      if (!seen.insert(g.id).second) r.error(n["id"], f + "id", "duplicate GPU id '" + quote_input(g.id) + "' in this file");
    }
    g.name = r.str(n, "name", f, true).value_or("");
    g.vendor = r.choice<std::string>(n, "vendor", f, true, {{"nvidia", "nvidia"}, {"amd", "amd"}, {"intel", "intel"}}).value_or("");
    g.architecture = r.str(n, "architecture", f, true).value_or("");
    g.form = r.choice<GpuForm>(n, "form", f, true, {{"consumer", GpuForm::consumer}, {"workstation", GpuForm::workstation},
                                                   {"datacentre", GpuForm::datacentre}}).value_or(GpuForm::datacentre);
    g.aliases = r.str_list(n, "aliases", f);
    if (auto v = r.num(n, "memory_gib", f, true, kMin.memory_gib, false, 1e6)) g.memory_bytes = static_cast<std::uint64_t>(std::llround(*v * kGiB));
    if (auto v = r.num(n, "usable_memory_gib", f, false, kMin.memory_gib, false, 1e6)) {
      g.usable_memory_bytes = static_cast<std::uint64_t>(std::llround(*v * kGiB));
      if (g.memory_bytes > 0 && g.usable_memory_bytes > g.memory_bytes)
        r.error(n["usable_memory_gib"], f + "usable_memory_gib", "larger than memory_gib");
    }
    g.memory_bandwidth_gbps = r.num(n, "memory_bandwidth_gbps", f, true, kMin.bandwidth_gbps, false, 1e6).value_or(0);
    const TreeNode tf = n["tflops"];
    if (!tf) r.error(n, f + "tflops", "missing required key");
    else if (r.require_map(tf, f + "tflops")) {
      std::vector<std::string> keys;
      for (int p = 0; p < kPeakPrecisionCount; ++p) keys.push_back(to_string(static_cast<PeakPrecision>(p)));
      r.check_keys(tf, f + "tflops.", keys);
      for (int p = 0; p < kPeakPrecisionCount; ++p)
        g.dense_tflops[static_cast<std::size_t>(p)] = r.num(tf, keys[static_cast<std::size_t>(p)], f + "tflops.", false, kMin.tflops, false, 1e6).value_or(0);
    }
    g.tdp_watts = r.num(n, "tdp_watts", f, true, kMin.watts, false, 1e5).value_or(0);
    const TreeNode ic = n["interconnect"];
    if (!ic) r.error(n, f + "interconnect", "missing required key");
    else if (r.require_map(ic, f + "interconnect")) {
      r.check_keys(ic, f + "interconnect.", {"kind", "bandwidth_gbps"});
      g.interconnect_kind = r.str(ic, "kind", f + "interconnect.", true).value_or("");
      g.interconnect_gbps = r.num(ic, "bandwidth_gbps", f + "interconnect.", true, kMin.bandwidth_gbps, false, 1e5).value_or(0);
    }
    g.ecc = r.boolean(n, "ecc", f, true).value_or(false);
    g.price_usd = r.num(n, "price_usd", f, false, kMin.list_price, false, 1e8);
    out.gpus.push_back(std::move(g));
  }
}

void parse_models(Reader& r, const TreeNode& list, Catalog& out) {
  if (!list.IsSequence()) {
    r.error(list, "models", "expected a list of models");
    return;
  }
  std::set<std::string> seen;
  int idx = 0;
  for (const auto& n : list) {
    const std::string f = "models[" + std::to_string(idx++) + "].";
    if (!r.require_map(n, f.substr(0, f.size() - 1))) continue;
    r.check_keys(n, f, {"id", "name", "hf_id", "aliases", "family", "layers", "hidden_size", "intermediate_size",
                        "attention_heads", "kv_heads", "head_dim", "vocab_size", "tied_embeddings", "mlp", "norm",
                        "norms_per_layer", "qkv_bias", "o_bias", "mlp_bias", "learned_positions", "experts",
                        "experts_per_token", "max_context", "params", "causal_lm", "qk_norm", "first_dense_layers",
                        "dense_intermediate_size", "shared_experts", "router_bias", "q_lora_rank", "kv_lora_rank",
                        "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim", "sliding_window", "global_every"});
    ModelArch m;
    m.id = r.str(n, "id", f, true).value_or("");
    if (!m.id.empty()) {
      r.check_id(n, f, m.id);
      if (!seen.insert(m.id).second) r.error(n["id"], f + "id", "duplicate model id '" + quote_input(m.id) + "' in this file");
    }
    m.name = r.str(n, "name", f, true).value_or("");
    m.hf_id = r.str(n, "hf_id", f, false).value_or("");
    m.aliases = r.str_list(n, "aliases", f);
    m.family = r.str(n, "family", f, true).value_or("");
    constexpr std::int64_t kDim = 1 << 20;  // no real model has a dimension near a million
    m.layers = static_cast<int>(r.integer(n, "layers", f, true, 1, 10000).value_or(0));
    m.hidden_size = static_cast<int>(r.integer(n, "hidden_size", f, true, 1, kDim).value_or(0));
    m.intermediate_size = static_cast<int>(r.integer(n, "intermediate_size", f, true, 1, kDim).value_or(0));
    m.attention_heads = static_cast<int>(r.integer(n, "attention_heads", f, true, 1, 65536).value_or(0));
    m.kv_heads = static_cast<int>(r.integer(n, "kv_heads", f, true, 1, 65536).value_or(0));
    m.head_dim = static_cast<int>(r.integer(n, "head_dim", f, true, 1, 65536).value_or(0));
    m.vocab_size = static_cast<int>(r.integer(n, "vocab_size", f, true, 1, 1 << 24).value_or(0));
    m.tied_embeddings = r.boolean(n, "tied_embeddings", f, true).value_or(false);
    m.mlp = r.choice<MlpKind>(n, "mlp", f, true, {{"gated", MlpKind::gated}, {"plain", MlpKind::plain}}).value_or(MlpKind::gated);
    m.norm = r.choice<NormKind>(n, "norm", f, true, {{"rmsnorm", NormKind::rmsnorm}, {"layernorm", NormKind::layernorm}}).value_or(NormKind::rmsnorm);
    m.norms_per_layer = static_cast<int>(r.integer(n, "norms_per_layer", f, false, 0, 16).value_or(2));
    m.qkv_bias = r.boolean(n, "qkv_bias", f, false).value_or(false);
    m.o_bias = r.boolean(n, "o_bias", f, false).value_or(false);
    m.mlp_bias = r.boolean(n, "mlp_bias", f, false).value_or(false);
    m.learned_positions = static_cast<int>(r.integer(n, "learned_positions", f, false, 0, 1 << 24).value_or(0));
    m.experts = static_cast<int>(r.integer(n, "experts", f, false, 0, 4096).value_or(0));
    m.experts_per_token = static_cast<int>(r.integer(n, "experts_per_token", f, m.experts > 0, 0, 4096).value_or(0));
    m.max_context = r.integer(n, "max_context", f, true, 1, std::int64_t{1} << 30).value_or(0);
    m.causal_lm = r.boolean(n, "causal_lm", f, false).value_or(true);
    m.published_params = r.integer(n, "params", f, true, 1, std::int64_t{1} << 50).value_or(0);
    // Current-model features (docs/catalog-format.md); each optional, 0/false = absent.
    auto opt_int = [&](const char* key, int hi) { return static_cast<int>(r.integer(n, key, f, false, 0, hi).value_or(0)); };
    m.qk_norm = r.boolean(n, "qk_norm", f, false).value_or(false);
    m.first_dense_layers = opt_int("first_dense_layers", 1 << 16);
    m.dense_intermediate_size = opt_int("dense_intermediate_size", 1 << 24);
    m.shared_experts = opt_int("shared_experts", 4096);
    m.router_bias = r.boolean(n, "router_bias", f, false).value_or(false);
    m.q_lora_rank = opt_int("q_lora_rank", 1 << 20);
    m.kv_lora_rank = opt_int("kv_lora_rank", 1 << 20);
    m.qk_nope_head_dim = opt_int("qk_nope_head_dim", 65536);
    m.qk_rope_head_dim = opt_int("qk_rope_head_dim", 65536);
    m.v_head_dim = opt_int("v_head_dim", 65536);
    m.sliding_window = opt_int("sliding_window", 1 << 30);
    m.global_every = opt_int("global_every", 1 << 16);
    if (m.first_dense_layers > 0 && (m.experts == 0 || m.first_dense_layers >= m.layers))
      r.error(n["first_dense_layers"], f + "first_dense_layers", "needs experts and fewer than layers");
    if (m.kv_lora_rank > 0 && (m.qk_rope_head_dim == 0 || m.v_head_dim == 0 || m.qk_nope_head_dim == 0))
      r.error(n["kv_lora_rank"], f + "kv_lora_rank", "MLA needs qk_nope_head_dim, qk_rope_head_dim and v_head_dim");
    if (m.kv_heads > 0 && m.attention_heads > 0 && m.attention_heads % m.kv_heads != 0)
      r.error(n["kv_heads"], f + "kv_heads", "attention_heads must be a multiple of kv_heads");
    if (m.experts > 0 && (m.experts_per_token < 1 || m.experts_per_token > m.experts))
      r.error(n["experts_per_token"] ? n["experts_per_token"] : TreeNode(n), f + "experts_per_token", "expected 1 to experts");
    if (m.layers > 0 && m.hidden_size > 0 && m.attention_heads > 0 && m.kv_heads > 0 && m.head_dim > 0 &&
        m.intermediate_size > 0 && m.vocab_size > 0) {
      const std::string problem = arch_problem(m);
      if (!problem.empty()) r.error(n, f.substr(0, f.size() - 1), problem);
    }
    if (m.experts == 0 && m.experts_per_token > 0)
      r.error(n["experts_per_token"], f + "experts_per_token", "needs experts (a mixture of experts) of at least this many");
    out.models.push_back(std::move(m));
  }
}

void parse_offers(Reader& r, const TreeNode& list, const std::string& f0, Provider& p, const Catalog& known,
                  const Catalog& local) {
  if (!list.IsSequence() || list.size() == 0) {
    r.error(list, f0 + "offers", "expected a non-empty list of offers");
    return;
  }
  std::set<std::string> seen;
  std::map<std::string, std::pair<bool, std::string>> resolved;  // spelling -> (found, id or message)
  int idx = 0;
  for (const auto& n : list) {
    const std::string f = f0 + "offers[" + std::to_string(idx++) + "].";
    if (!r.require_map(n, f.substr(0, f.size() - 1))) continue;
    r.check_keys(n, f, {"id", "gpu", "gpus", "region", "vcpus", "ram_gib", "on_demand_per_gpu_hour", "spot_per_gpu_hour",
                        "reserved_1y_per_gpu_hour", "reserved_3y_per_gpu_hour", "spot_preemptions_per_hour",
                        "interconnect_gbps", "network_gbps", "spot_low_per_gpu_hour", "spot_high_per_gpu_hour",
                        "spot_zones", "country"});
    Offer o;
    o.where = r.at(n);
    o.provider = p.id;
    o.id = r.str(n, "id", f, true).value_or("");
    if (!o.id.empty()) {
      r.check_id(n, f, o.id);
      if (!seen.insert(o.id).second) r.error(n["id"], f + "id", "duplicate offer id '" + quote_input(o.id) + "' in provider " + quote_input(p.id));
    }
    if (auto g = r.str(n, "gpu", f, true)) {
      // A sheet names few GPUs many times: resolve each spelling once (250k offers).
      auto cached = resolved.find(*g);
      if (cached == resolved.end()) {
        auto hit = local.find_gpu(*g);
        if (!hit.found) hit = known.find_gpu(*g);
        cached = resolved.emplace(*g, hit.found ? std::make_pair(true, hit.found->id)
                                                : std::make_pair(false, lookup_failure("GPU", quote_input(*g), hit))).first;
      }
      if (cached->second.first) o.gpu = cached->second.second;
      else r.error(n["gpu"], f + "gpu", cached->second.second);
    }
    o.gpus = static_cast<int>(r.integer(n, "gpus", f, true, 1, 1024).value_or(1));
    o.region = r.str(n, "region", f, true).value_or("");
    if (auto v = r.integer(n, "vcpus", f, false, 1, 1 << 20)) o.vcpus = static_cast<int>(*v);
    o.ram_gib = r.num(n, "ram_gib", f, false, kMin.memory_gib, false, 1e7);
    const char* keys[kPricingCount] = {"on_demand_per_gpu_hour", "spot_per_gpu_hour", "reserved_1y_per_gpu_hour",
                                       "reserved_3y_per_gpu_hour"};
    bool any = false;
    for (int i = 0; i < kPricingCount; ++i) {
      o.per_gpu_hour[static_cast<std::size_t>(i)] = r.num(n, keys[i], f, false, kMin.hourly_price, false, 1e7);
      any = any || o.per_gpu_hour[static_cast<std::size_t>(i)].has_value();
    }
    if (!any) r.error(n, f + "on_demand_per_gpu_hour", "an offer needs at least one price (on-demand, spot or reserved)");
    o.spot_preemptions_per_hour = r.num(n, "spot_preemptions_per_hour", f, false, 0, false, 1000);
    if (o.spot_preemptions_per_hour && !o.price(Pricing::spot))
      r.error(n["spot_preemptions_per_hour"], f + "spot_preemptions_per_hour", "given, but the offer has no spot price");
    o.interconnect_gbps = r.num(n, "interconnect_gbps", f, false, kMin.bandwidth_gbps, false, 1e6);
    o.network_gbps = r.num(n, "network_gbps", f, false, kMin.bandwidth_gbps, false, 1e6);
    // Spot over the region's zones: spot_per_gpu_hour is the median, these the cheapest and dearest.
    o.spot_low = r.num(n, "spot_low_per_gpu_hour", f, false, kMin.hourly_price, false, 1e7);
    o.spot_high = r.num(n, "spot_high_per_gpu_hour", f, false, kMin.hourly_price, false, 1e7);
    o.spot_zones = static_cast<int>(r.integer(n, "spot_zones", f, false, 1, 1000).value_or(0));
    if ((o.spot_low || o.spot_high) && o.price(Pricing::spot) &&
        !(o.spot_low.value_or(0) <= *o.price(Pricing::spot) && *o.price(Pricing::spot) <= o.spot_high.value_or(1e300)))
      r.error(n["spot_per_gpu_hour"], f + "spot_per_gpu_hour", "must lie between spot_low_per_gpu_hour and spot_high_per_gpu_hour");
    o.country = r.str(n, "country", f, false).value_or(p.country);
    if (!o.country.empty() && country_code_of(o.country) != o.country)
      r.error(n["country"] ? n["country"] : TreeNode(n), f + "country", "expected an ISO 3166 two-letter code such as IN, got \"" + quote_input(o.country) + "\"");
    p.offers.push_back(std::move(o));
  }
}

void parse_providers(Reader& r, const TreeNode& list, Catalog& out, const Catalog& known) {
  if (!list.IsSequence()) {
    r.error(list, "providers", "expected a list of providers");
    return;
  }
  std::set<std::string> seen;
  int idx = 0;
  for (const auto& n : list) {
    const std::string f = "providers[" + std::to_string(idx++) + "].";
    if (!r.require_map(n, f.substr(0, f.size() - 1))) continue;
    r.check_keys(n, f, {"id", "name", "currency", "prices_as_of", "source", "billing_increment_seconds",
                        "minimum_billed_seconds", "startup_seconds", "storage_per_gb_month", "egress_per_gb", "tax_rate",
                        "tax_basis", "country", "offers"});
    Provider p;
    p.where = r.at(n);
    p.id = r.str(n, "id", f, true).value_or("");
    if (!p.id.empty()) {
      r.check_id(n, f, p.id);
      if (!seen.insert(p.id).second) r.error(n["id"], f + "id", "duplicate provider id '" + quote_input(p.id) + "' in this file");
    }
    p.name = r.str(n, "name", f, true).value_or("");
    p.currency = r.str(n, "currency", f, true).value_or("");
    if (!p.currency.empty() && !is_currency_code(p.currency))
      r.error(n["currency"], f + "currency", "expected an ISO 4217 code such as USD or INR, got \"" + quote_input(p.currency) + "\"");
    p.prices_as_of = r.str(n, "prices_as_of", f, true).value_or("");
    if (!p.prices_as_of.empty() && (!is_date_shape(p.prices_as_of) || !is_calendar_date(p.prices_as_of)))
      r.error(n["prices_as_of"], f + "prices_as_of", "expected a calendar date YYYY-MM-DD, got \"" + quote_input(p.prices_as_of) + "\"");
    p.source = r.str(n, "source", f, true).value_or("");
    p.billing_increment_seconds = static_cast<int>(r.integer(n, "billing_increment_seconds", f, true, 1, 31 * 86400).value_or(1));
    p.minimum_billed_seconds = static_cast<int>(r.integer(n, "minimum_billed_seconds", f, false, 0, 31 * 86400).value_or(0));
    p.startup_seconds = r.num(n, "startup_seconds", f, false, 0, false, 86400);
    p.storage_per_gb_month = r.price_or_free(n, "storage_per_gb_month", f, 1e6);
    p.egress_per_gb = r.price_or_free(n, "egress_per_gb", f, 1e6);
    p.tax_rate = r.num(n, "tax_rate", f, false, 0, false, 1.0);
    if (auto b = r.str(n, "tax_basis", f, false)) {
      if (auto v = tax_basis_from_string(*b)) p.tax_basis = *v;
      else r.error(n["tax_basis"], f + "tax_basis", "expected inclusive or exclusive, got \"" + quote_input(*b) + "\"");
      if (p.tax_basis == TaxBasis::inclusive && !p.tax_rate)
        r.error(n["tax_basis"], f + "tax_basis", "inclusive needs tax_rate: the rate the prices include");
    }
    p.country = r.str(n, "country", f, false).value_or("");
    if (!p.country.empty() && country_code_of(p.country) != p.country)
      r.error(n["country"], f + "country", "expected an ISO 3166 two-letter code such as IN, got \"" + quote_input(p.country) + "\"");
    const TreeNode offers = n["offers"];
    if (!offers) r.error(n, f + "offers", "missing required key");
    else parse_offers(r, offers, f, p, known, out);
    out.providers.push_back(std::move(p));
  }
}

void parse_fx(Reader& r, const TreeNode& n, Catalog& out) {
  if (!r.require_map(n, "fx")) return;
  r.check_keys(n, "fx.", {"as_of", "base", "rates"});
  out.fx.where = r.at(n);
  out.fx.as_of = r.str(n, "as_of", "fx.", true).value_or("");
  out.fx.base = r.str(n, "base", "fx.", true).value_or("USD");
  const TreeNode rates = n["rates"];
  if (!rates) {
    r.error(n, "fx.rates", "missing required key");
    return;
  }
  if (!r.require_map(rates, "fx.rates")) return;
  for (const auto& kv : rates) {
    const std::string code = kv.first.Scalar();
    if (!is_currency_code(code)) {
      r.error(kv.first, "fx.rates." + code, "expected an ISO 4217 currency code, got \"" + quote_input(code) + "\"");
      continue;
    }
    if (auto v = r.num(rates, code, "fx.rates.", true, kMin.fx_rate, false, 1e7)) out.fx.per_base[code] = *v;
  }
}

}  // namespace

CatalogLoad parse_catalog_yaml(const std::string& text, const std::string& path, const Catalog& known) {
  CatalogLoad result;
  Reader r(path);
  YamlTree doc = parse_yaml_tree(text, path, "catalog");
  if (!doc.errors.empty()) {
    result.errors = std::move(doc.errors);
    return result;
  }
  const TreeNode root = doc.root;
  if (!root || root.IsNull()) {
    result.errors.emplace_back(SourceLocation{path, 1, 1}, "", "empty catalog file (expected gpus:, models:, providers: or fx:)");
    return result;
  }
  if (!root.IsMap()) {
    result.errors.emplace_back(r.at(root), "", "expected a mapping with gpus:, models:, providers: or fx: at the top level");
    return result;
  }
  try {
    r.check_keys(root, "", {"schema_version", "gpus", "models", "providers", "fx"});
    if (root["schema_version"]) {
      auto v = r.integer(root, "schema_version", "", false, 1, 1000);
      if (v && *v != 1) r.error(root["schema_version"], "schema_version", "unsupported schema version (this gpuplan reads 1)");
    }
    if (root["gpus"]) parse_gpus(r, root["gpus"], result.catalog);
    if (root["models"]) parse_models(r, root["models"], result.catalog);
    if (root["providers"]) parse_providers(r, root["providers"], result.catalog, known);
    if (root["fx"]) parse_fx(r, root["fx"], result.catalog);
  } catch (const YAML::Exception& e) {
    r.errors.emplace_back(SourceLocation{path, e.mark.line + 1, e.mark.column + 1}, "", std::string("malformed YAML: ") + e.msg);
  } catch (const TooManyErrors&) {
    r.errors.emplace_back(SourceLocation{path, 0, 0}, "",
                          "stopped after " + std::to_string(kMaxErrors) + " errors; fix these and run again");
  }
  result.errors = std::move(r.errors);
  return result;
}

Catalog load_catalog_file(const std::string& path, const Catalog& known) {
  CatalogLoad load = parse_catalog_yaml(read_file(path), path, known);
  if (!load.errors.empty()) throw InputErrors(std::move(load.errors));
  return std::move(load.catalog);
}

}  // namespace gpuplan::io
