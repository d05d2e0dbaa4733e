// gpuplan serve: what serving a model costs. For every offer in the loaded price sheets (and
// an optional CPU box from flags): the replicas a traffic level needs at the latency target,
// their utilisation, tokens/s per GPU, and the cost per million output tokens and per request,
// idle capacity included. --route prices a traffic split across models. The search is
// search_serving (src/core/serving_offers.cpp); rendering is src/io/render/serve_render.cpp.
#include <algorithm>
#include <memory>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/model_source.hpp"
#include "cli/run_flags.hpp"
#include "cli/serve_inputs.hpp"
#include "gpuplan/memory.hpp"
#include "gpuplan/serving.hpp"
#include "gpuplan/serving_routes.hpp"
#include "io/render/price_warning_text.hpp"
#include "io/render/serve_render.hpp"

namespace gpuplan::cli {
namespace {

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

// The stale-price and mixed-tax warnings every pricing command gives, for the sheets shown.
std::vector<std::string> shown_price_warnings(const std::vector<io::ServeRoute>& routes, const RunSettings& run, std::size_t top) {
  std::vector<const Provider*> sheets;
  for (const io::ServeRoute& route : routes)
    for (std::size_t i = 0; i < route.search.options.size() && i < top; ++i)
      if (route.search.options[i].where.provider->id != "cpu-box") sheets.push_back(route.search.options[i].where.provider);
  return io::price_warning_texts(price_warnings(sheets, run));
}

int run_serve(const Context& ctx, const ServeFlags& f) {
  const Setup s = build_setup(ctx, f);
  if (f.top < 1) bad_flag("--top", "expected 1 or more");
  const std::vector<Route> routes = routes_of(f);
  const CpuBox cpu = cpu_box(f);
  const std::vector<ServingCandidate> offers = candidates(ctx.catalog(), f, s, cpu);
  io::ServeReport rep{.traffic = s.traffic, .req = s.req, .targets = s.targets, .cfg = s.cfg, .scaling = s.scaling, .quant = f.quant,
                      .run = s.run, .routes = {}, .routed = !f.route.empty(), .daily_rate = !f.rpd.empty(), .cpu_box = cpu.given,
                      .explain = f.explain, .top = static_cast<std::size_t>(f.top), .price_warnings = {}};
  bool all_met = true;
  for (const Route& r : routes) {
    const ResolvedModel rm = resolve_model(ctx, r.model.empty() ? f.model : ModelSourceOptions{r.model, "", "", ""});
    rep.routes.push_back({r.name, r.share, rm.arch.id, rm.arch.name, rm.source, rm.assumptions, search_serving(job_for(r, rm, s, f), offers)});
    all_met = all_met && best_serving_option(rep.routes.back().search);
  }
  rep.price_warnings = shown_price_warnings(rep.routes, s.run, rep.top);
  for (const auto& w : rep.price_warnings) ctx.warn(w);
  Report out;
  if (ctx.json_output()) out.json = io::serve_json(rep);
  else {
    out.tables = io::serve_tables(rep, ctx.money_style());
    out.notes = io::serve_notes(rep, ctx.money_style());
  }
  ctx.print_report(out);
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
