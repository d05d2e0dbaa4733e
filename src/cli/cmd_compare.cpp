// gpuplan compare: every offer in the loaded price sheets that can run the workload, ranked
// by cost or time, with the Pareto front marked and exclusions explained.
#include <algorithm>
#include <memory>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/format_values.hpp"
#include "cli/model_source.hpp"
#include "cli/offer_rows.hpp"
#include "cli/run_flags.hpp"
#include "cli/workload_flags.hpp"
#include "io/shipped_data.hpp"

namespace gpuplan::cli {
namespace {

struct CompareFlags {
  WorkloadFlags workload;
  RunFlags run;
  std::string sort = "cost";
  std::vector<std::string> providers, gpus, regions, offers, sheets, countries;
  int max_gpus = 0, top = 20;
  bool explain = false;
};

void run_compare(const CompareFlags& f) {
  const ResolvedModel rm = resolve_model(f.workload.model);
  const ModelArch& m = rm.arch;
  const ParamCounts pc = count_params(m);
  const Workload w = build_workload(f.workload, m);
  RunSettings run = build_run_settings(f.run, w);
  run.spec.gpus_fixed = f.workload.gpus_given;
  if (f.sort != "cost" && f.sort != "time") bad_choice("--sort", f.sort, "cost, time");
  if (f.top < 1) bad_flag("--top", "expected 1 or more");
  if (f.max_gpus < 0) bad_flag("--max-gpus", "must not be negative");

  // --sheet A --sheet B: price the same workload on just those sheets, side by side.
  Catalog sheets_catalog;
  const Catalog* c = &catalog();
  std::vector<std::vector<std::string>> sheet_providers;  // per --sheet, the providers it holds
  if (!f.sheets.empty()) {
    sheets_catalog = catalog();
    sheets_catalog.providers.clear();
    for (const auto& path : f.sheets) {
      // The sheet is read the way --catalog reads it (YAML or SkyPilot CSV); keep its providers.
      std::vector<std::string> notices;
      Catalog one = io::load_catalogs({path}, &notices);
      for (const auto& n : notices) warn(n);
      std::vector<Provider> keep;
      for (auto& p : one.providers)
        if (p.where.path == path) keep.push_back(std::move(p));
      if (keep.empty()) bad_flag("--sheet", path + " holds no provider price sheet");
      sheet_providers.emplace_back();
      for (const auto& p : keep) sheet_providers.back().push_back(p.id);
      Catalog only;
      only.providers = std::move(keep);
      for (auto& g : one.gpus)
        if (g.where.path == path) only.gpus.push_back(std::move(g));
      sheets_catalog.merge(std::move(only));
    }
    c = &sheets_catalog;
  }

  OfferFilter filter;
  for (const auto& p : f.providers) {
    const auto l = c->find_provider(p);
    if (!l.found) bad_flag("--provider", lookup_failure("provider", p, l));
    filter.providers.push_back(l.found->id);
  }
  for (const auto& g : f.gpus) filter.gpus.push_back(resolve_gpu(g).id);
  filter.regions = f.regions;
  for (const auto& k : f.countries)
    if (country_code_of(k).empty()) bad_flag("--country", "expected a two-letter ISO code such as IN, got \"" + k + "\"");
  filter.countries = f.countries;
  filter.offers = f.offers;
  filter.max_gpus = f.max_gpus;

  OfferSet set = evaluate_offers(*c, m, pc, w, run, filter);
  rank_offers(set.priced, f.sort == "time");
  collapse_regions(set.priced);
  warn_stale_prices(set.priced, run);
  warn_mixed_tax(set.priced, run);

  Report r;
  r.json["model"] = {{"id", m.id}, {"name", m.name}, {"source", rm.source}};
  r.json["sort"] = f.sort;
  r.json["currency"] = run.currency;
  r.json["offers"] = nlohmann::json::array();
  std::vector<PricedOffer> shown;
  for (const auto& p : set.priced) {
    if (static_cast<int>(shown.size()) >= f.top) break;
    shown.push_back(p);
    r.json["offers"].push_back(offer_json(p, run));
  }
  r.json["excluded"] = nlohmann::json::array();
  for (const auto& p : set.excluded)
    r.json["excluded"].push_back({{"provider", p.provider->id}, {"offer", p.offer->id}, {"gpu", p.offer->gpu}, {"why", p.eval.excluded}});

  const std::string what = m.name + ", " + to_string(w.method) + ", " + to_string(run.spec.bill.pricing);
  r.tables.push_back(offers_table(shown, run, "Offers by " + f.sort + ": " + what));

  if (!sheet_providers.empty()) {
    // Side by side: each sheet's best offer, and how far the others are from the best.
    io::Table side;
    side.title = "Sheets side by side (best offer of each)";
    side.columns = {"sheet", "provider", "offer", "per_1M_tok", "total", "vs best"};
    side.align = {io::Align::left, io::Align::left, io::Align::left, io::Align::right, io::Align::right, io::Align::right};
    r.json["sheets"] = nlohmann::json::array();
    const PricedOffer* best = set.priced.empty() ? nullptr : &set.priced.front();
    for (std::size_t i = 0; i < f.sheets.size(); ++i) {
      const auto& ids = sheet_providers[i];
      const auto it = std::find_if(set.priced.begin(), set.priced.end(), [&](const PricedOffer& p) {
        return std::find(ids.begin(), ids.end(), p.provider->id) != ids.end();
      });
      if (it == set.priced.end()) {
        side.rows.push_back({f.sheets[i], ids.front(), "-", "-", "-", "nothing fits"});
        r.json["sheets"].push_back({{"sheet", f.sheets[i]}, {"best", nullptr}});
        continue;
      }
      const double diff = best ? it->sort_cost() - best->sort_cost() : 0;
      const double pct = best && best->sort_cost() > 0 ? 100 * diff / best->sort_cost() : 0;
      side.rows.push_back({f.sheets[i], it->provider->id, it->offer->id, num(it->per_million_tokens, 2),
                           it->total ? num(*it->total, 2) : "-", diff == 0 ? "best" : "+" + num(diff, 2) + " (+" + num(pct, 0) + "%)"});
      r.json["sheets"].push_back({{"sheet", f.sheets[i]}, {"best", offer_json(*it, run)}, {"difference", diff}});
    }
    r.tables.push_back(side);
  }
  if (f.explain && !set.excluded.empty()) r.tables.push_back(excluded_table(set.excluded));

  if (set.priced.empty()) {
    r.notes.push_back("no offer can run this job" + std::string(f.explain ? "" : " (--explain lists why)"));
    exit_code() = 1;
  } else if (run.budget || run.spec.bill.deadline_seconds) {
    const bool any_ok = std::any_of(set.priced.begin(), set.priced.end(), [](const PricedOffer& p) {
      return p.meets_budget.value_or(true) && p.meets_deadline.value_or(true);
    });
    if (!any_ok) {
      r.notes.push_back("no offer meets the budget and deadline");
      exit_code() = 1;
    }
  }
  for (const auto& n : unpriced_notes(shown)) r.notes.push_back(n);
  if (!run.has_work()) r.notes.push_back("no run size given (--tokens, --steps or --dataset-tokens): costs are per step and per million tokens");
  r.notes.push_back(std::to_string(set.priced.size()) + " offers priced, " + std::to_string(set.excluded.size()) +
                    " excluded" + (f.explain ? "" : " (--explain lists them)") + "; * = on the cost/time Pareto front");
  if (run.currency != "USD" || run.fx.as_of == "--fx") r.notes.push_back("exchange rates as of " + run.fx.as_of);
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
  cmd->add_option("--sort", f->sort, "cost | time")->capture_default_str();
  cmd->add_option("--provider", f->providers, "Only this provider (repeatable)");
  cmd->add_option("--gpu", f->gpus, "Only this GPU (repeatable)");
  cmd->add_option("--region", f->regions, "Only offers whose region contains this text or is in this country, e.g. india (repeatable)");
  cmd->add_option("--country", f->countries, "Only offers in this country, ISO code e.g. IN (repeatable)");
  cmd->add_option("--offer", f->offers, "Only this offer, as provider/offer (repeatable)");
  cmd->add_option("--max-gpus", f->max_gpus, "Only offers billing at most this many GPUs");
  cmd->add_option("--top", f->top, "Show the best K offers")->capture_default_str();
  cmd->add_option("--sheet", f->sheets, "Price only on these sheets (YAML or SkyPilot CSV), side by side (repeatable)");
  cmd->add_flag("--explain", f->explain, "List the offers that cannot run the job, with the reason");
  add_common_options(*cmd);
  cmd->callback([f] { run_compare(*f); });
}

}  // namespace gpuplan::cli
