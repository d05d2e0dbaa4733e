#pragma once
// compare's report: every offer that can run the job, ranked, with the ones that cannot and,
// with --sheet, each sheet's best offer side by side. Numbers from the evaluation engine.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "gpuplan/offer_search.hpp"
#include "io/render/money_style.hpp"
#include "io/render/render.hpp"

namespace gpuplan::io {

struct SheetProviders {
  std::string path;
  std::vector<std::string> provider_ids;
};

struct CompareReport {
  std::string model_id, model_name, model_source;
  std::vector<std::string> assumptions;
  std::string sort;  // "cost" or "time"
  Workload workload;
  RunSettings run;
  // The ranking is kept as compact rows (OfferRow); only the rows printed are full ones.
  std::vector<PricedOffer> shown;      // the top K of the ranking (regions folded), and the owned offer
  std::size_t priced = 0;              // rows in the ranking
  std::size_t excluded_count = 0;      // offers that cannot run the job
  std::vector<PricedOffer> excluded;   // those offers, built only when printed (JSON, --explain)
  double best_cost = 0;                // the top row's sort_cost()
  bool limits_met = false;             // some ranked row meets the budget and deadline
  std::vector<PriceWarning> warnings;  // price_warnings of the ranked rows' sheets
  std::vector<SheetProviders> sheets;  // --sheet files, in the order given
  std::vector<std::optional<PricedOffer>> sheet_best;  // each sheet's best-ranked row, by `sheets`
  bool explain = false;
  // True when the answer is "no": nothing can run the job, or nothing meets the limits.
  bool answer_is_no() const;
};

nlohmann::json compare_json(const CompareReport& r);
std::vector<Table> compare_tables(const CompareReport& r, MoneyStyle style);
std::vector<std::string> compare_notes(const CompareReport& r);

}  // namespace gpuplan::io
