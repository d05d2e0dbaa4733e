#pragma once
// Every offer in a catalog evaluated for one job, in the display currency; ranking, the
// cost/time Pareto front and the folding of same-price regions. estimate, compare and check
// search offers through here (plan searches the same engine with more dimensions), so they
// pick the same offer for the same job. Pure: no I/O.
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/catalog.hpp"
#include "gpuplan/evaluate.hpp"

namespace gpuplan {

// The run as a user set it: work, bill terms, and how money is shown and capped.
struct RunSettings {
  RunSpec spec;
  std::string currency = "USD";     // what money is shown in
  FxTable fx;                       // catalog rates plus overrides
  std::optional<double> budget;     // in `currency`
  int stale_after_days = kStalePriceDays;  // sheets older than this are flagged
  std::string today;                // YYYY-MM-DD (UTC), for the sheets' age
  bool has_work() const { return spec.tokens || spec.steps; }
};

// Converts from a sheet's currency to the display currency; throws InputError at `where`
// when no rate is known.
double to_display(double amount, const std::string& from, const RunSettings& s, const SourceLocation& where);

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
  bool meets_limits() const { return meets_budget.value_or(true) && meets_deadline.value_or(true); }
  // The GPU count or sharding differs from what the job asked.
  bool adjusted(const Workload& asked) const { return eval.resharded || eval.workload.gpus != asked.gpus; }
};

struct OfferSet {
  std::vector<PricedOffer> priced;    // fit and priced
  std::vector<PricedOffer> excluded;  // eval.excluded says why (exclusion_text)
};

bool offer_matches(const OfferFilter& filter, const Provider& p, const Offer& o, const Workload& w, const RunSpec& run);

OfferSet evaluate_offers(const Catalog& c, const ModelArch& m, const ParamCounts& pc, const Workload& w, const RunSettings& run,
                         const OfferFilter& filter);

// Fills the display-currency fields and the budget/deadline verdicts from `p.eval`.
void convert_for_display(PricedOffer& p, const RunSettings& run);

// Sorts by cost (total, or per million tokens without a run size) or by time, and marks the
// cost/time Pareto front.
void rank_offers(std::vector<PricedOffer>& offers, bool by_time);
// Marks the cost/time Pareto front (sort_cost, sort_time) in any order of `offers`: an offer is
// on it when no other is at least as cheap and as fast and strictly better in one. A sort and one
// sweep, O(n log n); ties (equal cost and time) are all on the front together.
void mark_pareto_front(std::vector<PricedOffer>& offers);

// Folds rows that differ only by region (SkyPilot sheets list every region at one price) into
// the first, counting the others; keeps the order.
void collapse_regions(std::vector<PricedOffer>& offers);

// The best-ranked offer that meets the budget and deadline, else the best-ranked; null when none.
const PricedOffer* best_offer(const std::vector<PricedOffer>& ranked);

// A sheet is stale when its date is unknown or older than run.stale_after_days.
bool prices_stale(const Provider& p, const RunSettings& run);
// Whether the row's totals include tax (the basis asked for and a known rate).
bool tax_included(const Provider& p, const RunSettings& run);
// What to check before trusting a price: a sheet older than --stale-after or undated, or totals
// on two tax bases (some include tax, the `untaxed` sheets state no rate). Worded by
// io/render/price_warning_text.
enum class PriceWarningKind { stale, undated, mixed_tax };
struct PriceWarning {
  PriceWarningKind kind = PriceWarningKind::stale;
  std::string provider;               // stale, undated
  std::string prices_as_of;           // stale, undated: the sheet's date as written
  long age_days = 0;                  // stale
  int stale_after_days = 0;           // stale
  std::vector<std::string> untaxed;   // mixed_tax
  bool operator==(const PriceWarning&) const = default;
};
// One warning per stale sheet among `offers`, and one when some totals include tax and others
// cannot (no rate on their sheet), in the order found.
std::vector<PriceWarning> price_warnings(const std::vector<PricedOffer>& offers, const RunSettings& run);
// The same for the sheets a command priced from (plan's chosen offers, serve's options, check's
// specs): every command that prices offers warns from here (io/render/price_warning_text words them).
std::vector<PriceWarning> price_warnings(const std::vector<const Provider*>& sheets, const RunSettings& run);

}  // namespace gpuplan
