// compare's report.
#include "io/render/compare_report.hpp"
#include "io/render/price_warning_text.hpp"

#include <algorithm>

#include "io/render/format.hpp"
#include "io/render/offer_report.hpp"

namespace gpuplan::io {
namespace {

double difference(const CompareReport& r, const PricedOffer& p) { return r.priced == 0 ? 0 : p.sort_cost() - r.best_cost; }

// Side by side: each sheet's best offer, and how far it is from the best of all.
Table sheets_table(const CompareReport& r, MoneyStyle style) {
  Table t;
  t.title = "Sheets side by side (best offer of each)";
  t.columns = {"sheet", "provider", "offer", "per_1M_tok", "total", "vs best"};
  t.align = {Align::left, Align::left, Align::left, Align::right, Align::right, Align::right};
  t.droppable = {1};  // the sheet names the provider
  for (std::size_t i = 0; i < r.sheets.size(); ++i) {
    const SheetProviders& s = r.sheets[i];
    const PricedOffer* b = r.sheet_best[i] ? &*r.sheet_best[i] : nullptr;
    if (!b) {
      t.rows.push_back({s.path, s.provider_ids.front(), "-", "-", "-", "nothing fits"});
      continue;
    }
    const double diff = difference(r, *b);
    const double base = r.best_cost;
    t.rows.push_back({s.path, b->provider->id, b->offer->id, money_amount(b->per_million_tokens, r.run.currency, 2, style),
                      b->total ? money_amount(*b->total, r.run.currency, 2, style) : "-",
                      diff == 0 ? "best" : "+" + num(diff, 2) + (base > 0 ? " (+" + num(100 * diff / base, 0) + "%)" : "")});
  }
  return t;
}

}  // namespace

bool CompareReport::answer_is_no() const {
  if (priced == 0) return true;
  // best_offer() picks the first row that meets the limits, else the first: "no" when none does.
  return (run.budget || run.spec.bill.deadline_seconds) && !limits_met;
}

nlohmann::json compare_json(const CompareReport& r) {
  nlohmann::json j;
  j["model"] = {{"id", r.model_id}, {"name", r.model_name}, {"source", r.model_source}};
  j["sort"] = r.sort;
  j["currency"] = r.run.currency;
  j["offers"] = nlohmann::json::array();
  for (const auto& p : r.shown) j["offers"].push_back(offer_json(p, r.run));
  j["excluded"] = excluded_json(r.excluded, r.run.spec.bill.pricing);
  j["warnings"] = price_warning_texts(r.warnings);
  if (r.sheets.empty()) return j;
  j["sheets"] = nlohmann::json::array();
  for (std::size_t i = 0; i < r.sheets.size(); ++i) {
    const std::string& path = r.sheets[i].path;
    const auto& b = r.sheet_best[i];
    if (b) j["sheets"].push_back({{"sheet", path}, {"best", offer_json(*b, r.run)}, {"difference", difference(r, *b)}});
    else j["sheets"].push_back({{"sheet", path}, {"best", nullptr}});
  }
  return j;
}

std::vector<Table> compare_tables(const CompareReport& r, MoneyStyle style) {
  const std::string what = r.model_name + ", " + to_string(r.workload.method) + ", " + to_string(r.run.spec.bill.pricing);
  std::vector<Table> tables = {offers_table(r.shown, r.run, r.workload, "Offers by " + r.sort + ": " + what, style)};
  if (!r.sheets.empty()) tables.push_back(sheets_table(r, style));
  if (r.explain && !r.excluded.empty()) tables.push_back(excluded_table(r.excluded, r.run.spec.bill.pricing));
  return tables;
}

std::vector<std::string> compare_notes(const CompareReport& r) {
  std::vector<std::string> notes = offer_notes(r.shown, r.workload, r.run.spec.gpus_fixed, r.run);
  if (r.priced == 0) notes.push_back("no offer can run this job" + std::string(r.explain ? "" : " (--explain lists why)"));
  else if (r.answer_is_no()) notes.push_back("no offer meets the budget and deadline");
  if (!r.run.has_work()) notes.push_back("no run size given (--tokens, --steps or --dataset-tokens): costs are per step and per million tokens");
  notes.push_back(std::to_string(r.priced) + " offers priced, " + std::to_string(r.excluded_count) + " excluded" +
                  (r.explain ? "" : " (--explain lists them)") + "; * = on the cost/time Pareto front");
  if (r.run.currency != "USD" || r.run.fx.as_of == "--fx") notes.push_back("exchange rates as of " + r.run.fx.as_of);
  for (const auto& a : r.assumptions) notes.push_back("assumed: " + a);
  return notes;
}

}  // namespace gpuplan::io
