// gpuplan compare: every offer in the loaded price sheets that can run the workload, ranked
// by cost or time, with the Pareto front marked and exclusions explained.
#include <algorithm>
#include <memory>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/format_values.hpp"
#include "cli/model_source.hpp"
#include "cli/run_flags.hpp"
#include "cli/workload_flags.hpp"
#include "io/offer_report.hpp"
#include "io/shipped_data.hpp"

namespace gpuplan::cli {
namespace {

struct CompareFlags {
  WorkloadFlags workload;
  RunFlags run;
  OfferFlags filter;
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

Sheets load_sheets(const std::vector<std::string>& paths) {
  Sheets s;
  s.catalog = catalog();
  s.catalog.providers.clear();
  for (const auto& path : paths) {
    // The sheet is read the way --catalog reads it (YAML or SkyPilot CSV); keep its providers.
    std::vector<std::string> notices;
    Catalog one = io::load_catalogs({path}, &notices);
    for (const auto& n : notices) warn(n);
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

// Side by side: each sheet's best offer, and how far the others are from the best.
void add_sheet_table(const std::vector<std::string>& paths, const Sheets& sheets, const OfferSet& set, const RunSettings& run,
                     Report& r) {
  io::Table side;
  side.title = "Sheets side by side (best offer of each)";
  side.columns = {"sheet", "provider", "offer", "per_1M_tok", "total", "vs best"};
  side.align = {io::Align::left, io::Align::left, io::Align::left, io::Align::right, io::Align::right, io::Align::right};
  r.json["sheets"] = nlohmann::json::array();
  const PricedOffer* best = set.priced.empty() ? nullptr : &set.priced.front();
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const auto& ids = sheets.providers[i];
    const auto it = std::find_if(set.priced.begin(), set.priced.end(), [&](const PricedOffer& p) {
      return std::find(ids.begin(), ids.end(), p.provider->id) != ids.end();
    });
    if (it == set.priced.end()) {
      side.rows.push_back({paths[i], ids.front(), "-", "-", "-", "nothing fits"});
      r.json["sheets"].push_back({{"sheet", paths[i]}, {"best", nullptr}});
      continue;
    }
    const double diff = best ? it->sort_cost() - best->sort_cost() : 0;
    const double pct = best && best->sort_cost() > 0 ? 100 * diff / best->sort_cost() : 0;
    side.rows.push_back({paths[i], it->provider->id, it->offer->id, num(it->per_million_tokens, 2), it->total ? num(*it->total, 2) : "-",
                         diff == 0 ? "best" : "+" + num(diff, 2) + " (+" + num(pct, 0) + "%)"});
    r.json["sheets"].push_back({{"sheet", paths[i]}, {"best", io::offer_json(*it, run)}, {"difference", diff}});
  }
  r.tables.push_back(side);
}

void add_outcome_notes(const CompareFlags& f, const OfferSet& set, const RunSettings& run, Report& r) {
  if (set.priced.empty()) {
    r.notes.push_back("no offer can run this job" + std::string(f.explain ? "" : " (--explain lists why)"));
    exit_code() = 1;
  } else if ((run.budget || run.spec.bill.deadline_seconds) && !best_offer(set.priced)->meets_limits()) {
    r.notes.push_back("no offer meets the budget and deadline");
    exit_code() = 1;
  }
  if (!run.has_work()) r.notes.push_back("no run size given (--tokens, --steps or --dataset-tokens): costs are per step and per million tokens");
  r.notes.push_back(std::to_string(set.priced.size()) + " offers priced, " + std::to_string(set.excluded.size()) + " excluded" +
                    (f.explain ? "" : " (--explain lists them)") + "; * = on the cost/time Pareto front");
  if (run.currency != "USD" || run.fx.as_of == "--fx") r.notes.push_back("exchange rates as of " + run.fx.as_of);
}

void run_compare(const CompareFlags& f) {
  const ResolvedModel rm = resolve_model(f.workload.model);
  const ModelArch& m = rm.arch;
  const Workload w = build_workload(f.workload, m);
  RunSettings run = build_run_settings(f.run, w);
  run.spec.gpus_fixed = f.workload.gpus_given;
  if (f.sort != "cost" && f.sort != "time") bad_choice("--sort", f.sort, "cost, time");
  if (f.top < 1) bad_flag("--top", "expected 1 or more");
  const Sheets sheets = f.sheets.empty() ? Sheets{} : load_sheets(f.sheets);
  const Catalog& c = f.sheets.empty() ? catalog() : sheets.catalog;

  OfferSet set = evaluate_offers(c, m, count_params(m), w, run, build_offer_filter(f.filter, c));
  rank_offers(set.priced, f.sort == "time");
  collapse_regions(set.priced);
  for (const auto& w : price_warnings(set.priced, run)) warn(w);
  const std::vector<PricedOffer> shown(set.priced.begin(), set.priced.begin() + std::min<std::ptrdiff_t>(f.top, std::ssize(set.priced)));

  Report r;
  r.json["model"] = {{"id", m.id}, {"name", m.name}, {"source", rm.source}};
  r.json["sort"] = f.sort;
  r.json["currency"] = run.currency;
  r.json["offers"] = nlohmann::json::array();
  for (const auto& p : shown) r.json["offers"].push_back(io::offer_json(p, run));
  r.json["excluded"] = io::excluded_json(set.excluded, run.spec.bill.pricing);
  const std::string what = m.name + ", " + to_string(w.method) + ", " + to_string(run.spec.bill.pricing);
  r.tables.push_back(io::offers_table(shown, run, w, "Offers by " + f.sort + ": " + what));
  if (!f.sheets.empty()) add_sheet_table(f.sheets, sheets, set, run, r);
  if (f.explain && !set.excluded.empty()) r.tables.push_back(io::excluded_table(set.excluded, run.spec.bill.pricing));
  for (const auto& n : io::offer_notes(shown, w, run.spec.gpus_fixed, run)) r.notes.push_back(n);
  add_outcome_notes(f, set, run, r);
  for (const auto& a : rm.assumptions) r.notes.push_back("assumed: " + a);
  print_report(r);
}

}  // namespace

void setup_compare(CLI::App& app) {
  auto f = std::make_shared<CompareFlags>();
  auto* cmd = app.add_subcommand("compare", "Rank every offer that can run a job by cost or time");
  cmd->footer(R"(Examples:
  gpuplan compare --model llama-3.1-8b --method qlora --tokens 200M
  gpuplan compare --model llama-3.1-8b --method lora --tokens 1B --pricing spot --deadline 2d --budget 300
  gpuplan compare --model qwen2.5-7b --method full --tokens 2B --currency INR --region india
  gpuplan compare --model llama-3.1-8b --method lora --tokens 1B --sheet a.yaml --sheet b.csv)");
  add_workload_options(*cmd, f->workload);
  add_run_options(*cmd, f->run);
  add_offer_filter_options(*cmd, f->filter);
  cmd->add_option("--sort", f->sort, "cost | time")->capture_default_str();
  cmd->add_option("--top", f->top, "Show the best K offers")->capture_default_str();
  cmd->add_option("--sheet", f->sheets, "Price only on these sheets (YAML or SkyPilot CSV), side by side (repeatable)");
  cmd->add_flag("--explain", f->explain, "List the offers that cannot run the job, with the reason");
  add_common_options(*cmd);
  cmd->callback([f] { run_compare(*f); });
}

}  // namespace gpuplan::cli
