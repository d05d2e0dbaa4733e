#include "gpuplan/advise.hpp"

#include <algorithm>
#include <cmath>

#include "gpuplan/plural.hpp"
#include "gpuplan/tco_defaults.hpp"

namespace gpuplan {
namespace {


constexpr double kWeekPerMonth = per_month_to_per_week(1.0);  // units.hpp: the one week and month

std::string fixed(double v, int decimals) {
  const double scale = std::pow(10.0, decimals);
  std::string s = std::to_string(std::round(v * scale) / scale);
  const auto dot = s.find('.');
  return decimals == 0 ? s.substr(0, dot) : s.substr(0, dot + 1 + static_cast<std::size_t>(decimals));
}
std::string pct(double share) { return fixed(100 * share, 0) + "%"; }

double cv(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  double mean = 0, var = 0;
  for (double x : v) mean += x;
  mean /= static_cast<double>(v.size());
  for (double x : v) var += (x - mean) * (x - mean);
  return mean > 0 ? std::sqrt(var / static_cast<double>(v.size())) / mean : 0;
}

// Training may own when the team can run it and it pays back before requirements move on.
bool training_may_own(const AdviceAnswers& a, const TcoAnalysis& t, Advice& out) {
  if (t.decision.verdict == Verdict::rent) {
    if (t.decision.rule_applied && t.decision.cheapest_owned > 0)
      out.reasons.push_back("buy-vs-rent says RENT for the training demand: owning " + count_of(t.decision.cheapest_owned, "GPU") + " pays at the expected demand but not at its low end");
    else
      out.reasons.push_back("buy-vs-rent says RENT for the training demand: owning " + count_of(t.payback_owned, "GPU") + " would not pay over the horizon");
    return false;
  }
  if (a.ops == OpsSkill::managed) {
    out.reasons.push_back("buy-vs-rent would own " + count_of(t.decision.owned_gpus, "GPU") + ", but the team needs managed services (question 8): owned hardware needs people to run it");
    return false;
  }
  if (t.payback_months && *t.payback_months > a.churn_months) {
    out.reasons.push_back("requirements change every " + fixed(a.churn_months, 0) + " months (question 7), before the hardware pays back (" +
                          fixed(*t.payback_months, 1) + " months): a wrong purchase locks in bad economics (buy hardware only for needs that outlast its payback)");
    return false;
  }
  return true;
}

std::string pay_as_you_go(const TcoAnalysis& t, bool predictable) {
  for (const auto& c : t.commitments)
    if (c.check.pays && predictable) return "reserved";
  return "on-demand";
}

void split_work(const AdviceAnswers& a, const TcoAnalysis& t, bool predictable, Advice& out) {
  const double h = a.gpu_hours_per_week;
  const double owned_week = out.training_owns ? t.choice.owned_gpu_hours * kWeekPerMonth : 0;
  const double baseline = std::min(h, std::max(owned_week, a.steady_share * h));
  const double bursty = h - baseline;
  if (baseline > 0) {
    const std::string where = out.training_owns ? "owned" : pay_as_you_go(t, predictable);
    std::string why = out.training_owns ? "the owned GPUs buy-vs-rent chose (" + std::to_string(t.decision.owned_gpus) + "), kept busy"
                      : where == "reserved" ? "a reserved commitment pays at this use and demand is predictable"
                                            : "no commitment: " + std::string(predictable ? "none pays at this use" : "demand is not predictable enough to commit");
    out.split.push_back({"steady baseline", baseline, where, why});
  }
  const double interruptible = bursty * a.interruptible_share;
  if (interruptible > 0) {
    out.checkpoint_rule = !a.checkpoints;
    out.split.push_back({"interruptible bursts (experiments, sweeps, eval)", interruptible, a.checkpoints ? "spot" : "on-demand",
                         a.checkpoints ? "restartable from checkpoints: spot is safe (spot only for work that can restart)"
                                       : "no checkpoints: a job must checkpoint before it goes on spot; on-demand until then"});
  }
  if (bursty - interruptible > 0)
    out.split.push_back({"deadline and non-interruptible bursts", bursty - interruptible, "on-demand",
                         a.wait_cost == WaitCost::low ? "cannot be interrupted; cheap to wait, so a queue can hold them for owned or spot capacity"
                                                      : "cannot be interrupted and waiting is costly (question 5)"});
}

void what_would_change(const AdviceAnswers& a, const TcoInputs& in, const TcoAnalysis& t, Advice& out) {
  if (t.decision.rule_applied && t.decision.cheapest_owned > t.decision.owned_gpus)
    out.would_change.push_back("predicting utilisation within 30% (now ±" + pct(in.uncertainty) + "): the cheapest expected option owns " +
                               count_of(t.decision.cheapest_owned, "GPU") + " instead of " + std::to_string(t.decision.owned_gpus) +
                               " (if utilisation cannot be predicted within about 30-50%, avoid buying early)");
  for (const auto& row : t.sensitivity) {
    const Sensitivity& s = row.s;
    if (s.flip_down && row.flip_down_verdict)
      out.would_change.push_back(std::string(to_string(s.factor)) + " x" + fixed(*s.flip_down, 2) + " turns buy-vs-rent to " +
                                 to_string(*row.flip_down_verdict));
    if (s.flip_up && row.flip_up_verdict)
      out.would_change.push_back(std::string(to_string(s.factor)) + " x" + fixed(*s.flip_up, 2) + " turns buy-vs-rent to " +
                                 to_string(*row.flip_up_verdict));
  }
  if (t.break_even_gpu_hours && !out.training_owns)
    out.would_change.push_back("steady demand above " + fixed(*t.break_even_gpu_hours * kWeekPerMonth, 0) +
                               " GPU-hours a week (break-even for " + count_of(in.fleet_gpus, "GPU") + ") makes owning pay");
  if (t.decision.verdict != Verdict::rent && a.ops == OpsSkill::managed)
    out.would_change.push_back("a team able to run Slurm or Kubernetes could own " + count_of(t.decision.owned_gpus, "GPU"));
  if (out.checkpoint_rule)
    out.would_change.push_back("checkpointing the interruptible jobs moves them to spot (spot only for work that can restart)");
  if (a.low_latency_inference && a.inference_gpus == 0)
    out.would_change.push_back("steady production inference (--inference-gpus) could justify an owned or reserved serving cluster (pattern 3)");
}

}  // namespace

const char* to_string(WaitCost w) {
  switch (w) {
    case WaitCost::low: return "low";
    case WaitCost::medium: return "medium";
    case WaitCost::high: return "high";
  }
  return "?";
}

const char* to_string(OpsSkill o) {
  switch (o) {
    case OpsSkill::managed: return "managed";
    case OpsSkill::kubernetes: return "kubernetes";
    case OpsSkill::slurm: return "slurm";
  }
  return "?";
}

const char* to_string(Pattern p) {
  switch (p) {
    case Pattern::cloud_first: return "cloud-first";
    case Pattern::owned_baseline_cloud_burst: return "owned baseline + cloud burst";
    case Pattern::cloud_training_owned_serving: return "cloud training + owned serving";
  }
  return "?";
}

double steady_share(const DemandSummary& d) {
  double all = 0, under = 0;
  for (std::size_t i = 0; i + 1 < d.steps.size(); ++i) {
    const double dt = d.steps[i + 1].t - d.steps[i].t;
    all += d.steps[i].gpus * dt;
    under += std::min<double>(d.steps[i].gpus, d.baseline_gpus) * dt;
  }
  return all > 0 ? under / all : 0;
}

double demand_uncertainty(const DemandSummary& d, std::string* basis) {
  const auto& days = d.daily_gpu_hours;
  if (days.size() >= 21) {
    std::vector<double> weeks;
    for (std::size_t w = 0; w + 7 <= days.size(); w += 7) {
      double sum = 0;
      for (std::size_t i = w; i < w + 7; ++i) sum += days[i];
      weeks.push_back(sum);
    }
    if (basis) *basis = "coefficient of variation of " + std::to_string(weeks.size()) + " whole weeks' GPU-hours";
    return cv(weeks);
  }
  if (basis) *basis = "coefficient of variation of " + std::to_string(days.size()) + " days' GPU-hours (under 3 weeks of log)";
  return cv(days);
}

Advice advise(const AdviceAnswers& a, const TcoInputs& in, const TcoAnalysis& t, const TcoAnalysis* serving) {
  Advice out;
  RentTerms none;
  // Per GPU of the whole fleet, so a build's shared parts are spread over the GPUs it holds.
  const int n = std::max(1, in.fleet_gpus);
  out.idle_gpu_per_month = option_cost(n, n, steady_demand(0), in.owned, none, in.horizon_months).total / n;
  out.uncertainty_rule = t.decision.rule_applied;
  if (out.uncertainty_rule)
    out.reasons.push_back("utilisation is uncertain by ±" + pct(in.uncertainty) + " (30% or more): only GPUs that pay at the low end of demand are owned (avoid buying early when utilisation cannot be predicted within about 30-50%)");
  out.training_owns = training_may_own(a, t, out);
  const bool steady_serving = a.low_latency_inference && a.inference_gpus > 0 && serving;
  out.serving_owns = steady_serving && serving->decision.verdict != Verdict::rent && a.ops != OpsSkill::managed &&
                     !(serving->payback_months && *serving->payback_months > a.churn_months);
  if (out.training_owns) {
    out.pattern = Pattern::owned_baseline_cloud_burst;
    out.reasons.push_back("a predictable baseline: owning " + count_of(t.decision.owned_gpus, "GPU") + " is buy-vs-rent's cheapest option (" + to_string(t.decision.verdict) +
                          "; the numbers below); spikes burst to the cloud (the owned-baseline-plus-burst pattern)");
  } else if (out.serving_owns) {
    out.pattern = Pattern::cloud_training_owned_serving;
    out.reasons.push_back("inference is steady (" + count_of(a.inference_gpus, "GPU") + " around the clock) and owning them pays (buy-vs-rent " +
                          to_string(serving->decision.verdict) + "); training stays in the cloud (the cloud-training, owned-serving pattern)");
  } else {
    out.pattern = Pattern::cloud_first;
    out.reasons.push_back("nothing owned pays or can be run: cloud GPUs, queued, spot where safe, portable (the cloud-first pattern)");
  }
  const bool predictable = in.uncertainty < in.uncertainty_rule;
  split_work(a, t, predictable, out);
  if (a.low_latency_inference) {
    const std::string where = out.serving_owns ? "owned" : steady_serving ? pay_as_you_go(*serving, true) : "on-demand";
    out.split.push_back({"production inference (separate cluster)", a.inference_gpus * kHoursPerWeek, where,
                         "latency-sensitive: never spot, kept apart from training (interruptions would break its latency target)"});
  }
  if (a.wait_cost == WaitCost::low && out.training_owns)
    out.reasons.push_back("waiting is cheap (question 5): a queue on the owned GPUs absorbs spikes before they burst (gpuplan replay sizes the wait)");
  what_would_change(a, in, t, out);
  return out;
}

}  // namespace gpuplan
