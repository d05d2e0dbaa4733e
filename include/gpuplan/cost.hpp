#pragma once
// What a run costs on one offer: whole instances rented, billing increments, start-up, idle
// time, storage, egress and tax; on spot, the expected checkpoint, lost-work and restart time
// at the offer's preemption rate (Young/Daly interval). Money is in the sheet's currency;
// convert at the edge with FxTable. Pure: no I/O.
#include <optional>

#include "gpuplan/catalog.hpp"

namespace gpuplan {

struct RunInputs {
  double compute_seconds = 0;    // useful GPU time for the whole run on the chosen GPUs
  double steps = 0;              // optimizer steps (or requests) the run delivers
  double tokens = 0;             // useful tokens the run delivers
  int gpus = 1;                  // GPUs the job uses
  Pricing pricing = Pricing::on_demand;
  double idle_fraction = 0;      // share of billed time doing no work (data loading, eval, waits)
  double storage_gb = 0;         // dataset and checkpoints kept while the run lasts
  double egress_gb = 0;          // copied out at the end (final weights)
  std::optional<double> tax_rate;             // overrides the sheet's
  // Totals on one basis whatever each sheet lists: inclusive adds tax to pre-tax sheets,
  // exclusive strips it from tax-inclusive ones (E2E-style GST-inclusive figures).
  TaxBasis tax_basis = TaxBasis::inclusive;
  // A GST-registered business recovers GST as input-tax credit (and the reverse charge it
  // self-assesses on a foreign supplier's bill nets to zero): its cost is the pre-tax price.
  bool input_tax_credit = false;
  std::optional<double> startup_seconds;      // overrides the sheet's (billed, no work)
  // Spot / preemptible.
  std::optional<double> preemptions_per_hour; // per instance; overrides the offer's
  double checkpoint_seconds = 0;              // time to write one checkpoint
  double restart_seconds = 600;               // relaunch, reload weights and data after a preemption
  std::optional<double> checkpoint_every_seconds;  // default: Young's interval on spot
  int max_restarts = 100;
  std::optional<double> deadline_seconds;
};

struct SpotOutcome {
  double preemptions_per_hour = 0;   // for the whole job (any instance lost restarts it)
  double checkpoint_interval_seconds = 0;
  double expected_preemptions = 0;
  double checkpoint_overhead_seconds = 0;
  double lost_work_seconds = 0;      // half an interval plus a restart per preemption
  // P(wall time > deadline): preemptions are Poisson at the job's rate over the deadline, each
  // costing half an interval plus the restart (closed form, no simulation).
  std::optional<double> p_miss_deadline;
};

struct RunCost {
  int instances = 0;
  int gpus_billed = 0;               // instances x GPUs per instance
  double wall_seconds = 0;           // expected, start-up included
  double billed_seconds = 0;         // per instance, after increments and minimums
  double gpu_hours = 0;              // billed
  double compute = 0, storage = 0, egress = 0, tax = 0, total = 0;
  bool storage_priced = true;        // false: storage was asked for but the sheet has no price
  bool egress_priced = true;
  double per_step = 0, per_million_tokens = 0;
  bool feasible = true;              // false: spot rate too high to finish, or restarts past the cap
  const char* infeasible_reason = "";  // a literal: pricing allocates nothing
  std::optional<bool> meets_deadline;
  std::optional<SpotOutcome> spot;
};

// How one sheet's listed prices become a bill on the run's tax basis: listed x pre_tax is the
// price before tax, and `rate` is the tax added on top of that.
struct TaxTerms {
  double pre_tax = 1.0;
  double rate = 0.0;
};
TaxTerms tax_terms(const Provider& provider, const RunInputs& in);

// nullopt when the offer has no price for the requested pricing.
std::optional<RunCost> price_run(const Offer& offer, const Provider& provider, const RunInputs& in);

// Young's (1974) first-order optimum checkpoint interval sqrt(2·C·MTBF).
double young_interval(double checkpoint_seconds, double mtbf_seconds);

// P(X > k) for X ~ Poisson(mean).
double poisson_tail(double mean, long long k);

// Multiplies every money field by `rate` (currency conversion).
RunCost convert(RunCost c, double rate);

}  // namespace gpuplan
