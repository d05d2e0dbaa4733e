#include "io/render/advise_words.hpp"

#include <cmath>

#include "gpuplan/plural.hpp"

namespace gpuplan::io {
namespace {

// `decimals` places, rounded half away from zero, no grouping: the sentences read the same in
// every format.
std::string fixed(double v, int decimals) {
  const double scale = std::pow(10.0, decimals);
  std::string s = std::to_string(std::round(v * scale) / scale);
  const auto dot = s.find('.');
  return decimals == 0 ? s.substr(0, dot) : s.substr(0, dot + 1 + static_cast<std::size_t>(decimals));
}
std::string pct(double share) { return fixed(100 * share, 0) + "%"; }

}  // namespace

std::string reason_text(const PatternReason& r) {
  switch (r.code) {
    case AdviceReason::uncertain_demand:
      return "utilisation is uncertain by ±" + pct(r.uncertainty) +
             " (30% or more): only GPUs that pay at the low end of demand are owned (avoid buying early when utilisation cannot be "
             "predicted within about 30-50%)";
    case AdviceReason::rent_low_end:
      return "buy-vs-rent says RENT for the training demand: owning " + count_of(r.gpus, "GPU") +
             " pays at the expected demand but not at its low end";
    case AdviceReason::rent_no_payback:
      return "buy-vs-rent says RENT for the training demand: owning " + count_of(r.gpus, "GPU") + " would not pay over the horizon";
    case AdviceReason::needs_managed:
      return "buy-vs-rent would own " + count_of(r.gpus, "GPU") +
             ", but the team needs managed services (question 8): owned hardware needs people to run it";
    case AdviceReason::churn_before_payback:
      return "requirements change every " + fixed(r.churn_months, 0) + " months (question 7), before the hardware pays back (" +
             fixed(r.payback_months, 1) +
             " months): a wrong purchase locks in bad economics (buy hardware only for needs that outlast its payback)";
    case AdviceReason::owned_baseline:
      return "a predictable baseline: owning " + count_of(r.gpus, "GPU") + " is buy-vs-rent's cheapest option (" + to_string(r.verdict) +
             "; the numbers below); spikes burst to the cloud (the owned-baseline-plus-burst pattern)";
    case AdviceReason::owned_serving:
      return "inference is steady (" + count_of(r.gpus, "GPU") + " around the clock) and owning them pays (buy-vs-rent " +
             to_string(r.verdict) + "); training stays in the cloud (the cloud-training, owned-serving pattern)";
    case AdviceReason::cloud_first:
      return "nothing owned pays or can be run: cloud GPUs, queued, spot where safe, portable (the cloud-first pattern)";
    case AdviceReason::queue_absorbs_spikes:
      return "waiting is cheap (question 5): a queue on the owned GPUs absorbs spikes before they burst (gpuplan replay sizes the wait)";
  }
  return "";
}

std::string workload_text(WorkloadClass w) {
  switch (w) {
    case WorkloadClass::steady_baseline: return "steady baseline";
    case WorkloadClass::interruptible_bursts: return "interruptible bursts (experiments, sweeps, eval)";
    case WorkloadClass::deadline_bursts: return "deadline and non-interruptible bursts";
    case WorkloadClass::production_inference: return "production inference (separate cluster)";
  }
  return "";
}

std::string placement_why_text(const WorkloadPlacement& p) {
  switch (p.why) {
    case PlacementWhy::owned_busy: return "the owned GPUs buy-vs-rent chose (" + std::to_string(p.owned_gpus) + "), kept busy";
    case PlacementWhy::reserved_pays: return "a reserved commitment pays at this use and demand is predictable";
    case PlacementWhy::no_commitment_pays: return "no commitment: none pays at this use";
    case PlacementWhy::unpredictable: return "no commitment: demand is not predictable enough to commit";
    case PlacementWhy::checkpointed: return "restartable from checkpoints: spot is safe (spot only for work that can restart)";
    case PlacementWhy::no_checkpoints: return "no checkpoints: a job must checkpoint before it goes on spot; on-demand until then";
    case PlacementWhy::queue_can_hold:
      return "cannot be interrupted; cheap to wait, so a queue can hold them for owned or spot capacity";
    case PlacementWhy::waiting_costly: return "cannot be interrupted and waiting is costly (question 5)";
    case PlacementWhy::latency_sensitive:
      return "latency-sensitive: never spot, kept apart from training (interruptions would break its latency target)";
  }
  return "";
}

std::string change_text(const AnswerChange& c) {
  switch (c.code) {
    case AdviceChange::predictable_demand:
      return "predicting utilisation within 30% (now ±" + pct(c.uncertainty) + "): the cheapest expected option owns " +
             count_of(c.gpus, "GPU") + " instead of " + std::to_string(c.owned_gpus) +
             " (if utilisation cannot be predicted within about 30-50%, avoid buying early)";
    case AdviceChange::factor_flip:
      return std::string(to_string(c.factor)) + " x" + fixed(c.multiplier, 2) + " turns buy-vs-rent to " + to_string(c.verdict);
    case AdviceChange::steady_demand:
      return "steady demand above " + fixed(c.gpu_hours_per_week, 0) + " GPU-hours a week (break-even for " + count_of(c.gpus, "GPU") +
             ") makes owning pay";
    case AdviceChange::ops_team: return "a team able to run Slurm or Kubernetes could own " + count_of(c.gpus, "GPU");
    case AdviceChange::checkpointing:
      return "checkpointing the interruptible jobs moves them to spot (spot only for work that can restart)";
    case AdviceChange::steady_inference:
      return "steady production inference (--inference-gpus) could justify an owned or reserved serving cluster (pattern 3)";
  }
  return "";
}

}  // namespace gpuplan::io
