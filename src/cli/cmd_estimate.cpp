// gpuplan estimate: per-GPU memory, component by component, and where the job fits.
#include <algorithm>
#include <cmath>
#include <memory>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/format_values.hpp"
#include "cli/model_source.hpp"
#include "cli/owned_offer.hpp"
#include "cli/run_flags.hpp"
#include "cli/uncertainty.hpp"
#include "cli/workload_flags.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/memory.hpp"
#include "gpuplan/memory_advice.hpp"
#include "gpuplan/name_match.hpp"
#include "gpuplan/units.hpp"
#include "io/render/estimate_report.hpp"
#include "io/render/exclusion_text.hpp"
#include "io/render/price_warning_text.hpp"

namespace gpuplan::cli {
namespace {

struct EstimateFlags {
  WorkloadFlags workload;
  RunFlags run;
  OfferFlags filter;
  OwnedOfferFlags owned;
  std::vector<std::string> gpu_names;
  int cost_rows = 5;
};

// Time on the one GPU asked for, over its own links, when no offer in the sheets lists it.
io::EstimateTime time_only(const Context& ctx, const EstimateFlags& f, const ModelArch& m, const ParamCounts& pc,
                           const Workload& w, const RunSettings& run, const Gpu& gpu) {
  // Without an offer the GPUs sit in one machine on the GPU's own link, as an offer of that many
  // would, placed by the engine's job_links: --node-shape restates the machine, --nodes spreads
  // the job across a network.
  if (f.run.nodes > 0 && w.gpus % f.run.nodes != 0) bad_flag("--nodes", "must divide --gpus");
  Offer box;
  box.gpus = std::max(1, w.gpus);
  const Links links = job_links(w, box, gpu, run.spec);
  if (is_training(w.method) && network_assumed(w.gpus, links))
    ctx.warn("the job spans " + std::to_string((w.gpus + links.gpus_per_node - 1) / links.gpus_per_node) +
         " machines of " + gpu.id + " and no network is known: 10 GbE (1.25 GB/s per machine) assumed, slow; give --network");
  const PreparedJob job = prepare_job(m, pc, w, run.spec, run.spec.grad_accum);
  return {estimate_step_time(m, pc, w, run.spec.grad_accum, gpu, links, job.time), gpu.id, std::nullopt};
}

// Nothing priced: say why in the job's terms (does not fit, no such price), not "no offer".
std::string unpriced_reason(const OfferSet& set, const RunSettings& run) {
  const auto fit = std::find_if(set.excluded.begin(), set.excluded.end(), [](const PricedOffer& p) { return p.eval.fits; });
  const PricedOffer& why = fit != set.excluded.end() ? *fit : set.excluded.front();
  return "no offer can run this job: " + io::exclusion_text(why.eval, *why.gpu, run.spec.bill.pricing) + " (" +
         std::to_string(set.excluded.size()) + " offers checked; gpuplan compare --explain lists each)";
}

// The cost side: the chosen offers (--offer, --provider, --gpu), or the cheapest that fit.
// Returns the exit code: 1 when the best misses the budget or deadline, or nothing can run it.
int price_offers(const Context& ctx, const EstimateFlags& f, const ModelArch& m, const ParamCounts& pc, const std::vector<const Gpu*>& gpus,
                  std::optional<OwnedOffer>& owned, io::EstimateReport& r) {
  const Workload& w = r.workload;
  r.run = build_run_settings(ctx, f.run, w);
  r.run.spec.gpus_fixed = f.workload.gpus_given;  // as compare, check and plan price it
  owned = build_owned_offer(ctx, f.owned, r.run);
  OfferFlags flags = f.filter;
  if (!f.gpu_names.empty())
    for (const Gpu* g : gpus) flags.gpus.push_back(g->id);
  OfferSet set = evaluate_offers(ctx.catalog(), m, pc, w, r.run, build_offer_filter(flags, ctx.catalog()));
  if (owned && !add_owned_offer(set, *owned, m, pc, w, r.run))
    r.cost_notes.push_back(owned->offer().key() + " cannot run this job on its " + count_of(owned->gpus, "GPU"));
  rank_offers(set.priced, false);
  collapse_regions(set.priced);
  for (const auto& msg : io::price_warning_texts(price_warnings(set.priced, r.run))) ctx.warn(msg);
  if (f.cost_rows < 1) bad_flag("--cost-rows", "expected 1 or more");
  const std::size_t rows = f.filter.offers.empty() ? static_cast<std::size_t>(f.cost_rows) : set.priced.size();
  r.offers.assign(set.priced.begin(), set.priced.begin() + static_cast<std::ptrdiff_t>(std::min(rows, set.priced.size())));
  if (owned) keep_owned_shown(r.offers, set.priced, *owned);
  r.offers_title = f.filter.offers.empty() ? "Cheapest offers that fit" : "Chosen offers";
  if (const PricedOffer* best = best_offer(r.offers)) {
    r.time = io::EstimateTime{best->eval.time, best->offer->gpu,
                              best->eval.cost ? std::optional<double>(best->eval.cost->wall_seconds) : std::nullopt};
    if ((r.run.budget || r.run.spec.bill.deadline_seconds) && !best->meets_limits()) return 1;
  } else if (!set.excluded.empty()) {
    r.cost_notes.push_back(unpriced_reason(set, r.run));
    return 1;  // as compare, plan and serve: nothing can run this job is a "no"
  } else if (gpus.size() == 1 && is_training(w.method)) {
    r.time = time_only(ctx, f, m, pc, w, r.run, *gpus.front());
  }
  return 0;
}

std::vector<io::GpuFit> fits_on(const ModelArch& m, const ParamCounts& pc, const Workload& w, double total,
                                const std::vector<const Gpu*>& gpus) {
  std::vector<io::GpuFit> fits;
  for (const Gpu* g : gpus) {
    const double cap = static_cast<double>(g->usable_bytes());
    fits.push_back({g, total <= cap, max_micro_batch(m, pc, w, cap)});
  }
  return fits;
}

// Ways out, sized against the one GPU asked for, or the largest that misses.
void add_advice(const EstimateFlags& f, const ModelArch& m, const ParamCounts& pc, const std::vector<const Gpu*>& gpus,
                io::EstimateReport& r) {
  if (f.gpu_names.size() > 1) return;
  const double total = r.memory.per_gpu_bytes();
  for (const Gpu* g : gpus)
    if (total > static_cast<double>(g->usable_bytes()) && (!r.advice_gpu || g->memory_bytes > r.advice_gpu->memory_bytes)) r.advice_gpu = g;
  if (r.advice_gpu) r.advice = advise_memory(m, pc, r.workload, static_cast<double>(r.advice_gpu->usable_bytes()));
}

// The GPUs to check: those asked for (each must run the job's precision), or every one.
std::vector<const Gpu*> gpus_to_check(const Catalog& catalog, const EstimateFlags& f, const Workload& w) {
  std::vector<const Gpu*> gpus;
  for (const auto& n : f.gpu_names) {
    const Gpu& g = resolve_gpu(catalog, n);
    if (peak_tflops(g, w.precision) <= 0)
      bad_flag("--precision", g.id + " has no " + to_string(w.precision) + " tensor throughput in the catalog; choose another precision or GPU");
    gpus.push_back(&g);
  }
  if (gpus.empty())
    for (const auto& g : catalog.gpus) gpus.push_back(&g);
  return gpus;
}

int run_estimate(const Context& ctx, const EstimateFlags& f) {
  const ResolvedModel rm = resolve_model(ctx, f.workload.model);
  const ModelArch& m = rm.arch;
  const ParamCounts pc = count_params(m);
  io::EstimateReport er;
  er.model_id = m.id;
  er.model_name = m.name;
  er.model_source = rm.source;
  er.assumptions = rm.assumptions;
  er.workload = build_workload(ctx, f.workload, m);
  er.memory = estimate_memory(m, pc, er.workload);
  const double total = er.memory.per_gpu_bytes();
  // Byte counts are printed as exact integers; refuse inputs whose totals would not fit one
  // (an exabyte per GPU is no real job) rather than wrap.
  constexpr double kMaxReportableBytes = 1e18;
  if (!(total < kMaxReportableBytes) || !(er.memory.cpu_bytes < kMaxReportableBytes))
    bad_flag("--micro-batch", "the job needs more than 10^18 bytes per GPU; check --micro-batch, --seq-len and the model");
  const std::vector<const Gpu*> gpus = gpus_to_check(ctx.catalog(), f, er.workload);
  er.fits = fits_on(m, pc, er.workload, total, gpus);
  add_advice(f, m, pc, gpus, er);
  std::optional<OwnedOffer> owned;
  const int code = price_offers(ctx, f, m, pc, gpus, owned, er);
  Report r{io::estimate_json(er), io::estimate_tables(er, ctx.money_style()), io::estimate_notes(er), {}};
  if (owned) {
    r.json["owned"] = io::owned_json(owned_block(*owned));
    for (const auto& n : io::owned_notes(owned_block(*owned), ctx.money_style())) r.notes.push_back(n);
  }
  io::ErrorBars bars = model_bands(ctx, er.workload.method == Method::inference);
  bars.per_gpu_bytes = total;
  if (er.time) bars.tokens_per_second = er.time->step.tokens_per_second;
  r.json["error_bars"] = io::error_bars_json(bars);
  for (auto& n : io::error_bars_notes(bars)) r.notes.push_back(std::move(n));
  ctx.print_report(r);
  return code;
}

}  // namespace

void setup_estimate(CLI::App& app, Context& ctx) {
  auto f = std::make_shared<EstimateFlags>();
  auto* cmd = app.add_subcommand("estimate", "Estimate per-GPU memory and where a job fits");
  cmd->footer(R"(Examples:
  gpuplan estimate --model llama-3.1-8b --method qlora --gpu rtx-4090
  gpuplan estimate --model qwen2.5-7b --method full --gpus 8 --sharding zero3 --checkpointing full
  gpuplan estimate --model-config ./config.json --method inference --micro-batch 16 --seq-len 8192
  gpuplan estimate --params 7B --method lora --format json
  gpuplan estimate --model llama-3.1-8b --method qlora --tokens 200M --owned rtx-4090 --owned-utilization 30%)");
  add_workload_options(*cmd, f->workload);
  add_run_options(*cmd, f->run);
  add_offer_filter_options(*cmd, f->filter, false);
  cmd->add_option("--top", f->cost_rows, "How many of the cheapest offers to show")->capture_default_str();
  cmd->add_option("--cost-rows", f->cost_rows, "Old spelling of --top")->group("");  // hidden alias
  cmd->add_option("--gpu", f->gpu_names, "GPU to check (repeatable; default: every GPU in the catalogs)");
  add_owned_offer_options(*cmd, f->owned);
  add_common_options(*cmd, ctx, kCatalogs | kProfile);
  on_parsed(*cmd, ctx, [&ctx, f] { return run_estimate(ctx, *f); });
}

}  // namespace gpuplan::cli
