#pragma once
// Replaying measured jobs against a candidate fleet (seed 001: "cost of waiting for capacity",
// "cost of idle hardware", answered from a team's own history rather than averages). N owned
// GPUs take jobs from a priority queue with per-team quotas; a job that waited W goes to the
// cloud, on spot when it checkpoints, else on-demand. Event-driven and deterministic: the
// same jobs and policy give the same schedule. Pure: no I/O; times are seconds.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "gpuplan/demand.hpp"
#include "gpuplan/tco.hpp"

namespace gpuplan {

struct ReplayJob {
  std::string team;        // quota, priority and report key ("(none)" when the log has none)
  double arrival = 0;      // seconds: submit time, or the measured start when the log has none
  double duration = 0;     // seconds it ran (measured end - start)
  int gpus = 1;
  int priority = 0;        // higher starts first
  bool checkpoints = false;  // may burst on spot (seed 001: spot only for jobs that checkpoint)
};

// How measured jobs become replay jobs: priorities and checkpointing by team or partition (a key
// names either; "all" in `checkpointing` marks every job).
struct ReplayMapping {
  std::map<std::string, int> priority;
  std::set<std::string> checkpointing;
};
std::vector<ReplayJob> replay_jobs(const std::vector<Job>& jobs, const ReplayMapping& m);

struct FleetPolicy {
  int owned_gpus = 0;
  std::optional<double> burst_after;   // seconds a job waits before it goes to the cloud; none: never
  std::map<std::string, int> quota;    // team -> most owned GPUs it holds at once; absent: no cap
};

enum class Placement { owned, spot, on_demand, unserved };
const char* to_string(Placement p);

struct JobOutcome {
  Placement where = Placement::owned;
  double start = 0;           // on the owned fleet or in the cloud
  double queue_seconds = 0;   // infinite when unserved
};

struct QueueStats {
  std::string team;           // "" for all jobs
  int jobs = 0, burst = 0, unserved = 0;
  double p50_hours = 0, p95_hours = 0, max_hours = 0;  // infinite when some job never runs
};

struct ReplayResult {
  std::vector<JobOutcome> jobs;           // in the order given
  double window_start = 0, window_end = 0;  // first arrival .. last job's end (owned or cloud)
  double owned_busy_gpu_hours = 0;
  double utilisation = 0;                 // owned busy / (owned GPUs x window)
  double spot_gpu_hours = 0, on_demand_gpu_hours = 0;  // GPUs x run time of the burst jobs
  QueueStats all;
  std::vector<QueueStats> teams;          // by name
};

// The queue: among waiting jobs, higher priority first, then earlier arrival, then input order.
// Jobs start strictly in that order (no backfill), except that a job its team's quota holds back
// is passed over. A job wider than the fleet or its quota never fits: it bursts at once when
// bursting is allowed, else it is unserved. A job whose wait reaches W while still queued bursts.
ReplayResult replay_fleet(const std::vector<ReplayJob>& jobs, const FleetPolicy& policy);

// What a burst job costs in the cloud, from the tco rent terms (option_cost over the job's own
// GPUs and hours, so whole instances, increments, tax and spot overhead come from price_run).
struct CloudPrice {
  double spot = 0, on_demand = 0;          // money
  double spot_billed_gpu_hours = 0, on_demand_billed_gpu_hours = 0;
  bool spot_available = false;             // a spot offer could run it; else it bursts on-demand
  int on_demand_offer = -1, spot_offer = -1;  // the offer it rents on: index into FleetCostTerms' on_demand / spot offers
};
struct FleetCostTerms {
  OwnedTerms owned;
  RentTerms on_demand, spot;               // spot.offers may be empty
  int horizon_months = 36;
  // The months the money is spread over: the log's own length (DemandSummary::months), so every
  // fleet of one log divides by the same period; 0: the replay window (first arrival .. last end).
  double months = 0;
};
std::vector<CloudPrice> cloud_prices(const std::vector<ReplayJob>& jobs, const FleetCostTerms& t);

struct FleetMonth {
  double months = 0;                       // FleetCostTerms::months, else the replay window, in 730-hour months
  MonthlyCost owned;                       // option_cost of the owned GPUs at their replayed busy hours
  double spot = 0, on_demand = 0;          // burst money per month
  double spot_billed_gpu_hours = 0, on_demand_billed_gpu_hours = 0;  // per month
  int spot_fallbacks = 0;                  // checkpointing jobs that went on-demand (no spot offer)
  int on_demand_offer = -1, spot_offer = -1;  // the offer that took most of that burst money; -1: none burst there
  double total = 0;                        // owned.total + spot + on_demand
};
FleetMonth fleet_month(const ReplayResult& r, const std::vector<ReplayJob>& jobs, const std::vector<CloudPrice>& prices,
                       const FleetPolicy& policy, const FleetCostTerms& t);

struct FleetOption {
  FleetPolicy policy;
  ReplayResult replay;
  FleetMonth month;
  bool meets_target = false;               // replay.all.p95_hours <= the target
};
struct FleetSweep {
  std::vector<FleetOption> options;        // by owned GPUs, then W (never last)
  int cheapest = -1;                       // the cheapest option meeting the target; -1: none
};
// Every (owned, burst_after) pair; `quota` applies to all.
FleetSweep sweep_fleet(const std::vector<ReplayJob>& jobs, const std::vector<int>& owned,
                       const std::vector<std::optional<double>>& burst_after, const std::map<std::string, int>& quota,
                       const FleetCostTerms& terms, double max_p95_queue_hours);

}  // namespace gpuplan
