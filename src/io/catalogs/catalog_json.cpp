#include "io/catalogs/catalog_json.hpp"

#include <cmath>

namespace gpuplan::io {
namespace {

using nlohmann::json;

template <class T>
json opt(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}
template <class T>
std::optional<T> get_opt(const json& j, const char* key) {
  if (!j.contains(key) || j[key].is_null()) return std::nullopt;
  return j[key].get<T>();
}
json where(const SourceLocation& w) { return {{"path", w.path}, {"line", w.line}}; }
SourceLocation where_from(const json& j) {
  if (!j.contains("source_location")) return {};
  return {j["source_location"]["path"].get<std::string>(), j["source_location"]["line"].get<int>(), 0};
}

}  // namespace

json to_json(const Gpu& g) {
  json tf = json::object();
  for (int p = 0; p < kPeakPrecisionCount; ++p)
    if (g.dense_tflops[static_cast<std::size_t>(p)] > 0) tf[to_string(static_cast<PeakPrecision>(p))] = g.dense_tflops[static_cast<std::size_t>(p)];
  return {{"id", g.id}, {"name", g.name}, {"vendor", g.vendor}, {"architecture", g.architecture},
          {"form", to_string(g.form)}, {"aliases", g.aliases}, {"memory_bytes", g.memory_bytes}, {"usable_memory_bytes", g.usable_bytes()},
          {"memory_bandwidth_gbps", g.memory_bandwidth_gbps}, {"dense_tflops", tf}, {"tdp_watts", g.tdp_watts},
          {"interconnect", {{"kind", g.interconnect_kind}, {"bandwidth_gbps", g.interconnect_gbps}}},
          {"ecc", g.ecc}, {"price_usd", opt(g.price_usd)}, {"source_location", where(g.where)}};
}

json to_json(const ModelArch& m) {
  const ParamCounts pc = count_params(m);
  return {{"id", m.id}, {"name", m.name}, {"hf_id", m.hf_id}, {"aliases", m.aliases}, {"family", m.family},
          {"layers", m.layers}, {"hidden_size", m.hidden_size}, {"intermediate_size", m.intermediate_size},
          {"attention_heads", m.attention_heads}, {"kv_heads", m.kv_heads}, {"head_dim", m.head_dim},
          {"vocab_size", m.vocab_size}, {"tied_embeddings", m.tied_embeddings},
          {"mlp", m.mlp == MlpKind::gated ? "gated" : "plain"},
          {"norm", m.norm == NormKind::rmsnorm ? "rmsnorm" : "layernorm"}, {"norms_per_layer", m.norms_per_layer},
          {"qkv_bias", m.qkv_bias}, {"o_bias", m.o_bias}, {"mlp_bias", m.mlp_bias},
          {"learned_positions", m.learned_positions}, {"experts", m.experts},
          {"experts_per_token", m.experts_per_token}, {"max_context", m.max_context}, {"causal_lm", m.causal_lm},
          {"params_published", m.published_params},
          {"params", {{"total", static_cast<std::int64_t>(std::llround(pc.total()))},
                      {"active", static_cast<std::int64_t>(std::llround(pc.active))},
                      {"embedding", static_cast<std::int64_t>(std::llround(pc.embedding))},
                      {"attention", static_cast<std::int64_t>(std::llround(pc.attention))},
                      {"mlp", static_cast<std::int64_t>(std::llround(pc.mlp))},
                      {"router", static_cast<std::int64_t>(std::llround(pc.router))},
                      {"norms", static_cast<std::int64_t>(std::llround(pc.norms))},
                      {"lm_head", static_cast<std::int64_t>(std::llround(pc.lm_head))}}},
          {"source_location", where(SourceLocation{})}};
}

json to_json(const Offer& o) {
  json prices = json::object();
  for (int i = 0; i < kPricingCount; ++i) prices[to_string(static_cast<Pricing>(i))] = opt(o.per_gpu_hour[static_cast<std::size_t>(i)]);
  return {{"id", o.id}, {"provider", o.provider}, {"gpu", o.gpu}, {"gpus", o.gpus}, {"region", o.region},
          {"vcpus", opt(o.vcpus)}, {"ram_gib", opt(o.ram_gib)}, {"per_gpu_hour", prices},
          {"spot_preemptions_per_hour", opt(o.spot_preemptions_per_hour)},
          {"interconnect_gbps", opt(o.interconnect_gbps)}, {"network_gbps", opt(o.network_gbps)},
          {"spot_low_per_gpu_hour", opt(o.spot_low)}, {"spot_high_per_gpu_hour", opt(o.spot_high)},
          {"spot_zones", o.spot_zones}, {"country", o.country_code()},
          {"source_location", where(o.where)}};
}

json terms_json(const Provider& p) {
  return {{"id", p.id}, {"name", p.name}, {"currency", p.currency}, {"prices_as_of", p.prices_as_of},
          {"source", p.source}, {"billing_increment_seconds", p.billing_increment_seconds},
          {"minimum_billed_seconds", p.minimum_billed_seconds}, {"startup_seconds", opt(p.startup_seconds)},
          {"storage_per_gb_month", opt(p.storage_per_gb_month)}, {"egress_per_gb", opt(p.egress_per_gb)},
          {"tax_rate", opt(p.tax_rate)}, {"tax_basis", to_string(p.tax_basis)}, {"country", p.country},
          {"source_location", where(p.where)}};
}

json to_json(const Provider& p) {
  json j = terms_json(p);
  json& offers = j["offers"] = json::array();
  for (const auto& o : p.offers) offers.push_back(to_json(o));
  return j;
}

json to_json(const Catalog& c) {
  json j = {{"gpus", json::array()}, {"models", json::array()}, {"providers", json::array()}};
  for (const auto& g : c.gpus) j["gpus"].push_back(to_json(g));
  for (const auto& m : c.models) {
    json mj = to_json(m);
    mj["params_published_exact"] = m.published_params_exact;
    mj["features"] = {{"qk_norm", m.qk_norm}, {"first_dense_layers", m.first_dense_layers},
                      {"dense_intermediate_size", m.dense_intermediate_size}, {"shared_experts", m.shared_experts},
                      {"router_bias", m.router_bias}, {"q_lora_rank", m.q_lora_rank}, {"kv_lora_rank", m.kv_lora_rank},
                      {"qk_nope_head_dim", m.qk_nope_head_dim}, {"qk_rope_head_dim", m.qk_rope_head_dim},
                      {"v_head_dim", m.v_head_dim}, {"sliding_window", m.sliding_window}, {"global_every", m.global_every}};
    j["models"].push_back(mj);
  }
  for (const auto& p : c.providers) j["providers"].push_back(to_json(p));
  j["fx"] = {{"as_of", c.fx.as_of}, {"base", c.fx.base}, {"rates", c.fx.per_base}};
  return j;
}

namespace {

Gpu gpu_from_json(const json& g) {
  Gpu x;
  x.id = g.at("id");
  x.name = g.at("name");
  x.vendor = g.at("vendor");
  x.architecture = g.at("architecture");
  const std::string form = g.at("form");
  x.form = form == "consumer" ? GpuForm::consumer : form == "workstation" ? GpuForm::workstation : GpuForm::datacentre;
  x.aliases = g.at("aliases").get<std::vector<std::string>>();
  x.memory_bytes = g.at("memory_bytes");
  x.usable_memory_bytes = g.at("usable_memory_bytes");
  x.memory_bandwidth_gbps = g.at("memory_bandwidth_gbps");
  for (const auto& [k, v] : g.at("dense_tflops").items())
    if (auto p = peak_precision_from_string(k)) x.dense_tflops[static_cast<std::size_t>(*p)] = v.get<double>();
  x.tdp_watts = g.at("tdp_watts");
  x.interconnect_kind = g.at("interconnect").at("kind");
  x.interconnect_gbps = g.at("interconnect").at("bandwidth_gbps");
  x.ecc = g.at("ecc");
  x.price_usd = get_opt<double>(g, "price_usd");
  x.where = where_from(g);
  return x;
}

ModelArch model_from_json(const json& m) {
  ModelArch x;
  x.id = m.at("id");
  x.name = m.at("name");
  x.hf_id = m.at("hf_id");
  x.aliases = m.at("aliases").get<std::vector<std::string>>();
  x.family = m.at("family");
  x.layers = m.at("layers");
  x.hidden_size = m.at("hidden_size");
  x.intermediate_size = m.at("intermediate_size");
  x.attention_heads = m.at("attention_heads");
  x.kv_heads = m.at("kv_heads");
  x.head_dim = m.at("head_dim");
  x.vocab_size = m.at("vocab_size");
  x.tied_embeddings = m.at("tied_embeddings");
  x.mlp = m.at("mlp") == "gated" ? MlpKind::gated : MlpKind::plain;
  x.norm = m.at("norm") == "rmsnorm" ? NormKind::rmsnorm : NormKind::layernorm;
  x.norms_per_layer = m.at("norms_per_layer");
  x.qkv_bias = m.at("qkv_bias");
  x.o_bias = m.at("o_bias");
  x.mlp_bias = m.at("mlp_bias");
  x.learned_positions = m.at("learned_positions");
  x.experts = m.at("experts");
  x.experts_per_token = m.at("experts_per_token");
  x.max_context = m.at("max_context");
  x.causal_lm = m.at("causal_lm");
  x.published_params = m.at("params_published");
  x.published_params_exact = m.value("params_published_exact", false);
  if (m.contains("features")) {
    const auto& ft = m.at("features");
    x.qk_norm = ft.value("qk_norm", false);
    x.first_dense_layers = ft.value("first_dense_layers", 0);
    x.dense_intermediate_size = ft.value("dense_intermediate_size", 0);
    x.shared_experts = ft.value("shared_experts", 0);
    x.router_bias = ft.value("router_bias", false);
    x.q_lora_rank = ft.value("q_lora_rank", 0);
    x.kv_lora_rank = ft.value("kv_lora_rank", 0);
    x.qk_nope_head_dim = ft.value("qk_nope_head_dim", 0);
    x.qk_rope_head_dim = ft.value("qk_rope_head_dim", 0);
    x.v_head_dim = ft.value("v_head_dim", 0);
    x.sliding_window = ft.value("sliding_window", 0);
    x.global_every = ft.value("global_every", 0);
  }
  return x;
}

Offer offer_from_json(const json& o) {
  Offer x;
  x.id = o.at("id");
  x.provider = o.at("provider");
  x.gpu = o.at("gpu");
  x.gpus = o.at("gpus");
  x.region = o.at("region");
  x.vcpus = get_opt<int>(o, "vcpus");
  x.ram_gib = get_opt<double>(o, "ram_gib");
  for (int i = 0; i < kPricingCount; ++i)
    x.per_gpu_hour[static_cast<std::size_t>(i)] = get_opt<double>(o.at("per_gpu_hour"), to_string(static_cast<Pricing>(i)));
  x.spot_preemptions_per_hour = get_opt<double>(o, "spot_preemptions_per_hour");
  x.interconnect_gbps = get_opt<double>(o, "interconnect_gbps");
  x.network_gbps = get_opt<double>(o, "network_gbps");
  x.spot_low = get_opt<double>(o, "spot_low_per_gpu_hour");
  x.spot_high = get_opt<double>(o, "spot_high_per_gpu_hour");
  x.spot_zones = o.value("spot_zones", 0);
  x.country = o.value("country", "");
  x.where = where_from(o);
  return x;
}

Provider provider_from_json(const json& p) {
  Provider x;
  x.id = p.at("id");
  x.name = p.at("name");
  x.currency = p.at("currency");
  x.prices_as_of = p.at("prices_as_of");
  x.source = p.at("source");
  x.billing_increment_seconds = p.at("billing_increment_seconds");
  x.minimum_billed_seconds = p.at("minimum_billed_seconds");
  x.startup_seconds = get_opt<double>(p, "startup_seconds");
  x.storage_per_gb_month = get_opt<double>(p, "storage_per_gb_month");
  x.egress_per_gb = get_opt<double>(p, "egress_per_gb");
  x.tax_rate = get_opt<double>(p, "tax_rate");
  x.tax_basis = tax_basis_from_string(p.value("tax_basis", "exclusive")).value_or(TaxBasis::exclusive);
  x.country = p.value("country", "");
  x.where = where_from(p);
  for (const auto& o : p.at("offers")) x.offers.push_back(offer_from_json(o));
  return x;
}

}  // namespace

Catalog catalog_from_json(const json& j) {
  Catalog c;
  try {
    for (const auto& g : j.at("gpus")) c.gpus.push_back(gpu_from_json(g));
    for (const auto& m : j.at("models")) c.models.push_back(model_from_json(m));
    for (const auto& p : j.at("providers")) c.providers.push_back(provider_from_json(p));
    const auto& fx = j.at("fx");
    c.fx.as_of = fx.at("as_of");
    c.fx.base = fx.at("base");
    c.fx.per_base = fx.at("rates").get<std::map<std::string, double>>();
  } catch (const json::exception& e) {
    throw std::logic_error(std::string("embedded catalog does not match its reader: ") + e.what());
  }
  return c;
}

}  // namespace gpuplan::io
