#include "io/render/catalog_render.hpp"

#include "gpuplan/units.hpp"
#include "io/catalogs/catalog_json.hpp"
#include "io/render/format.hpp"

namespace gpuplan::io {

Table gpus_table(const std::vector<const Gpu*>& gpus) {
  Table t;
  t.columns = {"id", "name", "form", "memory_gib", "bandwidth_gbps", "bf16_tflops", "fp8_tflops", "tdp_w", "interconnect", "price_usd"};
  t.csv_columns = {"id", "name", "form", "memory_gib", "bandwidth_gbps", "bf16_tflops", "fp8_tflops", "tdp_w", "interconnect",
                   "interconnect_gbps", "price_usd"};
  t.droppable = {1, 2, 8};  // the id is what a user types; --wide adds the name, form and links
  t.align = {Align::left, Align::left, Align::left, Align::right, Align::right, Align::right,
             Align::right, Align::right, Align::left, Align::right};
  for (const Gpu* g : gpus) {
    auto tf = [&](PeakPrecision p) { return g->tflops(p) > 0 ? num(g->tflops(p), 1) : std::string("-"); };
    t.rows.push_back({g->id, g->name, to_string(g->form), num(static_cast<double>(g->memory_bytes) / kGiB, 0),
                      num(g->memory_bandwidth_gbps, 0), tf(PeakPrecision::bf16), tf(PeakPrecision::fp8),
                      num(g->tdp_watts, 0), g->interconnect_kind + " " + num(g->interconnect_gbps, 0) + " GB/s",
                      g->price_usd ? num(*g->price_usd, 0) : "-"});
    t.csv_rows.push_back({g->id, g->name, to_string(g->form), raw(static_cast<double>(g->memory_bytes) / kGiB), raw(g->memory_bandwidth_gbps),
                          raw(g->tflops(PeakPrecision::bf16)), g->tflops(PeakPrecision::fp8) > 0 ? raw(g->tflops(PeakPrecision::fp8)) : "",
                          raw(g->tdp_watts), g->interconnect_kind, raw(g->interconnect_gbps), raw(g->price_usd)});
  }
  return t;
}

Table gpu_detail_table(const Gpu& g) {
  Table detail;
  detail.title = g.name + " (" + g.id + ")";
  detail.columns = {"field", "value"};
  detail.rows.push_back({"memory", format_gib(static_cast<double>(g.memory_bytes), 0)});
  detail.rows.push_back({"memory bandwidth", num(g.memory_bandwidth_gbps, 0) + " GB/s"});
  for (int p = 0; p < kPeakPrecisionCount; ++p) {
    const auto prec = static_cast<PeakPrecision>(p);
    detail.rows.push_back({std::string(to_string(prec)) + " dense peak",
                           g.tflops(prec) > 0 ? num(g.tflops(prec), 1) + (prec == PeakPrecision::int8 ? " TOPS" : " TFLOPS")
                                              : "unsupported"});
  }
  detail.rows.push_back({"TDP", num(g.tdp_watts, 0) + " W"});
  detail.rows.push_back({"interconnect", g.interconnect_kind + ", " + num(g.interconnect_gbps, 0) + " GB/s per GPU each way"});
  detail.rows.push_back({"ECC", g.ecc ? "yes" : "no"});
  detail.rows.push_back({"list price", g.price_usd ? "$" + num(*g.price_usd, 0) : "no public figure"});
  std::string aliases;
  for (const auto& a : g.aliases) aliases += (aliases.empty() ? "" : ", ") + a;
  detail.rows.push_back({"aliases", aliases.empty() ? "-" : aliases});
  return detail;
}

Table models_table(const std::vector<const ModelArch*>& models) {
  Table t;
  t.columns = {"id", "name", "family", "params", "active", "layers", "hidden", "heads", "kv_heads", "vocab", "context"};
  t.csv_columns = t.columns;  // params and active as exact counts, not "8.03B"
  t.droppable = {1, 2};        // the id is what a user types; --wide adds the name and family
  t.align = {Align::left, Align::left, Align::left, Align::right, Align::right, Align::right,
             Align::right, Align::right, Align::right, Align::right, Align::right};
  for (const ModelArch* m : models) {
    const ParamCounts pc = count_params(*m);
    t.rows.push_back({m->id, m->name, m->family, format_count(pc.total()), format_count(pc.active),
                      std::to_string(m->layers), std::to_string(m->hidden_size), std::to_string(m->attention_heads),
                      std::to_string(m->kv_heads), std::to_string(m->vocab_size), std::to_string(m->max_context)});
    t.csv_rows.push_back(t.rows.back());
    t.csv_rows.back()[3] = std::to_string(static_cast<long long>(pc.total()));
    t.csv_rows.back()[4] = std::to_string(static_cast<long long>(pc.active));
  }
  return t;
}

Table model_parts_table(const ModelArch& m) {
  const ParamCounts pc = count_params(m);
  Table parts;
  parts.title = "Parameters of " + m.name;
  parts.columns = {"part", "params", "share"};
  parts.align = {Align::left, Align::right, Align::right};
  auto row = [&](const char* n, double v) { parts.rows.push_back({n, format_count(v), num(100.0 * v / pc.total(), 1) + "%"}); };
  row("embeddings", pc.embedding);
  row("attention", pc.attention);
  row("mlp", pc.mlp);
  if (pc.router > 0) row("router", pc.router);
  row("norms", pc.norms);
  row("lm_head", pc.lm_head);
  parts.rows.push_back({"total", std::to_string(static_cast<long long>(pc.total())), "100.0%"});
  return parts;
}

nlohmann::json providers_json(const std::vector<ProviderListing>& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const ProviderListing& r : rows) {
    const Provider& p = *r.provider;
    nlohmann::json j = terms_json(p);
    j["offer_count"] = p.offers.size();
    j["prices_age_days"] = r.age_days ? nlohmann::json(*r.age_days) : nlohmann::json();
    j["prices_from"] = r.origin;
    j["prices_cached_at"] = p.cached_at.empty() ? nlohmann::json() : nlohmann::json(p.cached_at);
    out.push_back(j);
  }
  return out;
}

Table providers_table(const std::vector<ProviderListing>& rows) {
  Table t;
  t.columns = {"id", "name", "currency", "offers", "prices_as_of", "age_days", "from", "billing_s", "tax_rate"};
  t.csv_columns = t.columns;
  t.align = {Align::left, Align::left, Align::left, Align::right, Align::left, Align::right,
             Align::left, Align::right, Align::right};
  for (const ProviderListing& r : rows) {
    const Provider& p = *r.provider;
    t.rows.push_back({p.id, p.name, p.currency, std::to_string(p.offers.size()), p.prices_as_of,
                      r.age_days ? std::to_string(*r.age_days) : "-", r.origin, std::to_string(p.billing_increment_seconds),
                      opt_num(p.tax_rate, 2)});
    t.csv_rows.push_back(t.rows.back());
    t.csv_rows.back()[5] = r.age_days ? std::to_string(*r.age_days) : "";
    t.csv_rows.back().back() = raw(p.tax_rate);  // empty when the sheet states none
  }
  return t;
}

std::vector<std::string> provider_notes(const Provider& p) {
  return {"source: " + p.source + (p.cached_at.empty() ? "" : " (`gpuplan prices update`, fetched " + p.cached_at + ")")};
}

std::vector<std::string> providers_notes(const std::vector<ProviderListing>& rows) {
  std::vector<std::string> notes;
  for (const ProviderListing& r : rows)
    if (!r.provider->cached_at.empty()) notes.push_back(r.provider->id + ": fetched from " + r.provider->source + " at " + r.provider->cached_at);
  if (!notes.empty()) notes.push_back("from cache = `gpuplan prices update`; --offline lists the shipped sheets only");
  return notes;
}

Table provider_offers_table(const Provider& p, OfferRows rows) {
  Table t;
  t.title = p.name + " — prices per GPU-hour in " + p.currency + ", as of " + p.prices_as_of;
  t.columns = {"offer", "gpu", "gpus", "region", "on_demand", "spot", "reserved_1y", "reserved_3y"};
  t.droppable = {7, 6};  // few sheets list reserved terms; --wide shows them
  t.csv_columns = {"offer", "gpu", "gpus", "region", "on_demand_" + p.currency, "spot_" + p.currency, "reserved_1y_" + p.currency,
                   "reserved_3y_" + p.currency};
  t.align = {Align::left, Align::left, Align::right, Align::left, Align::right, Align::right, Align::right, Align::right};
  for (const auto& o : p.offers) {
    if (rows == OfferRows::csv)
      t.csv_rows.push_back({o.id, o.gpu, std::to_string(o.gpus), o.region, raw(o.price(Pricing::on_demand)), raw(o.price(Pricing::spot)),
                            raw(o.price(Pricing::reserved_1y)), raw(o.price(Pricing::reserved_3y))});
    else if (rows == OfferRows::display)
      t.rows.push_back({o.id, o.gpu, std::to_string(o.gpus), o.region, opt_num(o.price(Pricing::on_demand), 4),
                        opt_num(o.price(Pricing::spot), 4), opt_num(o.price(Pricing::reserved_1y), 4),
                        opt_num(o.price(Pricing::reserved_3y), 4)});
  }
  return t;
}

nlohmann::json catalog_check_json(const std::vector<CatalogFileCheck>& files) {
  nlohmann::json j;
  j["files"] = nlohmann::json::array();
  bool valid = true;
  for (const CatalogFileCheck& f : files) {
    nlohmann::json fj = {{"path", f.path}, {"valid", f.problems.empty()}, {"problems", nlohmann::json::array()}};
    for (const auto& e : f.problems)
      fj["problems"].push_back({{"line", e.where().line}, {"column", e.where().column}, {"field", e.field()}, {"message", e.problem()}});
    j["files"].push_back(fj);
    valid = valid && f.problems.empty();
  }
  j["valid"] = valid;
  return j;
}

Table catalog_check_table(const std::vector<CatalogFileCheck>& files) {
  Table t;
  t.columns = {"file", "gpus", "models", "providers", "offers", "problems"};
  for (const CatalogFileCheck& f : files)
    t.rows.push_back({f.path, std::to_string(f.gpus), std::to_string(f.models), std::to_string(f.providers), std::to_string(f.offers),
                      std::to_string(f.problems.size())});
  return t;
}

}  // namespace gpuplan::io
