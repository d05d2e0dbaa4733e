#pragma once
// Seed 001's decision framework: eight questions (GPU-hours a week, steady vs bursty,
// interruptible, low-latency inference, cost of waiting, cost of idle hardware, how fast
// requirements change, whether the team can operate a scheduler) turned into a pattern
// (cloud-first; owned baseline + cloud burst; cloud training + owned serving), a placement per
// workload class, and what would change the answer. The money comes from buy-vs-rent's
// analysis (tco_analysis.hpp), passed in; nothing here prices anything. Pure: no I/O.
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/demand.hpp"
#include "gpuplan/tco_analysis.hpp"

namespace gpuplan {

enum class WaitCost { low, medium, high };   // jobs may queue for hours | some | engineers/deadlines blocked
enum class OpsSkill { managed, kubernetes, slurm };  // managed: the team cannot run its own cluster
const char* to_string(WaitCost w);
const char* to_string(OpsSkill o);

struct AdviceAnswers {
  double gpu_hours_per_week = 0;   // 1. training/experiment GPU-hours a week (inference apart, 4.)
  double steady_share = 0;         // 2. share of those hours a baseline fleet runs around the clock
  double uncertainty = 0;          // 2. ± share by which utilisation cannot be predicted
  double interruptible_share = 0;  // 3. share of the work that can be stopped and resumed
  bool checkpoints = false;        // 3. the interruptible jobs checkpoint (required before spot)
  bool low_latency_inference = false;  // 4.
  int inference_gpus = 0;          // 4. GPUs serving around the clock (0: none yet)
  WaitCost wait_cost = WaitCost::medium;  // 5.
  // 6. the cost of idle hardware is computed (an owned GPU idle a month), not asked.
  double churn_months = 24;        // 7. months before model/GPU requirements change materially
  OpsSkill ops = OpsSkill::managed;  // 8.
};

// The share of GPU-hours an owned fleet of the baseline size would run (the area under
// min(GPUs busy, baseline) over the area under GPUs busy): question 2 from a job log.
double steady_share(const DemandSummary& d);
// How far a period's GPU-hours stray from the mean: the coefficient of variation of weekly
// GPU-hours when the log covers 3 weeks or more, else of daily GPU-hours (said in `basis`).
double demand_uncertainty(const DemandSummary& d, std::string* basis = nullptr);

enum class Pattern { cloud_first, owned_baseline_cloud_burst, cloud_training_owned_serving };
const char* to_string(Pattern p);  // "cloud-first", "owned baseline + cloud burst", ...

struct WorkloadPlacement {
  std::string workload;       // "steady baseline", "interruptible bursts", ...
  double gpu_hours_per_week = 0;
  std::string where;          // "owned", "reserved", "spot", "on-demand"
  std::string why;            // with the seed's rule when one applies
};

struct Advice {
  Pattern pattern = Pattern::cloud_first;
  std::vector<std::string> reasons;        // why this pattern, rules named
  std::vector<WorkloadPlacement> split;
  std::vector<std::string> would_change;   // what would change the answer
  double idle_gpu_per_month = 0;           // 6.: an owned GPU of the fleet idle for a month (capital, upkeep, idle power)
  bool training_owns = false, serving_owns = false;
  bool uncertainty_rule = false;           // the 30-50% rule shaped the answer
  bool checkpoint_rule = false;            // interruptible work kept off spot for want of checkpoints
};

// `training`: buy-vs-rent of the training demand on the GPU; `serving`: of inference_gpus GPUs
// around the clock (when there are any); `in` the inputs `training` was analysed from.
Advice advise(const AdviceAnswers& a, const TcoInputs& in, const TcoAnalysis& training, const TcoAnalysis* serving);

}  // namespace gpuplan
