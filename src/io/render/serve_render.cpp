#include "io/render/serve_render.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "gpuplan/memory.hpp"
#include "gpuplan/serving_routes.hpp"
#include "io/render/format.hpp"
#include "io/render/serve_words.hpp"

namespace gpuplan::io {

namespace {

using nlohmann::json;

std::string fixed(double v, int decimals) { return fmt::format("{:.{}f}", v, decimals); }
std::string ms(double s) { return std::isfinite(s) ? fixed(1000 * s, 0) + " ms" : "-"; }
json or_null(bool present, const json& v) { return present ? v : json(); }

}  // namespace

std::string rate_text(double rps) {
  if (rps >= 0.1) return fixed(rps, rps < 10 ? 2 : 1) + " req/s";
  if (rps * 3600 >= 1) return fixed(rps * 3600, 1) + " req/hour";
  return fixed(rps * 86400, 1) + " req/day";
}

std::string serving_money(double v, const std::string& currency, MoneyStyle style) {
  return money_amount(v, currency, v >= 100 ? 0 : v >= 1 ? 2 : v >= 0.01 ? 4 : 6, style);
}

json serving_option_json(const ServingOption& r, const ServeRowContext& c) {
  const ReplicaPlan& p = r.plan;
  const double gpus = static_cast<double>(r.fleet.replicas) * r.tp;
  const Offer& o = *r.where.offer;
  return {{"route", c.route},
          {"provider", r.where.provider->id},
          {"offer", o.id},
          {"gpu", o.gpu},
          {"region", o.region},
          {"pricing", c.pricing},
          {"currency", c.currency},
          {"prices_as_of", r.where.provider->prices_as_of},
          {"tensor_parallel", r.tp},
          {"replicas", r.fleet.replicas},
          {"replicas_per_instance", r.cost.replicas_per_instance},
          {"instances_per_replica", r.cost.instances_per_replica},
          {"instances", r.cost.instances},
          {"gpus_billed", r.cost.gpus_billed},
          {"max_concurrent_sequences", p.capacity.max_concurrent_sequences},
          {"kv_bound_sequences", p.capacity.kv_bound_sequences},
          {"operating_batch", p.operating_batch},
          {"knee_batch", p.knee_batch},
          {"weight_bytes_per_gpu", static_cast<std::int64_t>(std::llround(p.capacity.weight_bytes))},
          {"kv_cache_bytes_per_gpu", static_cast<std::int64_t>(std::llround(p.capacity.kv_free_bytes))},
          {"tokens_per_second_per_gpu", p.tokens_per_second / r.tp},
          {"served_tokens_per_second_per_gpu",
           gpus > 0 ? r.fleet.output_tokens_per_month / (kHoursPerMonth * 3600) / gpus : 0.0},
          {"utilization", r.fleet.utilization},
          {"ttft_p95_seconds", r.fleet.ttft_seconds},
          {"tpot_seconds", r.fleet.at_peak.tpot_seconds},
          {"tpot_at_operating_batch_seconds", p.tpot_seconds},
          {"mean_batch_at_peak", r.fleet.at_peak.mean_batch},
          {"prefill_seconds", p.prefill_seconds},
          {"meets_latency", r.fleet.meets_latency},
          {"latency_problem", or_null(r.fleet.latency_shortfall.limit != ServingLimit::none, shortfall_text(r.fleet.latency_shortfall))},
          {"replica_hours_per_month", r.fleet.replica_hours_per_month},
          {"cold_start_seconds", or_null(c.scale_to_zero, r.cold_start_seconds)},
          {"cold_start_request_share", r.fleet.cold_start_request_share},
          {"rate_per_hour", r.cost.rate_per_hour},
          {"cost_per_month", r.cost.per_month},
          {"cost_per_million_output_tokens", r.cost.per_million_output_tokens},
          {"cost_per_million_output_tokens_at_full_load", r.cost.at_full_load_per_million_output_tokens},
          {"cost_per_request", r.cost.per_request}};
}

json roofline_json(const ServingSearch& s) {
  json roof = json::array();
  for (const auto& p : s.roofline)
    roof.push_back({{"batch", p.batch}, {"step_seconds", p.step_seconds}, {"tokens_per_second", p.tokens_per_second},
                    {"bound", p.compute_bound ? "compute" : "memory"}, {"fits", p.batch <= s.roofline_capacity}});
  return roof;
}

// Fits 100 columns: per-request cost, max batch, TP and the GPU are left out before the offer id
// is cut unreadably short (JSON, CSV and --wide keep them). TTFT and TPOT are p95 (see the notes).
Table serving_options_table(const std::vector<ServingOption>& rows, const std::string& title, const std::string& currency, MoneyStyle style) {
  Table t;
  t.title = title + " (" + currency + ")";
  t.columns = {"offer", "gpu", "tp", "repl", "max batch", "util", "tok/s/GPU", "TTFT", "TPOT", "ok", "/month", "/1M out", "/request"};
  t.csv_columns = {"provider", "offer", "gpu", "tp", "replicas", "max_batch", "utilization", "tokens_per_second_per_gpu",
                   "ttft_p95_seconds", "tpot_p95_seconds", "meets_latency", "cost_per_month_" + currency,
                   "cost_per_million_output_tokens_" + currency, "cost_per_request_" + currency};
  for (const ServingOption& r : rows) {
    t.rows.push_back({r.where.offer->key(), r.where.offer->gpu, std::to_string(r.tp), std::to_string(r.fleet.replicas),
                      std::to_string(r.plan.operating_batch), fixed(100 * r.fleet.utilization, 0) + "%",
                      fixed(r.plan.tokens_per_second / r.tp, 0), ms(r.fleet.ttft_seconds), ms(r.fleet.at_peak.tpot_seconds),
                      r.fleet.meets_latency ? "yes" : "no", serving_money(r.cost.per_month, currency, style),
                      serving_money(r.cost.per_million_output_tokens, currency, style), serving_money(r.cost.per_request, currency, style)});
    t.csv_rows.push_back({r.where.provider->id, r.where.offer->id, r.where.offer->gpu, std::to_string(r.tp),
                          std::to_string(r.fleet.replicas), std::to_string(r.plan.operating_batch), raw(r.fleet.utilization),
                          raw(r.plan.tokens_per_second / r.tp), raw(r.fleet.ttft_seconds), raw(r.fleet.at_peak.tpot_seconds),
                          r.fleet.meets_latency ? "true" : "false", raw(r.cost.per_month), raw(r.cost.per_million_output_tokens),
                          raw(r.cost.per_request)});
  }
  t.align.assign(t.columns.size(), Align::right);
  t.align[0] = t.align[1] = Align::left;
  t.cuttable = {0};
  t.droppable = {12, 4, 2, 1};
  return t;
}

Table roofline_table(const ServingSearch& s) {
  Table t;
  if (s.roofline.empty() || s.options.empty()) return t;
  const ServingOption& b = s.options.front();
  t.title = "Decode roofline on " + b.where.offer->gpu + " (knee at batch " + fixed(b.plan.knee_batch, 0) + ")";
  t.columns = {"batch", "step", "tok/s", "bound"};
  t.align = {Align::right, Align::right, Align::right, Align::left};
  for (const auto& p : s.roofline)
    t.rows.push_back({std::to_string(p.batch), fixed(1000 * p.step_seconds, 2) + " ms", fixed(p.tokens_per_second, 0),
                      std::string(p.compute_bound ? "compute" : "memory") +
                          (p.batch > s.roofline_capacity ? " (over the KV cache or --max-batch)" : "")});
  return t;
}

Table serving_excluded_table(const ServingSearch& s) {
  Table t;
  t.title = "Excluded offers";
  t.columns = {"offer", "why"};
  for (const auto& e : s.excluded) t.rows.push_back({e.where.offer->key(), exclusion_text(e)});
  return t;
}

// --- the whole report ---------------------------------------------------------------------------

namespace {

json opt_json(const std::optional<double>& v) { return v ? json(*v) : json(); }

ServeRowContext row_context(const ServeReport& r, const ServeRoute& route) {
  return {route.name, to_string(r.run.spec.bill.pricing), r.run.currency, r.scaling.autoscale && r.scaling.min_replicas == 0};
}

// The options a route shows: its `top` cheapest.
std::vector<ServingOption> shown_options(const ServeReport& r, const ServeRoute& route) {
  const auto& opts = route.search.options;
  return {opts.begin(), opts.begin() + static_cast<std::ptrdiff_t>(std::min(opts.size(), r.top))};
}

json inputs_traffic_json(const ServeReport& r) {
  return {{"requests_per_second_mean", r.traffic.mean_requests_per_second},
          {"requests_per_second_peak", r.traffic.mean_requests_per_second * r.traffic.peak_factor},
          {"peak_factor", r.traffic.peak_factor},
          {"prompt_tokens", r.req.prompt_tokens},
          {"output_tokens", r.req.output_tokens},
          {"shared_prefix_tokens", r.req.shared_prefix_tokens},
          {"ttft_p95_target_seconds", opt_json(r.targets.ttft_seconds)},
          {"tpot_target_seconds", opt_json(r.targets.tpot_seconds)}};
}

json inputs_serving_json(const ServeReport& r) {
  const Scaling& sc = r.scaling;
  return {{"quant", r.quant},
          {"kv_cache_dtype", kv_cache_dtype_name(r.cfg.workload)},
          {"batching", to_string(r.cfg.batching)},
          {"memory_utilization", r.cfg.k.memory_utilization},
          {"max_batch", r.cfg.k.max_batch},
          {"scaling", !sc.autoscale ? "fixed" : sc.min_replicas == 0 ? "scale-to-zero" : "autoscale"},
          {"min_replicas", sc.autoscale ? json(sc.min_replicas) : json()}};
}

// Each route's cheapest option meeting the targets (null where none does), and their total.
std::optional<RoutedServingCost> routed_total(const ServeReport& r) {
  std::vector<const ServingOption*> chosen;
  for (const ServeRoute& route : r.routes) chosen.push_back(best_serving_option(route.search));
  return routed_serving_cost(chosen);
}

// The routes' cheapest options together; null unless every route has one.
json combined_json(const ServeReport& r) {
  const auto total = routed_total(r);
  if (!total) return json();
  return {{"cost_per_month", total->per_month},
          {"cost_per_million_output_tokens", total->per_million_output_tokens},
          {"cost_per_request", total->per_request}};
}

std::string route_title(const ServeReport& r, const ServeRoute& route) {
  const std::string who = route.model_name.empty() ? route.model_id : route.model_name;
  return (r.routed ? "Route " + route.name + " (" + num(100 * route.share, 0) + "%): " : "") + who + ", " +
         (r.quant == "native" ? std::string("16-bit") : r.quant) + ", KV " + kv_cache_dtype_name(r.cfg.workload) + ", " +
         rate_text(r.traffic.mean_requests_per_second * route.share) +
         (r.traffic.peak_factor > 1 ? " (peak x" + num(r.traffic.peak_factor, 1) + ")" : "");
}

// Why a route has no answer, chosen from the search's codes: no offer hosts the model, traffic
// beyond any fleet, or latency.
std::string no_answer(const ServingSearch& sr) {
  if (!sr.options.empty()) return "no offer meets the latency target: " + shortfall_text(sr.options.front().fleet.latency_shortfall);
  const auto beyond = std::find_if(sr.excluded.begin(), sr.excluded.end(),
                                   [](const ServingExclusion& e) { return e.refusal == ServingRefusal::beyond_fleet; });
  if (beyond != sr.excluded.end())
    return "the traffic is beyond any sane fleet on every offer that hosts the model (" + beyond->where.offer->key() + ": " +
           exclusion_text(*beyond) + "); split it, lower it, or shorten the requests";
  return "no offer meets the latency target (nothing can host the model; --explain lists why)";
}

void add_route_notes(std::vector<std::string>& notes, const ServeReport& r, const ServeRoute& route) {
  const std::string prefix = r.routed ? "route " + route.name + ": " : "";
  const ServingOption* best = best_serving_option(route.search);
  if (!best) notes.push_back(prefix + no_answer(route.search));
  else if (best->fleet.utilization < 0.3)
    notes.push_back(prefix + "the cheapest fleet is " + num(100 * best->fleet.utilization, 0) +
                    "% utilised: most paid hours are idle capacity" +
                    (r.scaling.autoscale ? "" : " (--autoscale or --scale-to-zero bills less at low traffic)"));
  for (const auto& a : route.assumptions) notes.push_back("assumed: " + a);
}

}  // namespace

json serve_json(const ServeReport& r) {
  json offers = json::array(), routes = json::array(), excluded = json::array();
  for (const ServeRoute& route : r.routes) {
    const ServeRowContext c = row_context(r, route);
    for (const ServingOption& o : shown_options(r, route)) offers.push_back(serving_option_json(o, c));
    for (const auto& e : route.search.excluded) excluded.push_back({{"route", route.name}, {"offer", e.where.offer->key()}, {"why", exclusion_text(e)}});
    const ServingOption* best = best_serving_option(route.search);
    routes.push_back({{"route", route.name},
                      {"share", route.share},
                      {"model", {{"id", route.model_id}, {"name", route.model_name}, {"source", route.model_source}}},
                      {"best", best ? serving_option_json(*best, c) : json()},
                      {"roofline", roofline_json(route.search)}});
  }
  return {{"traffic", inputs_traffic_json(r)}, {"serving", inputs_serving_json(r)}, {"currency", r.run.currency},
          {"offers", offers}, {"routes", routes}, {"excluded", excluded}, {"combined", combined_json(r)},
          {"warnings", r.price_warnings}};
}

std::vector<Table> serve_tables(const ServeReport& r, MoneyStyle style) {
  std::vector<Table> tables;
  for (const ServeRoute& route : r.routes) {
    tables.push_back(serving_options_table(shown_options(r, route), route_title(r, route), r.run.currency, style));
    if (!route.search.roofline.empty() && !r.routed) tables.push_back(roofline_table(route.search));
    if (r.explain && !route.search.excluded.empty()) tables.push_back(serving_excluded_table(route.search));
  }
  return tables;
}

std::vector<std::string> serve_notes(const ServeReport& r, MoneyStyle style) {
  std::vector<std::string> notes;
  for (const ServeRoute& route : r.routes) add_route_notes(notes, r, route);
  if (const auto total = routed_total(r); total && r.routed) {
    const std::string& cur = r.run.currency;
    notes.push_back("routed total: " + serving_money(total->per_month, cur, style) + " " + cur + " a month, " +
                    serving_money(total->per_million_output_tokens, cur, style) + " per 1M output tokens, " +
                    serving_money(total->per_request, cur, style) + " per request (each route's cheapest offer)");
  }
  if (r.quant != "native")
    notes.push_back(r.quant + " weights: quality must be checked on your own evaluation set; gpuplan models speed and memory, not accuracy");
  if (r.daily_rate && r.traffic.peak_factor == 1) notes.push_back("sized for the daily mean rate: give --peak-factor for busy hours");
  notes.push_back("tok/s/GPU at the max batch; TTFT and TPOT at the peak rate (p95: M/M/c queue, Poisson concurrency); "
                  "costs include idle capacity at the mean rate");
  if (r.cpu_box) notes.push_back("the CPU box uses the GPU constants (bandwidth 75%, compute 65%): no measured CPU case backs them");
  if (r.run.currency != "USD" || r.run.fx.as_of == "--fx") notes.push_back("exchange rates as of " + r.run.fx.as_of);
  return notes;
}

}  // namespace gpuplan::io
