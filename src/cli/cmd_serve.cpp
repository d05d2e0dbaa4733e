// gpuplan serve: what serving a model costs. For every offer in the loaded price sheets (and
// an optional CPU box from flags): the replicas a traffic level needs at the latency target,
// their utilisation, tokens/s per GPU, and the cost per million output tokens and per request,
// idle capacity included. --route prices a traffic split across models. The search is
// search_serving (src/core/serving_offers.cpp); rendering is src/io/render/serve_render.cpp.
#include <algorithm>
#include <memory>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/format_values.hpp"
#include "cli/model_source.hpp"
#include "cli/run_flags.hpp"
#include "cli/serve_inputs.hpp"
#include "gpuplan/memory.hpp"
#include "gpuplan/serving.hpp"
#include "io/render/serve_render.hpp"

namespace gpuplan::cli {
namespace {

using nlohmann::json;

struct RouteResult {
  Route route;
  ResolvedModel model;
  ServingSearch search;
  const ServingOption* best = nullptr;  // the cheapest option meeting the targets
};

// The offers the filters leave, each with its rate into the display currency, and the CPU box.
std::vector<ServingCandidate> candidates(const Catalog& catalog, const ServeFlags& f, const Setup& s, const CpuBox& cpu) {
  const OfferFilter filter = build_offer_filter(f.filter, catalog);
  // A replica runs on one instance: --max-gpus bounds the GPUs one instance bills.
  Workload one = s.cfg.workload;
  one.gpus = 1;
  RunSpec fixed = s.run.spec;
  fixed.gpus_fixed = true;
  std::vector<ServingCandidate> out;
  for (const Provider& p : catalog.providers) {
    for (const Offer& o : p.offers) {
      if (!offer_matches(filter, p, o, one, fixed)) continue;
      if (const auto g = catalog.find_gpu(o.gpu); g.found)
        out.push_back({&p, &o, g.found, to_display(1.0, p.currency, s.run, p.where)});
    }
  }
  if (cpu.given)
    out.push_back({&cpu.provider, &cpu.provider.offers.front(), &cpu.gpu,
                   to_display(1.0, cpu.provider.currency, s.run, cpu.provider.where)});
  return out;
}

ServingJob job_for(const Route& route, const ResolvedModel& rm, const Setup& s, const ServeFlags& f) {
  const ModelArch& m = rm.arch;
  if (f.tensor_parallel > 0 && m.attention_heads % f.tensor_parallel != 0)
    bad_flag("--tensor-parallel", std::to_string(f.tensor_parallel) + " does not divide " + m.id + "'s " +
                                      std::to_string(m.attention_heads) + " attention heads");
  ServingJob j{.model = m,
               .params = count_params(m),
               .cfg = s.cfg,
               .req = s.req,
               .targets = s.targets,
               .traffic = s.traffic,
               .scaling = s.scaling,
               .bill = s.run.spec.bill,
               .tensor_parallel = f.tensor_parallel,
               .cold_start_seconds = s.cold_start,
               .node_shape = s.run.spec.node_shape};
  j.traffic.mean_requests_per_second *= route.share;
  return j;
}

std::vector<Route> routes_of(const ServeFlags& f) {
  if (f.route.empty()) return {{"all", "", 1.0}};
  if (!f.model.model.empty() || !f.model.model_config.empty() || !f.model.safetensors.empty() || !f.model.params.empty())
    bad_flag("--route", "names its own models: leave out --model, --model-config, --safetensors and --params");
  return parse_routes(f.route);
}

json opt_json(const std::optional<double>& v) { return v ? json(*v) : json(); }

void add_inputs_json(Report& rep, const ServeFlags& f, const Setup& s) {
  rep.json["traffic"] = {{"requests_per_second_mean", s.traffic.mean_requests_per_second},
                         {"requests_per_second_peak", s.traffic.mean_requests_per_second * s.traffic.peak_factor},
                         {"peak_factor", s.traffic.peak_factor},
                         {"prompt_tokens", s.req.prompt_tokens},
                         {"output_tokens", s.req.output_tokens},
                         {"shared_prefix_tokens", s.req.shared_prefix_tokens},
                         {"ttft_p95_target_seconds", opt_json(s.targets.ttft_seconds)},
                         {"tpot_target_seconds", opt_json(s.targets.tpot_seconds)}};
  rep.json["serving"] = {{"quant", f.quant},
                         {"kv_cache_dtype", kv_cache_dtype_name(s.cfg.workload)},
                         {"batching", to_string(s.cfg.batching)},
                         {"memory_utilization", s.cfg.k.memory_utilization},
                         {"max_batch", s.cfg.k.max_batch},
                         {"scaling", !s.scaling.autoscale ? "fixed" : s.scaling.min_replicas == 0 ? "scale-to-zero" : "autoscale"},
                         {"min_replicas", s.scaling.autoscale ? json(s.scaling.min_replicas) : json()}};
  rep.json["currency"] = s.run.currency;
  rep.json["offers"] = json::array();
  rep.json["routes"] = json::array();
  rep.json["excluded"] = json::array();
}

std::string route_title(const RouteResult& res, const ServeFlags& f, const Setup& s) {
  const std::string who = res.model.arch.name.empty() ? res.model.arch.id : res.model.arch.name;
  return (f.route.empty() ? "" : "Route " + res.route.name + " (" + num(100 * res.route.share, 0) + "%): ") + who + ", " +
         (f.quant == "native" ? std::string("16-bit") : f.quant) + ", KV " + kv_cache_dtype_name(s.cfg.workload) + ", " +
         io::rate_text(s.traffic.mean_requests_per_second * res.route.share) +
         (s.traffic.peak_factor > 1 ? " (peak x" + num(s.traffic.peak_factor, 1) + ")" : "");
}

// Why a route has no answer, in words: no offer hosts the model, traffic beyond any fleet, or latency.
std::string no_answer(const RouteResult& res) {
  const ServingSearch& sr = res.search;
  if (!sr.options.empty()) return "no offer meets the latency target: " + sr.options.front().fleet.latency_why;
  const auto beyond = std::find_if(sr.excluded.begin(), sr.excluded.end(),
                                   [](const ServingExclusion& e) { return e.refusal == ServingRefusal::beyond_fleet; });
  if (beyond != sr.excluded.end())
    return "the traffic is beyond any sane fleet on every offer that hosts the model (" + beyond->where.offer->key() + ": " +
           beyond->why + "); split it, lower it, or shorten the requests";
  return "no offer meets the latency target (nothing can host the model; --explain lists why)";
}

void add_route(Report& rep, const RouteResult& res, const ServeFlags& f, const Setup& s, io::MoneyStyle style) {
  const bool routed = !f.route.empty();
  const io::ServeRowContext ctx{res.route.name, to_string(s.run.spec.bill.pricing), s.run.currency,
                                s.scaling.autoscale && s.scaling.min_replicas == 0};
  const auto& opts = res.search.options;
  const std::vector<ServingOption> shown(opts.begin(), opts.begin() + std::min<std::size_t>(opts.size(), f.top));
  for (const ServingOption& r : shown) rep.json["offers"].push_back(io::serving_option_json(r, ctx));
  for (const auto& e : res.search.excluded)
    rep.json["excluded"].push_back({{"route", res.route.name}, {"offer", e.where.offer->key()}, {"why", e.why}});
  rep.json["routes"].push_back({{"route", res.route.name},
                                {"share", res.route.share},
                                {"model", {{"id", res.model.arch.id}, {"name", res.model.arch.name}, {"source", res.model.source}}},
                                {"best", res.best ? io::serving_option_json(*res.best, ctx) : json()},
                                {"roofline", io::roofline_json(res.search)}});
  rep.tables.push_back(io::serving_options_table(shown, route_title(res, f, s), s.run.currency, style));
  if (!res.search.roofline.empty() && !routed) rep.tables.push_back(io::roofline_table(res.search));
  if (f.explain && !res.search.excluded.empty()) rep.tables.push_back(io::serving_excluded_table(res.search));
  const std::string prefix = routed ? "route " + res.route.name + ": " : "";
  if (!res.best) rep.notes.push_back(prefix + no_answer(res));
  else if (res.best->fleet.utilization < 0.3)
    rep.notes.push_back(prefix + "the cheapest fleet is " + num(100 * res.best->fleet.utilization, 0) +
                        "% utilised: most paid hours are idle capacity" +
                        (s.scaling.autoscale ? "" : " (--autoscale or --scale-to-zero bills less at low traffic)"));
  for (const auto& a : res.model.assumptions) rep.notes.push_back("assumed: " + a);
}

// The routes' cheapest options together; null unless every route has one.
void add_combined(Report& rep, const std::vector<RouteResult>& results, const ServeFlags& f, const Setup& s, io::MoneyStyle style) {
  double month = 0, tokens = 0, requests = 0;
  for (const RouteResult& res : results) {
    if (!res.best) {
      rep.json["combined"] = json();
      return;
    }
    month += res.best->cost.per_month;
    tokens += res.best->fleet.output_tokens_per_month;
    requests += res.best->fleet.requests_per_month;
  }
  rep.json["combined"] = {{"cost_per_month", month},
                          {"cost_per_million_output_tokens", tokens > 0 ? month / tokens * 1e6 : 0.0},
                          {"cost_per_request", requests > 0 ? month / requests : 0.0}};
  if (!f.route.empty())
    rep.notes.push_back("routed total: " + io::serving_money(month, s.run.currency, style) + " " + s.run.currency + " a month, " +
                        io::serving_money(month / tokens * 1e6, s.run.currency, style) + " per 1M output tokens, " +
                        io::serving_money(month / requests, s.run.currency, style) +
                        " per request (each route's cheapest offer)");
}

void add_notes(Report& rep, const ServeFlags& f, const Setup& s, bool cpu_given) {
  if (f.quant != "native")
    rep.notes.push_back(f.quant + " weights: quality must be checked on your own evaluation set; gpuplan models speed and memory, not accuracy");
  if (!f.rpd.empty() && s.traffic.peak_factor == 1) rep.notes.push_back("sized for the daily mean rate: give --peak-factor for busy hours");
  rep.notes.push_back("tok/s/GPU at the max batch; TTFT and TPOT at the peak rate (p95: M/M/c queue, Poisson concurrency); "
                      "costs include idle capacity at the mean rate");
  if (cpu_given) rep.notes.push_back("the CPU box uses the GPU constants (bandwidth 75%, compute 65%): no measured CPU case backs them");
  if (s.run.currency != "USD" || s.run.fx.as_of == "--fx") rep.notes.push_back("exchange rates as of " + s.run.fx.as_of);
}

// The stale-price and mixed-tax warnings every pricing command gives, for the sheets shown.
void add_price_warnings(const Context& ctx, Report& rep, const std::vector<RouteResult>& results, const Setup& s, std::size_t top) {
  std::vector<const Provider*> sheets;
  for (const RouteResult& res : results)
    for (std::size_t i = 0; i < res.search.options.size() && i < top; ++i)
      if (res.search.options[i].where.provider->id != "cpu-box") sheets.push_back(res.search.options[i].where.provider);
  const std::vector<std::string> warnings = price_warnings(sheets, s.run);
  for (const auto& w : warnings) ctx.warn(w);
  rep.json["warnings"] = warnings;
}

int run_serve(const Context& ctx, const ServeFlags& f) {
  const Setup s = build_setup(ctx, f);
  if (f.top < 1) bad_flag("--top", "expected 1 or more");
  const std::vector<Route> routes = routes_of(f);
  const CpuBox cpu = cpu_box(f);
  const std::vector<ServingCandidate> offers = candidates(ctx.catalog(), f, s, cpu);
  std::vector<RouteResult> results;
  for (const Route& r : routes) {
    const ResolvedModel rm = resolve_model(ctx, r.model.empty() ? f.model : ModelSourceOptions{r.model, "", "", ""});
    results.push_back({r, rm, search_serving(job_for(r, rm, s, f), offers)});
  }
  Report rep;
  add_inputs_json(rep, f, s);
  bool all_met = true;
  for (RouteResult& res : results) {
    for (const ServingOption& o : res.search.options)
      if (o.fleet.meets_latency) {
        res.best = &o;
        break;
      }
    all_met = all_met && res.best;
    add_route(rep, res, f, s, ctx.money_style());
  }
  add_combined(rep, results, f, s, ctx.money_style());
  add_notes(rep, f, s, cpu.given);
  add_price_warnings(ctx, rep, results, s, static_cast<std::size_t>(f.top));
  ctx.print_report(rep);
  return all_met ? 0 : 1;
}

}  // namespace

void setup_serve(CLI::App& app, Context& ctx) {
  auto f = std::make_shared<ServeFlags>();
  auto* cmd = app.add_subcommand("serve", "Price serving a model: replicas, latency, cost per 1M output tokens and per request");
  cmd->footer(R"(Examples:
  gpuplan serve --model llama-3.1-8b --requests-per-second 5 --prompt-tokens 512 --output-tokens 256
  gpuplan serve --model llama-3.1-8b --requests-per-second 5 --quant int4-awq --tpot 50ms --ttft-p95 500ms --gpu l4
  gpuplan serve --model qwen2.5-7b --requests-per-day 20000 --peak-factor 3 --scale-to-zero --currency INR
  gpuplan serve --route small=llama-3.2-3b:70%,large=llama-3.1-70b --requests-per-second 2 --tpot 60ms)");
  add_serve_options(*cmd, *f);
  add_common_options(*cmd, ctx, kCatalogs | kProfile);
  on_parsed(*cmd, ctx, [&ctx, f] { return run_serve(ctx, *f); });
}

}  // namespace gpuplan::cli
