// gpuplan buy-vs-rent: the total cost of owning GPUs against renting the same work, with the
// break-even, payback, the hybrid curve (own a baseline, burst to the cloud), reserved
// commitments, sensitivity with flip points, and cumulative cost over the horizon. The decisions
// are analyse_tco (src/core/tco_analysis.cpp); rendering is src/io/render/tco_render.cpp.
#include <algorithm>
#include <memory>

#include "cli/buy_vs_rent_inputs.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "gpuplan/tco_analysis.hpp"
#include "gpuplan/tco_defaults.hpp"
#include "io/render/tco_render.hpp"

namespace gpuplan::cli {
namespace {

io::TcoContext context_of(const BuyVsRentSetup& s) {
  io::TcoContext c;
  c.gpu = s.gpu->id;
  c.rented_gpu = s.rented_gpu->id;
  c.currency = s.run.currency;
  c.hours_per_month = s.hours_per_month;
  c.demand_source = s.demand_source;
  if (s.profile) {
    c.profile_periods = static_cast<int>(s.profile->gpu_hours.size());
    c.profile_period = s.profile->period;
  }
  c.defaults = s.defaults;
  c.rented_equivalent = s.rented_gpu != s.gpu;
  c.swing = tco_defaults::kSensitivitySwing;
  if (s.log) {
    c.jobs = s.log->jobs;
    c.peak_gpus = s.log->peak_gpus;
  }
  return c;
}

int run_buy_vs_rent(const Context& ctx, const BuyVsRentFlags& f) {
  const BuyVsRentSetup s = build_buy_vs_rent(ctx, f);
  const TcoAnalysis a = analyse_buy_vs_rent(s).a;
  const io::TcoContext c = context_of(s);
  const io::MoneyStyle style = ctx.money_style();
  const std::vector<std::string> reasons = io::tco_reasons(s.in, a, c, style);
  Report r;
  r.json = io::tco_json(s.in, a, c, io::tco_reasons(s.in, a, c, io::kJsonMoney));  // JSON whatever --grouping
  r.json["purchase"] = io::purchase_json(s.purchase);
  std::vector<std::string> warnings = s.price_warnings;
  for (const auto& w : io::stand_in_texts(s.purchase.warnings, io::kJsonMoney)) warnings.push_back(w);
  r.json["warnings"] = warnings;
  for (const auto& w : s.price_warnings) ctx.warn(w);
  r.csv = io::tco_series_table(s.in, a, c);
  for (auto& t : io::tco_tables(s.in, a, c, reasons, style)) r.tables.push_back(std::move(t));
  // The purchase lines right after the verdict and monthly tables, when there is tax, duty or
  // a stand-in figure to show (a US buyer at list prices has neither).
  if (s.purchase.gst_rate > 0 || !s.purchase.warnings.empty())
    r.tables.insert(r.tables.begin() + std::min<std::ptrdiff_t>(static_cast<std::ptrdiff_t>(r.tables.size()), 2),
                    io::purchase_table(s.purchase, c.currency, style));
  for (const auto& w : io::stand_in_texts(s.purchase.warnings, style)) ctx.warn(w);
  const bool rates = c.currency != "USD" || s.run.fx.as_of == "--fx";
  r.notes = io::tco_notes({s.purchase.country, s.purchase.warnings, s.demand_notes, s.notes, !s.log, s.purchase.sources, s.defaults,
                           rates ? s.run.fx.as_of : ""},
                          style);
  ctx.print_report(r);
  return 0;
}

}  // namespace

void setup_buy_vs_rent(CLI::App& app, Context& ctx) {
  auto f = std::make_shared<BuyVsRentFlags>();
  auto* cmd = app.add_subcommand("buy-vs-rent", "Own GPUs or rent them: total cost, break-even, hybrid and sensitivity");
  cmd->footer(R"(Examples:
  gpuplan buy-vs-rent --gpu rtx-4090 --gpu-hours-per-month 300
  gpuplan buy-vs-rent --gpu rtx-4090 --utilization 90% --uncertainty ±40% --power-price 0.30/kWh
  gpuplan buy-vs-rent --gpu h100-sxm --count 8 --utilization 70% --gpu-price 25000 --rest-of-machine 100000
  gpuplan buy-vs-rent --gpu rtx-4090 --demand usage.csv --offer runpod/rtx-4090-x1 --horizon 2y
  gpuplan buy-vs-rent --gpu rtx-4090 --gpu-hours-per-month 400 --currency INR --power-price 8INR/kWh
  gpuplan buy-vs-rent --gpu rtx-4090 --gpu-hours-per-month 400 --buyer-country IN --input-tax-credit
  gpuplan buy-vs-rent --gpu a100-80gb-sxm --demand jobs.txt --gpu-price 1500000INR --buyer-country IN --country IN

Demand files: a job log (as gpuplan demand reads: its jobs are replayed whole, as replay does);
CSV "day,gpu_hours" (or week, gpus) with one row per period, dates or running numbers without
gaps; or YAML "period: day" and a "gpu_hours:" (or "gpus:") list.)");
  add_buy_vs_rent_options(*cmd, *f);
  add_common_options(*cmd, ctx, kCatalogs);
  on_parsed(*cmd, ctx, [&ctx, f] { return run_buy_vs_rent(ctx, *f); });
}

}  // namespace gpuplan::cli
