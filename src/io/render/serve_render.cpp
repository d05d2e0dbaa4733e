#include "io/render/serve_render.hpp"

#include <fmt/format.h>

#include "io/render/format.hpp"

#include <cmath>

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
          {"latency_problem", or_null(!r.fleet.latency_why.empty(), r.fleet.latency_why)},
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
  for (const auto& e : s.excluded) t.rows.push_back({e.where.offer->key(), e.why});
  return t;
}

}  // namespace gpuplan::io
