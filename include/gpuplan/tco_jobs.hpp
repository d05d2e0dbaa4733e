#pragma once
// Buy or rent decided from the jobs themselves (issue #33). With a job log, GPU-hours are not
// divisible: a job needs all its GPUs at once, so 5 owned GPUs cannot take an 8-GPU job. Each
// fleet a buyer can build is replayed by replay_fleet (fleet_replay.hpp) with every job that
// does not fit renting at once, and priced by fleet_month; buy-vs-rent, advise and replay then
// give one verdict and one monthly cost for one log. Pure: no I/O.
#include <vector>

#include "gpuplan/fleet_replay.hpp"
#include "gpuplan/tco_analysis.hpp"

namespace gpuplan {

// The owned counts a buyer can build: 0, then whole builds of `gpus_per_build` up to the first
// that covers `peak_gpus`. When that is more than `max_points` counts, every k-th build (the
// last always kept).
std::vector<int> buildable_fleets(int peak_gpus, int gpus_per_build, int max_points = 64);

// A log's demand as buy-vs-rent's periods: its UTC days, each counted once over the log's
// months (DemandSummary::months), so gpu_hours_per_month() is the summary's own figure.
Demand demand_of_log(const DemandSummary& d);

// RENT when the fleet owns nothing, BUY when no job of the log bursts, else HYBRID.
Verdict verdict_of(const FleetOption& o);

// A replayed fleet's month as the MonthlyCost buy-vs-rent reports (rent = the bursts).
MonthlyCost monthly_cost_of(const FleetMonth& m);

// The decision and every row buy-vs-rent shows that the job-level model answers: the verdict,
// rent / buy / choice / partial, the curve, payback and the cumulative series. The divisible-hours
// rows (spot for everything, reserved commitments, break-even, sensitivity) are left empty.
// `terms` price every fleet and give the ownership terms and horizon of the payback and the
// cumulative series; `in` gives the uncertainty (the rule replays the jobs shortened to the low
// end of demand); `candidates` come from buildable_fleets.
struct JobTcoAnalysis {
  TcoAnalysis analysis;
  FleetSweep sweep;        // one option per candidate, burst at once
  int chosen = 0;          // index into sweep.options of the verdict's fleet
};
JobTcoAnalysis analyse_tco_jobs(const TcoInputs& in, const std::vector<ReplayJob>& jobs, const FleetCostTerms& terms,
                                const std::vector<int>& candidates);

}  // namespace gpuplan
