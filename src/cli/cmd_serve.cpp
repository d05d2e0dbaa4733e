// gpuplan serve: what serving a model costs. For every offer in the loaded price sheets (and
// an optional CPU box from flags): the replicas a traffic level needs at the latency target,
// their utilisation, tokens/s per GPU, and the cost per million output tokens and per request,
// idle capacity included. --route prices a traffic split across models.
#include <algorithm>
#include <cmath>
#include <memory>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/format_values.hpp"
#include "cli/model_source.hpp"
#include "cli/run_flags.hpp"
#include "cli/serve_inputs.hpp"
#include "gpuplan/serving.hpp"
#include "gpuplan/units.hpp"

namespace gpuplan::cli {
namespace {

// Weights are read from storage at this speed on a cold start (the same 1 GB/s assumption as
// --checkpoint-write-speed; a local NVMe is faster, a network volume slower).
constexpr double kWeightLoadBytesPerSecond = 1e9;

struct Row {
  std::string route, provider, offer, gpu, region, currency, prices_as_of;
  int offer_gpus = 1;
  ReplicaPlan plan;
  FleetPlan fleet;
  ServingCost cost;  // in the display currency
  int tp = 1;
  double cold_start_seconds = 0;
};

struct RouteResult {
  Route route;
  ResolvedModel model;
  std::vector<Row> rows;                         // priced, best first
  std::vector<std::pair<std::string, std::string>> excluded;  // offer key, why
  std::vector<RooflinePoint> roofline;           // the best row's
  std::int64_t roofline_capacity = 0;            // sequences its KV cache holds (and max_batch allows)
};

bool wanted(const std::vector<std::string>& list, const std::string& v) {
  return list.empty() || std::find(list.begin(), list.end(), v) != list.end();
}

RouteResult serve_route(const Route& route, const ResolvedModel& rm, const Setup& s, const ServeFlags& f,
                        const std::vector<std::string>& gpu_filter, const std::vector<std::string>& provider_filter,
                        const CpuBox& cpu) {
  RouteResult out;
  out.route = route;
  out.model = rm;
  const ModelArch& m = rm.arch;
  const ParamCounts pc = count_params(m);
  const Catalog& c = catalog();
  Traffic traffic = s.traffic;
  traffic.mean_requests_per_second *= route.share;
  if (f.tensor_parallel > 0 && m.attention_heads % f.tensor_parallel != 0)
    bad_flag("--tensor-parallel", std::to_string(f.tensor_parallel) + " does not divide " + m.id + "'s " +
                                      std::to_string(m.attention_heads) + " attention heads");

  auto consider = [&](const Provider& p, const Offer& o, const Gpu& g) {
    const int per = std::max(1, o.gpus);
    std::vector<int> tps;
    if (f.tensor_parallel > 0) tps.push_back(f.tensor_parallel);
    else
      for (int tp : {1, 2, 4, 8})
        if (tp <= per && m.attention_heads % tp == 0) tps.push_back(tp);
    std::optional<Row> best;
    std::string why = "no tensor-parallel degree divides the model's " + std::to_string(m.attention_heads) + " heads";
    if (!tps.empty() && tps.front() > per)
      why = "needs " + std::to_string(tps.front()) + " GPUs per replica; the instance has " + std::to_string(per);
    for (int tp : tps) {
      if (tp > per) continue;
      ServingConfig cfg = s.cfg;
      cfg.workload.tensor_parallel = tp;
      cfg.workload.gpus = tp;
      Row row;
      row.plan = plan_replica(m, pc, g, cfg, s.req, s.targets);
      if (!row.plan.capacity.fits) {
        why = row.plan.capacity.why + (tp > 1 ? " (TP" + std::to_string(tp) + ")" : "");
        continue;
      }
      Scaling sc = s.scaling;
      const double startup = s.run.spec.bill.startup_seconds.value_or(p.startup_seconds.value_or(0.0));
      row.cold_start_seconds = s.cold_start.value_or(startup + row.plan.capacity.weight_bytes * tp / kWeightLoadBytesPerSecond);
      sc.cold_start_seconds = row.cold_start_seconds;
      row.fleet = plan_fleet(m, pc, g, row.plan, cfg, s.req, traffic, sc, s.targets);
      auto cost = price_serving(o, p, cfg, row.plan, row.fleet, sc, s.run.spec.bill);
      if (!cost) {
        why = std::string("no ") + to_string(s.run.spec.bill.pricing) + " price";
        continue;
      }
      auto conv = [&](double v) { return to_display(v, p.currency, s.run, p.where); };
      for (double* v : {&cost->per_month, &cost->rate_per_hour, &cost->per_million_output_tokens, &cost->per_request,
                        &cost->at_full_load_per_million_output_tokens})
        *v = conv(*v);
      row.cost = *cost;
      row.tp = tp;
      const bool better = !best || (row.fleet.meets_latency && !best->fleet.meets_latency) ||
                          (row.fleet.meets_latency == best->fleet.meets_latency && row.cost.per_month < best->cost.per_month);
      if (better) best = row;
    }
    if (!best) {
      out.excluded.emplace_back(o.key(), why);
      return;
    }
    best->route = route.name;
    best->provider = p.id;
    best->offer = o.id;
    best->gpu = o.gpu;
    best->region = o.region;
    best->currency = s.run.currency;
    best->prices_as_of = p.prices_as_of;
    best->offer_gpus = per;
    out.rows.push_back(*best);
  };

  for (const Provider& p : c.providers) {
    if (!wanted(provider_filter, p.id)) continue;
    for (const Offer& o : p.offers) {
      if (!wanted(gpu_filter, o.gpu)) continue;
      if (!f.regions.empty() &&
          std::none_of(f.regions.begin(), f.regions.end(), [&](const std::string& r) { return o.in_region(r); }))
        continue;
      const auto g = c.find_gpu(o.gpu);
      if (g.found) consider(p, o, *g.found);
    }
  }
  if (cpu.given) consider(cpu.provider, cpu.provider.offers.front(), cpu.gpu);
  std::stable_sort(out.rows.begin(), out.rows.end(), [](const Row& a, const Row& b) {
    if (a.fleet.meets_latency != b.fleet.meets_latency) return a.fleet.meets_latency;
    return a.cost.per_month < b.cost.per_month;
  });
  if (!out.rows.empty()) {
    const Row& b = out.rows.front();
    ServingConfig cfg = s.cfg;
    cfg.workload.tensor_parallel = b.tp;
    cfg.workload.gpus = b.tp;
    const Gpu& g = b.provider == "cpu-box" ? cpu.gpu : *c.find_gpu(b.gpu).found;
    // Past the KV capacity too, up to twice the knee, so the knee shows even where memory binds first.
    const std::int64_t cap = std::max<std::int64_t>(1, b.plan.capacity.max_concurrent_sequences);
    const std::int64_t knee = static_cast<std::int64_t>(b.plan.knee_batch);
    out.roofline = roofline(m, pc, g, cfg, s.req, std::max(cap, std::min<std::int64_t>(2 * knee, 8192)));
    out.roofline_capacity = cap;
  }
  return out;
}

nlohmann::json opt_json(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

nlohmann::json row_json(const Row& r, const Setup& s) {
  const ReplicaPlan& p = r.plan;
  const double gpus = static_cast<double>(r.fleet.replicas) * r.tp;
  return {{"route", r.route},
          {"provider", r.provider},
          {"offer", r.offer},
          {"gpu", r.gpu},
          {"region", r.region},
          {"pricing", to_string(s.run.spec.bill.pricing)},
          {"currency", r.currency},
          {"prices_as_of", r.prices_as_of},
          {"tensor_parallel", r.tp},
          {"replicas", r.fleet.replicas},
          {"replicas_per_instance", r.cost.replicas_per_instance},
          {"instances", r.cost.instances},
          {"gpus_billed", r.cost.instances * r.offer_gpus},
          {"max_concurrent_sequences", p.capacity.max_concurrent_sequences},
          {"kv_bound_sequences", p.capacity.kv_bound_sequences},
          {"operating_batch", p.operating_batch},
          {"knee_batch", p.knee_batch},
          {"weight_bytes_per_gpu", static_cast<std::int64_t>(std::llround(p.capacity.weight_bytes))},
          {"kv_cache_bytes_per_gpu", static_cast<std::int64_t>(std::llround(p.capacity.kv_free_bytes))},
          {"tokens_per_second_per_gpu", p.tokens_per_second / r.tp},
          {"served_tokens_per_second_per_gpu", gpus > 0 ? r.fleet.output_tokens_per_month / (kHoursPerMonth * 3600) / gpus : 0.0},
          {"utilization", r.fleet.utilization},
          {"ttft_p95_seconds", r.fleet.ttft_seconds},
          {"tpot_seconds", r.fleet.at_peak.tpot_seconds},
          {"tpot_at_operating_batch_seconds", p.tpot_seconds},
          {"mean_batch_at_peak", r.fleet.at_peak.mean_batch},
          {"prefill_seconds", p.prefill_seconds},
          {"meets_latency", r.fleet.meets_latency},
          {"latency_problem", r.fleet.latency_why.empty() ? nlohmann::json() : nlohmann::json(r.fleet.latency_why)},
          {"replica_hours_per_month", r.fleet.replica_hours_per_month},
          {"cold_start_seconds", s.scaling.min_replicas == 0 && s.scaling.autoscale ? nlohmann::json(r.cold_start_seconds) : nlohmann::json()},
          {"cold_start_request_share", r.fleet.cold_start_request_share},
          {"rate_per_hour", r.cost.rate_per_hour},
          {"cost_per_month", r.cost.per_month},
          {"cost_per_million_output_tokens", r.cost.per_million_output_tokens},
          {"cost_per_million_output_tokens_at_full_load", r.cost.at_full_load_per_million_output_tokens},
          {"cost_per_request", r.cost.per_request}};
}

std::string rate_text(double rps) {
  if (rps >= 0.1) return num(rps, rps < 10 ? 2 : 1) + " req/s";
  if (rps * 3600 >= 1) return num(rps * 3600, 1) + " req/hour";
  return num(rps * 86400, 1) + " req/day";
}

std::string ms(double s) { return std::isfinite(s) ? num(1000 * s, 0) + " ms" : "-"; }
std::string money(double v) { return v >= 100 ? num(v, 0) : v >= 1 ? num(v, 2) : v >= 0.01 ? num(v, 4) : num(v, 6); }

io::Table rows_table(const std::vector<Row>& rows, const std::string& title, const std::string& currency) {
  io::Table t;
  t.title = title;
  t.columns = {"provider", "offer", "gpu", "tp", "replicas", "max batch", "util", "tok/s/GPU", "TTFT p95", "TPOT p95", "ok",
               "per month", "per 1M out", "per request " + currency};
  for (const Row& r : rows)
    t.rows.push_back({r.provider, r.offer, r.gpu, std::to_string(r.tp), std::to_string(r.fleet.replicas),
                      std::to_string(r.plan.operating_batch), num(100 * r.fleet.utilization, 0) + "%",
                      num(r.plan.tokens_per_second / r.tp, 0), ms(r.fleet.ttft_seconds), ms(r.fleet.at_peak.tpot_seconds),
                      r.fleet.meets_latency ? "yes" : "no", money(r.cost.per_month), money(r.cost.per_million_output_tokens),
                      money(r.cost.per_request)});
  t.align.assign(t.columns.size(), io::Align::right);
  t.align[0] = t.align[1] = t.align[2] = io::Align::left;
  return t;
}

void run_serve(const ServeFlags& f) {
  Setup s = build_setup(f);
  if (f.top < 1) bad_flag("--top", "expected 1 or more");
  std::vector<Route> routes;
  if (!f.route.empty()) {
    if (!f.model.model.empty() || !f.model.model_config.empty() || !f.model.safetensors.empty() || !f.model.params.empty())
      bad_flag("--route", "names its own models: leave out --model, --model-config, --safetensors and --params");
    routes = parse_routes(f.route);
  } else {
    routes.push_back({"all", "", 1.0});
  }
  std::vector<std::string> gpu_filter, provider_filter;
  for (const auto& g : f.gpus) gpu_filter.push_back(resolve_gpu(g).id);
  for (const auto& p : f.providers) {
    const auto l = catalog().find_provider(p);
    if (!l.found) bad_flag("--provider", lookup_failure("provider", p, l));
    provider_filter.push_back(l.found->id);
  }
  const CpuBox cpu = cpu_box(f);

  std::vector<RouteResult> results;
  for (const Route& r : routes) {
    ModelSourceOptions src = f.model;
    if (!r.model.empty()) src = ModelSourceOptions{r.model, "", "", ""};
    results.push_back(serve_route(r, resolve_model(src), s, f, gpu_filter, provider_filter, cpu));
  }

  Report rep;
  const bool routed = !f.route.empty();
  rep.json["traffic"] = {{"requests_per_second_mean", s.traffic.mean_requests_per_second},
                         {"requests_per_second_peak", s.traffic.mean_requests_per_second * s.traffic.peak_factor},
                         {"peak_factor", s.traffic.peak_factor},
                         {"prompt_tokens", s.req.prompt_tokens},
                         {"output_tokens", s.req.output_tokens},
                         {"shared_prefix_tokens", s.req.shared_prefix_tokens},
                         {"ttft_p95_target_seconds", opt_json(s.targets.ttft_seconds)},
                         {"tpot_target_seconds", opt_json(s.targets.tpot_seconds)}};
  rep.json["serving"] = {{"quant", f.quant},
                         {"kv_cache_dtype", to_string(s.cfg.workload.kv_cache_dtype)},
                         {"batching", to_string(s.cfg.batching)},
                         {"memory_utilization", s.cfg.k.memory_utilization},
                         {"max_batch", s.cfg.k.max_batch},
                         {"scaling", !s.scaling.autoscale ? "fixed" : s.scaling.min_replicas == 0 ? "scale-to-zero" : "autoscale"},
                         {"min_replicas", s.scaling.autoscale ? nlohmann::json(s.scaling.min_replicas) : nlohmann::json()}};
  rep.json["currency"] = s.run.currency;
  rep.json["offers"] = nlohmann::json::array();
  rep.json["routes"] = nlohmann::json::array();
  rep.json["excluded"] = nlohmann::json::array();
  double month = 0, tokens = 0, requests = 0;
  bool all_met = true;
  for (const RouteResult& res : results) {
    const Row* best = nullptr;
    for (const Row& r : res.rows)
      if (r.fleet.meets_latency) { best = &r; break; }
    if (!best) all_met = false;
    std::vector<Row> shown(res.rows.begin(), res.rows.begin() + std::min<std::size_t>(res.rows.size(), f.top));
    for (const Row& r : shown) rep.json["offers"].push_back(row_json(r, s));
    for (const auto& [key, why] : res.excluded) rep.json["excluded"].push_back({{"route", res.route.name}, {"offer", key}, {"why", why}});
    nlohmann::json roof = nlohmann::json::array();
    for (const auto& p : res.roofline)
      roof.push_back({{"batch", p.batch}, {"step_seconds", p.step_seconds}, {"tokens_per_second", p.tokens_per_second},
                      {"bound", p.compute_bound ? "compute" : "memory"}, {"fits", p.batch <= res.roofline_capacity}});
    rep.json["routes"].push_back({{"route", res.route.name},
                                  {"share", res.route.share},
                                  {"model", {{"id", res.model.arch.id}, {"name", res.model.arch.name}, {"source", res.model.source}}},
                                  {"best", best ? row_json(*best, s) : nlohmann::json()},
                                  {"roofline", roof}});
    const std::string who = res.model.arch.name.empty() ? res.model.arch.id : res.model.arch.name;
    const std::string title = (routed ? "Route " + res.route.name + " (" + num(100 * res.route.share, 0) + "%): " : "") + who +
                              ", " + (f.quant == "none" ? std::string("16-bit") : f.quant) + ", " +
                              rate_text(s.traffic.mean_requests_per_second * res.route.share) +
                              (s.traffic.peak_factor > 1 ? " (peak x" + num(s.traffic.peak_factor, 1) + ")" : "");
    rep.tables.push_back(rows_table(shown, title, s.run.currency));
    if (!res.roofline.empty() && !routed) {
      io::Table t;
      t.title = "Decode roofline on " + res.rows.front().gpu + " (knee at batch " + num(res.rows.front().plan.knee_batch, 0) + ")";
      t.columns = {"batch", "step", "tok/s", "bound"};
      t.align = {io::Align::right, io::Align::right, io::Align::right, io::Align::left};
      for (const auto& p : res.roofline)
        t.rows.push_back({std::to_string(p.batch), num(1000 * p.step_seconds, 2) + " ms", num(p.tokens_per_second, 0),
                          std::string(p.compute_bound ? "compute" : "memory") +
                              (p.batch > res.roofline_capacity ? " (over the KV cache or --max-batch)" : "")});
      rep.tables.push_back(t);
    }
    if (f.explain && !res.excluded.empty()) {
      io::Table t;
      t.title = "Excluded offers";
      t.columns = {"offer", "why"};
      for (const auto& [key, why] : res.excluded) t.rows.push_back({key, why});
      rep.tables.push_back(t);
    }
    if (best) {
      month += best->cost.per_month;
      tokens += best->fleet.output_tokens_per_month;
      requests += best->fleet.requests_per_month;
      if (best->fleet.utilization < 0.3)
        rep.notes.push_back((routed ? "route " + res.route.name + ": " : "") + "the cheapest fleet is " +
                            num(100 * best->fleet.utilization, 0) + "% utilised: most paid hours are idle capacity" +
                            (s.scaling.autoscale ? "" : " (--autoscale or --scale-to-zero bills less at low traffic)"));
    } else {
      rep.notes.push_back((routed ? "route " + res.route.name + ": " : "") + "no offer meets the latency target" +
                          (res.rows.empty() ? " (nothing can host the model; --explain lists why)" : ": " + res.rows.front().fleet.latency_why));
    }
    for (const auto& a : res.model.assumptions) rep.notes.push_back("assumed: " + a);
  }
  rep.json["combined"] = all_met ? nlohmann::json{{"cost_per_month", month},
                                                  {"cost_per_million_output_tokens", tokens > 0 ? month / tokens * 1e6 : 0.0},
                                                  {"cost_per_request", requests > 0 ? month / requests : 0.0}}
                                 : nlohmann::json();
  if (routed && all_met)
    rep.notes.push_back("routed total: " + money(month) + " " + s.run.currency + " a month, " + money(month / tokens * 1e6) +
                        " per 1M output tokens, " + money(month / requests) + " per request (each route's cheapest offer)");
  if (f.quant != "none" && f.quant != "native")
    rep.notes.push_back(f.quant + " weights: quality must be checked on your own evaluation set; gpuplan models speed and memory, not accuracy");
  if (!f.rpd.empty() && s.traffic.peak_factor == 1)
    rep.notes.push_back("sized for the daily mean rate: give --peak-factor for busy hours");
  rep.notes.push_back("tok/s/GPU at the max batch; TTFT and TPOT at the peak rate (p95: M/M/c queue, Poisson concurrency); "
                      "costs include idle capacity at the mean rate");
  if (cpu.given) rep.notes.push_back("the CPU box uses the GPU constants (bandwidth 75%, compute 65%): no measured CPU case backs them");
  if (s.run.currency != "USD" || s.run.fx.as_of == "--fx") rep.notes.push_back("exchange rates as of " + s.run.fx.as_of);
  if (!all_met) exit_code() = 1;
  print_report(rep);
}

}  // namespace

void setup_serve(CLI::App& app) {
  auto f = std::make_shared<ServeFlags>();
  auto* cmd = app.add_subcommand("serve", "Price serving a model: replicas, latency, cost per 1M output tokens and per request");
  cmd->footer(R"(Examples:
  gpuplan serve --model llama-3.1-8b --requests-per-second 5 --prompt-tokens 512 --output-tokens 256
  gpuplan serve --model llama-3.1-8b --requests-per-second 5 --quant int4-awq --tpot 50ms --ttft-p95 500ms --gpu l4
  gpuplan serve --model qwen2.5-7b --requests-per-day 20000 --peak-factor 3 --scale-to-zero --currency INR
  gpuplan serve --route small=llama-3.2-3b:70%,large=llama-3.1-70b --requests-per-second 2 --tpot 60ms)");
  add_serve_options(*cmd, *f);
  add_common_options(*cmd);
  cmd->callback([f] { run_serve(*f); });
}

}  // namespace gpuplan::cli
