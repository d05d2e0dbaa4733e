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
// GPU-hours when the log covers 3 weeks or more, else of daily GPU-hours. Question 2 asks for a
// ± share, so the answer is capped at 100%: past it the low end of demand is already zero, and
// buy-vs-rent's rule (own only what pays at the low end) reads the same.
struct DemandUncertainty {
  double value = 0;           // the answer: min(measured, 1)
  double measured = 0;        // the coefficient of variation itself
  bool weekly = false;        // of whole weeks (else of days)
  std::size_t periods = 0;    // how many weeks or days
  bool capped() const { return measured > value; }
};
DemandUncertainty demand_uncertainty(const DemandSummary& d);

enum class Pattern { cloud_first, owned_baseline_cloud_burst, cloud_training_owned_serving };
const char* to_string(Pattern p);  // "cloud-first", "owned baseline + cloud burst", ...

// Each line of advice is a code with the numbers and names its sentence needs; the renderer
// (io/render/advise_words) chooses the words.

// Why the pattern, the rule behind it named.
enum class AdviceReason {
  uncertain_demand,      // `uncertainty` of 30% or more: only GPUs that pay at the low end are owned
  rent_low_end,          // RENT: owning `gpus` pays at the expected demand, not at its low end
  rent_no_payback,       // RENT: owning `gpus` would not pay over the horizon
  needs_managed,         // buy-vs-rent would own `gpus`, but the team needs managed services (8.)
  churn_before_payback,  // requirements change every `churn_months`, before `payback_months` (7.)
  owned_baseline,        // pattern 2: owning `gpus` is the cheapest option (`verdict`)
  owned_serving,         // pattern 3: `gpus` serve around the clock and owning them pays (`verdict`)
  cloud_first,           // pattern 1: nothing owned pays or can be run
  queue_absorbs_spikes,  // waiting is cheap (5.): a queue on the owned GPUs absorbs spikes
};
struct PatternReason {
  AdviceReason code = AdviceReason::cloud_first;
  int gpus = 0;
  double uncertainty = 0, churn_months = 0, payback_months = 0;
  Verdict verdict = Verdict::rent;
};

enum class WorkloadClass { steady_baseline, interruptible_bursts, deadline_bursts, production_inference };
enum class RunOn { owned, reserved, spot, on_demand };
const char* to_string(RunOn p);  // "owned", "reserved", "spot", "on-demand"
// Why a workload class runs where it does.
enum class PlacementWhy {
  owned_busy,          // the `owned_gpus` buy-vs-rent chose, kept busy
  reserved_pays,       // a reserved commitment pays and demand is predictable
  no_commitment_pays,  // on-demand: no commitment pays at this use
  unpredictable,       // on-demand: demand is not predictable enough to commit
  checkpointed,        // spot: restartable from checkpoints
  no_checkpoints,      // on-demand until the jobs checkpoint
  queue_can_hold,      // not interruptible, but cheap to wait
  waiting_costly,      // not interruptible and waiting is costly (5.)
  latency_sensitive,   // inference: never spot, apart from training
};
struct WorkloadPlacement {
  WorkloadClass workload = WorkloadClass::steady_baseline;
  double gpu_hours_per_week = 0;
  RunOn where = RunOn::on_demand;
  PlacementWhy why = PlacementWhy::unpredictable;
  int owned_gpus = 0;  // owned_busy
};

// What would change the answer.
enum class AdviceChange {
  predictable_demand,  // predicting within 30% (now `uncertainty`): the cheapest owns `gpus`, not `owned_gpus`
  factor_flip,         // `factor` x`multiplier` turns buy-vs-rent to `verdict`
  steady_demand,       // steady demand above `gpu_hours_per_week` (break-even for `gpus`) makes owning pay
  ops_team,            // a team able to run a scheduler could own `gpus`
  checkpointing,       // checkpointing the interruptible jobs moves them to spot
  steady_inference,    // steady production inference could justify a serving cluster (pattern 3)
};
struct AnswerChange {
  AdviceChange code = AdviceChange::checkpointing;
  int gpus = 0, owned_gpus = 0;
  double uncertainty = 0, multiplier = 0, gpu_hours_per_week = 0;
  Factor factor = Factor::demand;
  Verdict verdict = Verdict::rent;
};

struct Advice {
  Pattern pattern = Pattern::cloud_first;
  std::vector<PatternReason> reasons;      // why this pattern, rules named
  std::vector<WorkloadPlacement> split;
  std::vector<AnswerChange> would_change;  // what would change the answer
  double idle_gpu_per_month = 0;           // 6.: an owned GPU of the fleet idle for a month (capital, upkeep, idle power)
  bool training_owns = false, serving_owns = false;
  bool uncertainty_rule = false;           // the 30-50% rule shaped the answer
  bool checkpoint_rule = false;            // interruptible work kept off spot for want of checkpoints
};

// `training`: buy-vs-rent of the training demand on the GPU; `serving`: of inference_gpus GPUs
// around the clock (when there are any); `in` the inputs `training` was analysed from.
Advice advise(const AdviceAnswers& a, const TcoInputs& in, const TcoAnalysis& training, const TcoAnalysis* serving);

}  // namespace gpuplan
