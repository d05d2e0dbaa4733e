#pragma once
// The offer search with one compact row per offer, for catalogs of a million offers (a SkyPilot
// sheet whose every zone is its own offer): compare ranks, marks and folds these rows and builds
// the full PricedOffer again only for the rows it prints. Same evaluation, same order, same
// algorithms as the PricedOffer forms in offer_search.hpp (one template behind both). Pure.
#include <vector>

#include "gpuplan/offer_search.hpp"

namespace gpuplan {

// One offer's place in a search without its evaluation: what ranking, the Pareto front, region
// folding and the budget/deadline verdict read (64 bytes; a PricedOffer is ~790).
struct OfferRow {
  const Provider* provider = nullptr;
  const Offer* offer = nullptr;
  const Gpu* gpu = nullptr;
  double cost = 0;           // PricedOffer::sort_cost()
  double time = 0;           // PricedOffer::sort_time()
  double rate_per_hour = 0;  // display currency
  int gpus = 0;              // GPUs it runs on (eval.workload.gpus)
  int same_price_regions = 0;
  bool pareto = false;
  bool meets_limits = true;  // PricedOffer::meets_limits()
};

struct OfferRows {
  std::vector<OfferRow> priced;    // fit and priced
  std::vector<OfferRow> excluded;  // price_row(...).eval says why
};

// The compact row of a priced (or excluded) offer, with its ranking marks.
OfferRow row_of(const PricedOffer& p);

// evaluate_offers keeping a compact row per offer: the same offers, in the same order.
OfferRows search_offers(const Catalog& c, const ModelArch& m, const ParamCounts& pc, const Workload& w, const RunSettings& run,
                        const OfferFilter& filter);

// The full row of `r` again, as evaluate_offers built it (the evaluation is a pure function of
// the job and the offer), with r's ranking marks (pareto, same_price_regions).
PricedOffer price_row(const OfferRow& r, const ModelArch& m, const ParamCounts& pc, const Workload& w, const RunSettings& run);

// rank_offers, mark_pareto_front and collapse_regions of offer_search.hpp on compact rows.
void rank_offers(std::vector<OfferRow>& rows, bool by_time);
void mark_pareto_front(std::vector<OfferRow>& rows);
void collapse_regions(std::vector<OfferRow>& rows);

}  // namespace gpuplan
