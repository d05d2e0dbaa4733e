#pragma once
// --owned GPU[xN] for estimate, compare and plan: the owner's own GPUs as one more offer, priced
// at what an owned GPU-hour costs (owned_hour_cost in src/core/tco.cpp, the month buy-vs-rent
// prices for owning) and judged by the same engine as every rented offer, so memory fit and
// time are those of a rented offer of the same GPU. --owned-marginal prices power and
// maintenance only. (replay's --owned is a different flag: counts of owned GPUs to replay.)
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "cli/common.hpp"
#include "cli/ownership_flags.hpp"
#include "gpuplan/offer_search.hpp"
#include "gpuplan/plan.hpp"
#include "gpuplan/tco.hpp"
#include "io/render/owned_render.hpp"

namespace gpuplan::cli {

struct OwnedOfferFlags {
  std::string owned;        // GPU[xN]: rtx-4090, rtx-4090x2
  std::string utilisation;  // the share of a month the owned GPUs are busy
  bool marginal = false;
  OwnershipFlags own;       // the purchase and running-cost flags of buy-vs-rent
};

void add_owned_offer_options(CLI::App& cmd, OwnedOfferFlags& f);

struct OwnedOffer {
  Catalog catalog;          // the GPU and the provider "owned" with its one offer (one machine of N GPUs)
  Ownership ownership;      // terms, horizon, purchase, defaults used, notes
  int gpus = 1;
  double utilisation = 0;
  bool marginal = false;
  MonthlyCost month;        // owned_month at that use
  OwnedHourCost hour;       // full and marginal cost per owned GPU-hour
  double per_gpu_hour = 0;  // what the offer is priced at: hour.full, or hour.marginal
  const Provider& provider() const { return catalog.providers.front(); }
  const Offer& offer() const { return catalog.providers.front().offers.front(); }
  const Gpu& gpu() const { return catalog.gpus.front(); }
};

// nullopt when --owned is not given; its companion flags are then refused (exit 2). Also
// refuses --tax (it sets every bill's tax, the owner's own cost included).
std::optional<OwnedOffer> build_owned_offer(const Context& ctx, const OwnedOfferFlags& f, const RunSettings& run);

// The owned offer judged for the job as evaluate_offers judges every offer (one machine: a job
// wider than it does not run there), added to `set`. False when it could not run the job.
bool add_owned_offer(OfferSet& set, const OwnedOffer& o, const ModelArch& m, const ParamCounts& pc, const Workload& w,
                     const RunSettings& run);

// Plan's offer list entry: one instance at most.
PlanOffer owned_plan_offer(const OwnedOffer& o);

// Keeps the owned row among the `shown` rows (it may rank below --top).
void keep_owned_shown(std::vector<PricedOffer>& shown, const std::vector<PricedOffer>& all, const OwnedOffer& o);

// The plain value io::owned_json and io::owned_notes render: JSON "owned" and the notes every
// command prints under its table.
io::OwnedBlock owned_block(const OwnedOffer& o);

}  // namespace gpuplan::cli
