#include "gpuplan/advise.hpp"

#include <algorithm>
#include <cmath>

#include "gpuplan/tco_defaults.hpp"

namespace gpuplan {
namespace {


constexpr double kWeekPerMonth = per_month_to_per_week(1.0);  // units.hpp: the one week and month

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
    PatternReason r;
    const bool low_end = t.decision.rule_applied && t.decision.cheapest_owned > 0;
    r.code = low_end ? AdviceReason::rent_low_end : AdviceReason::rent_no_payback;
    r.gpus = low_end ? t.decision.cheapest_owned : t.payback_owned;
    out.reasons.push_back(r);
    return false;
  }
  if (a.ops == OpsSkill::managed) {
    PatternReason r;
    r.code = AdviceReason::needs_managed;
    r.gpus = t.decision.owned_gpus;
    out.reasons.push_back(r);
    return false;
  }
  if (t.payback_months && *t.payback_months > a.churn_months) {
    PatternReason r;
    r.code = AdviceReason::churn_before_payback;
    r.churn_months = a.churn_months;
    r.payback_months = *t.payback_months;
    out.reasons.push_back(r);
    return false;
  }
  return true;
}

RunOn pay_as_you_go(const TcoAnalysis& t, bool predictable) {
  for (const auto& c : t.commitments)
    if (c.check.pays && predictable) return RunOn::reserved;
  return RunOn::on_demand;
}

void split_work(const AdviceAnswers& a, const TcoAnalysis& t, bool predictable, Advice& out) {
  const double h = a.gpu_hours_per_week;
  const double owned_week = out.training_owns ? t.choice.owned_gpu_hours * kWeekPerMonth : 0;
  const double baseline = std::min(h, std::max(owned_week, a.steady_share * h));
  const double bursty = h - baseline;
  if (baseline > 0) {
    const RunOn where = out.training_owns ? RunOn::owned : pay_as_you_go(t, predictable);
    const PlacementWhy why = out.training_owns             ? PlacementWhy::owned_busy
                             : where == RunOn::reserved     ? PlacementWhy::reserved_pays
                             : predictable                  ? PlacementWhy::no_commitment_pays
                                                            : PlacementWhy::unpredictable;
    out.split.push_back({WorkloadClass::steady_baseline, baseline, where, why, t.decision.owned_gpus});
  }
  const double interruptible = bursty * a.interruptible_share;
  if (interruptible > 0) {
    out.checkpoint_rule = !a.checkpoints;
    out.split.push_back({WorkloadClass::interruptible_bursts, interruptible, a.checkpoints ? RunOn::spot : RunOn::on_demand,
                         a.checkpoints ? PlacementWhy::checkpointed : PlacementWhy::no_checkpoints});
  }
  if (bursty - interruptible > 0)
    out.split.push_back({WorkloadClass::deadline_bursts, bursty - interruptible, RunOn::on_demand,
                         a.wait_cost == WaitCost::low ? PlacementWhy::queue_can_hold : PlacementWhy::waiting_costly});
}

void what_would_change(const AdviceAnswers& a, const TcoInputs& in, const TcoAnalysis& t, Advice& out) {
  auto change = [&](AdviceChange code) -> AnswerChange& {
    out.would_change.push_back({});
    out.would_change.back().code = code;
    return out.would_change.back();
  };
  if (t.decision.rule_applied && t.decision.cheapest_owned > t.decision.owned_gpus) {
    AnswerChange& c = change(AdviceChange::predictable_demand);
    c.uncertainty = in.uncertainty;
    c.gpus = t.decision.cheapest_owned;
    c.owned_gpus = t.decision.owned_gpus;
  }
  for (const auto& row : t.sensitivity) {
    const Sensitivity& s = row.s;
    auto flip = [&](double multiplier, Verdict verdict) {
      AnswerChange& c = change(AdviceChange::factor_flip);
      c.factor = s.factor;
      c.multiplier = multiplier;
      c.verdict = verdict;
    };
    if (s.flip_down && row.flip_down_verdict) flip(*s.flip_down, *row.flip_down_verdict);
    if (s.flip_up && row.flip_up_verdict) flip(*s.flip_up, *row.flip_up_verdict);
  }
  if (t.break_even_gpu_hours && !out.training_owns) {
    AnswerChange& c = change(AdviceChange::steady_demand);
    c.gpu_hours_per_week = *t.break_even_gpu_hours * kWeekPerMonth;
    c.gpus = in.fleet_gpus;
  }
  if (t.decision.verdict != Verdict::rent && a.ops == OpsSkill::managed) change(AdviceChange::ops_team).gpus = t.decision.owned_gpus;
  if (out.checkpoint_rule) change(AdviceChange::checkpointing);
  if (a.low_latency_inference && a.inference_gpus == 0) change(AdviceChange::steady_inference);
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

const char* to_string(RunOn p) {
  switch (p) {
    case RunOn::owned: return "owned";
    case RunOn::reserved: return "reserved";
    case RunOn::spot: return "spot";
    case RunOn::on_demand: return "on-demand";
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

DemandUncertainty demand_uncertainty(const DemandSummary& d) {
  DemandUncertainty u;
  const auto& days = d.daily_gpu_hours;
  if (days.size() >= 21) {
    std::vector<double> weeks;
    for (std::size_t w = 0; w + 7 <= days.size(); w += 7) {
      double sum = 0;
      for (std::size_t i = w; i < w + 7; ++i) sum += days[i];
      weeks.push_back(sum);
    }
    u.weekly = true;
    u.periods = weeks.size();
    u.measured = cv(weeks);
  } else {
    u.periods = days.size();
    u.measured = cv(days);
  }
  u.value = std::min(u.measured, 1.0);
  return u;
}

Advice advise(const AdviceAnswers& a, const TcoInputs& in, const TcoAnalysis& t, const TcoAnalysis* serving) {
  Advice out;
  RentTerms none;
  // Per GPU of the whole fleet, so a build's shared parts are spread over the GPUs it holds.
  const int n = std::max(1, in.fleet_gpus);
  out.idle_gpu_per_month = option_cost(n, n, steady_demand(0), in.owned, none, in.horizon_months).total / n;
  out.uncertainty_rule = t.decision.rule_applied;
  if (out.uncertainty_rule) {
    PatternReason r;
    r.code = AdviceReason::uncertain_demand;
    r.uncertainty = in.uncertainty;
    out.reasons.push_back(r);
  }
  out.training_owns = training_may_own(a, t, out);
  const bool steady_serving = a.low_latency_inference && a.inference_gpus > 0 && serving;
  out.serving_owns = steady_serving && serving->decision.verdict != Verdict::rent && a.ops != OpsSkill::managed &&
                     !(serving->payback_months && *serving->payback_months > a.churn_months);
  PatternReason why;
  if (out.training_owns) {
    out.pattern = Pattern::owned_baseline_cloud_burst;
    why.code = AdviceReason::owned_baseline;
    why.gpus = t.decision.owned_gpus;
    why.verdict = t.decision.verdict;
  } else if (out.serving_owns) {
    out.pattern = Pattern::cloud_training_owned_serving;
    why.code = AdviceReason::owned_serving;
    why.gpus = a.inference_gpus;
    why.verdict = serving->decision.verdict;
  } else {
    out.pattern = Pattern::cloud_first;
    why.code = AdviceReason::cloud_first;
  }
  out.reasons.push_back(why);
  const bool predictable = in.uncertainty < in.uncertainty_rule;
  split_work(a, t, predictable, out);
  if (a.low_latency_inference) {
    const RunOn where = out.serving_owns ? RunOn::owned : steady_serving ? pay_as_you_go(*serving, true) : RunOn::on_demand;
    out.split.push_back({WorkloadClass::production_inference, a.inference_gpus * kHoursPerWeek, where, PlacementWhy::latency_sensitive});
  }
  if (a.wait_cost == WaitCost::low && out.training_owns) {
    PatternReason r;
    r.code = AdviceReason::queue_absorbs_spikes;
    out.reasons.push_back(r);
  }
  what_would_change(a, in, t, out);
  return out;
}

}  // namespace gpuplan
