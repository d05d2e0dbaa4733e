#pragma once
// Every offer in the loaded sheets evaluated for one workload, in the display currency, with
// the JSON and table rows `estimate` and `compare` print.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "cli/run_flags.hpp"
#include "gpuplan/catalog.hpp"
#include "gpuplan/offer_eval.hpp"
#include "io/render.hpp"

namespace gpuplan::cli {

struct OfferFilter {
  std::vector<std::string> providers;  // provider ids (resolved)
  std::vector<std::string> gpus;       // GPU ids (resolved)
  std::vector<std::string> regions;    // substring match, or a country name (Offer::in_region)
  std::vector<std::string> countries;  // ISO codes or names (Offer::in_country)
  std::vector<std::string> offers;     // provider/offer keys
  int max_gpus = 0;                    // 0 = no limit (GPUs billed)
};

struct PricedOffer {
  const Provider* provider = nullptr;
  const Offer* offer = nullptr;
  const Gpu* gpu = nullptr;
  OfferEvaluation eval;
  // In the display currency.
  double rate_per_hour = 0, per_step = 0, per_million_tokens = 0;
  std::optional<double> total, compute, storage, egress, tax;
  std::optional<bool> meets_deadline, meets_budget;
  bool pareto = false;
  int same_price_regions = 0;  // other regions of this instance type folded into this row
  double sort_cost() const { return total ? *total : per_million_tokens; }
  double sort_time() const { return eval.cost ? eval.cost->wall_seconds : eval.time.step_seconds; }
};

struct OfferSet {
  std::vector<PricedOffer> priced;    // fit and priced
  std::vector<PricedOffer> excluded;  // with eval.excluded saying why
};

OfferSet evaluate_offers(const Catalog& c, const ModelArch& m, const ParamCounts& pc, const Workload& w,
                         const RunSettings& run, const OfferFilter& filter);

// Sorts by cost (total, or per million tokens without a run size) or by time, and marks the
// cost/time Pareto front.
void rank_offers(std::vector<PricedOffer>& offers, bool by_time);

// Folds rows that differ only by region (SkyPilot sheets list every region at one price) into
// the first, counting the others; keeps the order.
void collapse_regions(std::vector<PricedOffer>& offers);

nlohmann::json offer_json(const PricedOffer& p, const RunSettings& run);
// A sheet is stale when its date is unknown or older than run.stale_after_days.
bool prices_stale(const Provider& p, const RunSettings& run);
// Whether the row's totals include tax (the basis asked for and a known rate).
bool tax_included(const Provider& p, const RunSettings& run);
// Warns when some rows include tax and others cannot (no rate on their sheet).
void warn_mixed_tax(const std::vector<PricedOffer>& offers, const RunSettings& run);
// One warning per stale sheet among `offers`.
void warn_stale_prices(const std::vector<PricedOffer>& offers, const RunSettings& run);
io::Table offers_table(const std::vector<PricedOffer>& offers, const RunSettings& run, const std::string& title);
io::Table excluded_table(const std::vector<PricedOffer>& offers);

// "storage not priced on nebius's sheet"-style notes for the offers shown.
std::vector<std::string> unpriced_notes(const std::vector<PricedOffer>& offers);

}  // namespace gpuplan::cli
