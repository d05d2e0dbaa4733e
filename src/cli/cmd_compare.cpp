// gpuplan compare: every offer in the loaded price sheets that can run the workload, ranked
// by cost or time, with the Pareto front marked and exclusions explained.
#include <algorithm>
#include <memory>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/format_values.hpp"
#include "cli/model_source.hpp"
#include "cli/owned_offer.hpp"
#include "cli/run_flags.hpp"
#include "cli/workload_flags.hpp"
#include "gpuplan/offer_rows.hpp"
#include "io/render/price_warning_text.hpp"
#include "io/catalogs/shipped_data.hpp"
#include "io/render/compare_report.hpp"

namespace gpuplan::cli {
namespace {

struct CompareFlags {
  WorkloadFlags workload;
  RunFlags run;
  OfferFlags filter;
  OwnedOfferFlags owned;
  std::string sort = "cost";
  std::vector<std::string> sheets;
  int top = 20;
  bool explain = false;
};

// --sheet A --sheet B: the shipped GPUs with only those sheets' providers; per sheet, the
// provider ids it holds.
struct Sheets {
  Catalog catalog;
  std::vector<std::vector<std::string>> providers;
};

Sheets load_sheets(const Context& ctx, const std::vector<std::string>& paths) {
  Sheets s;
  s.catalog = ctx.catalog();
  s.catalog.providers.clear();
  for (const auto& path : paths) {
    // The sheet is read the way --catalog reads it (YAML or SkyPilot CSV); keep its providers.
    std::vector<std::string> notices;
    Catalog one = io::load_catalogs({path}, &notices);
    for (const auto& n : notices) ctx.warn(n);
    Catalog only;
    for (auto& p : one.providers)
      if (p.where.path == path) only.providers.push_back(std::move(p));
    if (only.providers.empty()) bad_flag("--sheet", path + " holds no provider price sheet");
    s.providers.emplace_back();
    for (const auto& p : only.providers) s.providers.back().push_back(p.id);
    for (auto& g : one.gpus)
      if (g.where.path == path) only.gpus.push_back(std::move(g));
    s.catalog.merge(std::move(only));
  }
  return s;
}

// What the report says of the whole ranking: its size, best cost, whether any row meets the
// limits, and the sheets' price warnings (in the order their rows rank, as price_warnings reads).
void summarize(io::CompareReport& cr, const OfferRows& rows) {
  cr.priced = rows.priced.size();
  cr.excluded_count = rows.excluded.size();
  cr.best_cost = rows.priced.empty() ? 0 : rows.priced.front().cost;
  cr.limits_met = std::any_of(rows.priced.begin(), rows.priced.end(), [](const OfferRow& r) { return r.meets_limits; });
  std::vector<const Provider*> sheets;
  for (const auto& r : rows.priced)
    if (std::find(sheets.begin(), sheets.end(), r.provider) == sheets.end()) sheets.push_back(r.provider);
  cr.warnings = price_warnings(sheets, cr.run);
}

int run_compare(const Context& ctx, const CompareFlags& f) {
  const ResolvedModel rm = resolve_model(ctx, f.workload.model);
  const ModelArch& m = rm.arch;
  io::CompareReport cr;
  cr.model_id = m.id;
  cr.model_name = m.name;
  cr.model_source = rm.source;
  cr.assumptions = rm.assumptions;
  cr.sort = f.sort;
  cr.workload = build_workload(ctx, f.workload, m);
  cr.run = build_run_settings(ctx, f.run, cr.workload);
  cr.run.spec.gpus_fixed = f.workload.gpus_given;
  cr.explain = f.explain;
  if (f.sort != "cost" && f.sort != "time") bad_choice("--sort", f.sort, "cost, time");
  if (f.top < 1) bad_flag("--top", "expected 1 or more");
  const Sheets sheets = f.sheets.empty() ? Sheets{} : load_sheets(ctx, f.sheets);
  const Catalog& c = f.sheets.empty() ? ctx.catalog() : sheets.catalog;
  for (std::size_t i = 0; i < f.sheets.size(); ++i) cr.sheets.push_back({f.sheets[i], sheets.providers[i]});

  const std::optional<OwnedOffer> owned = build_owned_offer(ctx, f.owned, cr.run);
  const ParamCounts pc = count_params(m);
  // One compact row per offer (a million-row sheet is a million offers); full rows are built
  // again, by the same evaluation, for the rows printed.
  OfferRows rows = search_offers(c, m, pc, cr.workload, cr.run, build_offer_filter(f.filter, c));
  // The owner's GPUs beside the rented offers, whatever --provider/--region keep of those.
  bool owned_runs = false;
  if (owned) {
    OfferSet mine;
    owned_runs = add_owned_offer(mine, *owned, m, pc, cr.workload, cr.run);
    for (const auto& p : mine.priced) rows.priced.push_back(row_of(p));
    for (const auto& p : mine.excluded) rows.excluded.push_back(row_of(p));
  }
  rank_offers(rows.priced, f.sort == "time");
  collapse_regions(rows.priced);
  summarize(cr, rows);
  for (const auto& w : cr.warnings) ctx.warn(io::price_warning_text(w));
  auto full = [&](const OfferRow& row) { return price_row(row, m, pc, cr.workload, cr.run); };
  const std::size_t top = std::min<std::size_t>(static_cast<std::size_t>(f.top), rows.priced.size());
  for (std::size_t i = 0; i < top; ++i) cr.shown.push_back(full(rows.priced[i]));
  if (owned) {  // kept among the rows shown, though it may rank below --top
    auto mine = [&](const OfferRow& row) { return row.offer == &owned->offer(); };
    const auto it = std::find_if(rows.priced.begin(), rows.priced.end(), mine);
    if (it != rows.priced.end() && it - rows.priced.begin() >= static_cast<std::ptrdiff_t>(top)) cr.shown.push_back(full(*it));
  }
  for (const auto& s : cr.sheets) {
    const auto it = std::find_if(rows.priced.begin(), rows.priced.end(), [&](const OfferRow& row) {
      return std::find(s.provider_ids.begin(), s.provider_ids.end(), row.provider->id) != s.provider_ids.end();
    });
    cr.sheet_best.push_back(it == rows.priced.end() ? std::nullopt : std::optional<PricedOffer>(full(*it)));
  }
  if (ctx.json_output() || f.explain)
    for (const auto& row : rows.excluded) cr.excluded.push_back(full(row));
  Report r;
  if (ctx.json_output()) r.json = io::compare_json(cr);  // only the format asked is built
  else r = Report{{}, io::compare_tables(cr, ctx.money_style()), io::compare_notes(cr), {}};
  if (owned) {
    if (ctx.json_output()) {
      r.json["owned"] = io::owned_json(owned_block(*owned));
      r.json["owned"]["runs_the_job"] = owned_runs;
    }
    for (const auto& n : io::owned_notes(owned_block(*owned), ctx.money_style())) r.notes.push_back(n);
    if (!owned_runs) r.notes.push_back(owned->offer().key() + " cannot run this job (gpuplan estimate --gpu " + owned->gpu().id + " shows why)");
  }
  ctx.print_report(std::move(r));
  return cr.answer_is_no() ? 1 : 0;
}

}  // namespace

void setup_compare(CLI::App& app, Context& ctx) {
  auto f = std::make_shared<CompareFlags>();
  auto* cmd = app.add_subcommand("compare", "Rank every offer that can run a job by cost or time");
  cmd->footer(R"(Examples:
  gpuplan compare --model llama-3.1-8b --method qlora --tokens 200M
  gpuplan compare --model llama-3.1-8b --method lora --tokens 1B --pricing spot --deadline 2d --budget 300
  gpuplan compare --model qwen2.5-7b --method full --tokens 2B --currency INR --region india
  gpuplan compare --model llama-3.1-8b --method lora --tokens 1B --sheet a.yaml --sheet b.csv
  gpuplan compare --model llama-3.1-8b --method qlora --tokens 200M --owned rtx-4090 --owned-utilization 30% --power-price 0.30/kWh)");
  add_workload_options(*cmd, f->workload);
  add_run_options(*cmd, f->run);
  add_offer_filter_options(*cmd, f->filter);
  cmd->add_option("--sort", f->sort, "cost | time")->capture_default_str();
  cmd->add_option("--top", f->top, "Show the best K offers")->capture_default_str();
  cmd->add_option("--sheet", f->sheets, "Price only on these sheets (YAML or SkyPilot CSV), side by side (repeatable)");
  cmd->add_flag("--explain", f->explain, "List the offers that cannot run the job, with the reason");
  add_owned_offer_options(*cmd, f->owned);
  add_common_options(*cmd, ctx, kCatalogs | kProfile);
  on_parsed(*cmd, ctx, [&ctx, f] { return run_compare(ctx, *f); });
}

}  // namespace gpuplan::cli
