// advise's decisions come from the core as codes and numbers (tests/core/advise_test.cpp); the
// sentences every format prints are chosen here, one per code.
#include <catch2/catch.hpp>

#include "io/render/advise_words.hpp"

using namespace gpuplan;
using namespace gpuplan::io;

namespace {

PatternReason reason(AdviceReason code) {
  PatternReason r;
  r.code = code;
  return r;
}

AnswerChange change(AdviceChange code) {
  AnswerChange c;
  c.code = code;
  return c;
}

WorkloadPlacement placed(PlacementWhy why) {
  WorkloadPlacement p;
  p.why = why;
  return p;
}

}  // namespace

TEST_CASE("why the pattern, in words", "[render][advise]") {
  PatternReason r = reason(AdviceReason::uncertain_demand);
  r.uncertainty = 0.455;
  CHECK(reason_text(r) ==
        "utilisation is uncertain by ±46% (30% or more): only GPUs that pay at the low end of demand are owned (avoid buying early "
        "when utilisation cannot be predicted within about 30-50%)");
  r = reason(AdviceReason::rent_low_end);
  r.gpus = 3;
  CHECK(reason_text(r) == "buy-vs-rent says RENT for the training demand: owning 3 GPUs pays at the expected demand but not at its low end");
  r = reason(AdviceReason::rent_no_payback);
  r.gpus = 1;
  CHECK(reason_text(r) == "buy-vs-rent says RENT for the training demand: owning 1 GPU would not pay over the horizon");
  r = reason(AdviceReason::needs_managed);
  r.gpus = 6;
  CHECK(reason_text(r) ==
        "buy-vs-rent would own 6 GPUs, but the team needs managed services (question 8): owned hardware needs people to run it");
  r = reason(AdviceReason::churn_before_payback);
  r.churn_months = 6;
  r.payback_months = 14.26;
  CHECK(reason_text(r) ==
        "requirements change every 6 months (question 7), before the hardware pays back (14.3 months): a wrong purchase locks in "
        "bad economics (buy hardware only for needs that outlast its payback)");
  r = reason(AdviceReason::owned_baseline);
  r.gpus = 4;
  r.verdict = Verdict::hybrid;
  CHECK(reason_text(r) ==
        "a predictable baseline: owning 4 GPUs is buy-vs-rent's cheapest option (HYBRID; the numbers below); spikes burst to the "
        "cloud (the owned-baseline-plus-burst pattern)");
  r = reason(AdviceReason::owned_serving);
  r.gpus = 8;
  r.verdict = Verdict::buy;
  CHECK(reason_text(r) ==
        "inference is steady (8 GPUs around the clock) and owning them pays (buy-vs-rent BUY); training stays in the cloud (the "
        "cloud-training, owned-serving pattern)");
  CHECK(reason_text(reason(AdviceReason::cloud_first)) ==
        "nothing owned pays or can be run: cloud GPUs, queued, spot where safe, portable (the cloud-first pattern)");
  CHECK(reason_text(reason(AdviceReason::queue_absorbs_spikes)) ==
        "waiting is cheap (question 5): a queue on the owned GPUs absorbs spikes before they burst (gpuplan replay sizes the wait)");
}

TEST_CASE("each workload class and why it runs where it does, in words", "[render][advise]") {
  CHECK(workload_text(WorkloadClass::steady_baseline) == "steady baseline");
  CHECK(workload_text(WorkloadClass::interruptible_bursts) == "interruptible bursts (experiments, sweeps, eval)");
  CHECK(workload_text(WorkloadClass::deadline_bursts) == "deadline and non-interruptible bursts");
  CHECK(workload_text(WorkloadClass::production_inference) == "production inference (separate cluster)");
  CHECK(std::string(to_string(RunOn::on_demand)) == "on-demand");
  WorkloadPlacement owned = placed(PlacementWhy::owned_busy);
  owned.owned_gpus = 13;
  CHECK(placement_why_text(owned) == "the owned GPUs buy-vs-rent chose (13), kept busy");
  CHECK(placement_why_text(placed(PlacementWhy::reserved_pays)) == "a reserved commitment pays at this use and demand is predictable");
  CHECK(placement_why_text(placed(PlacementWhy::no_commitment_pays)) == "no commitment: none pays at this use");
  CHECK(placement_why_text(placed(PlacementWhy::unpredictable)) == "no commitment: demand is not predictable enough to commit");
  CHECK(placement_why_text(placed(PlacementWhy::checkpointed)) ==
        "restartable from checkpoints: spot is safe (spot only for work that can restart)");
  CHECK(placement_why_text(placed(PlacementWhy::no_checkpoints)) ==
        "no checkpoints: a job must checkpoint before it goes on spot; on-demand until then");
  CHECK(placement_why_text(placed(PlacementWhy::queue_can_hold)) ==
        "cannot be interrupted; cheap to wait, so a queue can hold them for owned or spot capacity");
  CHECK(placement_why_text(placed(PlacementWhy::waiting_costly)) == "cannot be interrupted and waiting is costly (question 5)");
  CHECK(placement_why_text(placed(PlacementWhy::latency_sensitive)) ==
        "latency-sensitive: never spot, kept apart from training (interruptions would break its latency target)");
}

TEST_CASE("what would change the answer, in words", "[render][advise]") {
  AnswerChange c = change(AdviceChange::predictable_demand);
  c.uncertainty = 0.4;
  c.gpus = 5;
  c.owned_gpus = 2;
  CHECK(change_text(c) ==
        "predicting utilisation within 30% (now ±40%): the cheapest expected option owns 5 GPUs instead of 2 (if utilisation "
        "cannot be predicted within about 30-50%, avoid buying early)");
  c = change(AdviceChange::factor_flip);
  c.factor = Factor::power_price;
  c.multiplier = 13.586;
  c.verdict = Verdict::rent;
  CHECK(change_text(c) == "power_price x13.59 turns buy-vs-rent to RENT");
  c = change(AdviceChange::steady_demand);
  c.gpu_hours_per_week = 71.6;
  c.gpus = 1;
  CHECK(change_text(c) == "steady demand above 72 GPU-hours a week (break-even for 1 GPU) makes owning pay");
  c = change(AdviceChange::ops_team);
  c.gpus = 2;
  CHECK(change_text(c) == "a team able to run Slurm or Kubernetes could own 2 GPUs");
  CHECK(change_text(change(AdviceChange::checkpointing)) ==
        "checkpointing the interruptible jobs moves them to spot (spot only for work that can restart)");
  CHECK(change_text(change(AdviceChange::steady_inference)) ==
        "steady production inference (--inference-gpus) could justify an owned or reserved serving cluster (pattern 3)");
}
