#include "gpuplan/tco_jobs.hpp"

#include <algorithm>
#include <limits>
#include <optional>

#include "gpuplan/units.hpp"

namespace gpuplan {
namespace {

constexpr double kNoTarget = std::numeric_limits<double>::infinity();

// Burst at once: the owned fleet takes what fits, the rest rents without waiting, so no queue
// target is needed and every fleet meets it.
FleetSweep sweep_at_once(const std::vector<ReplayJob>& jobs, const std::vector<int>& candidates, const FleetCostTerms& t) {
  return sweep_fleet(jobs, candidates, {0.0}, {}, t, kNoTarget);
}

int cheapest_of(const FleetSweep& s, int max_owned) {
  int best = -1;
  for (std::size_t i = 0; i < s.options.size(); ++i)
    if (s.options[i].policy.owned_gpus <= max_owned && (best < 0 || s.options[i].month.total < s.options[static_cast<std::size_t>(best)].month.total))
      best = static_cast<int>(i);
  return std::max(best, 0);
}

// The uncertainty rule on jobs: the same jobs each shortened to the low end of demand.
int owned_at_low_end(const TcoInputs& in, std::vector<ReplayJob> jobs, const FleetCostTerms& t, const std::vector<int>& candidates) {
  for (ReplayJob& j : jobs) j.duration *= std::max(0.0, 1.0 - in.uncertainty);
  const FleetSweep low = sweep_at_once(jobs, candidates, t);
  return low.options[static_cast<std::size_t>(cheapest_of(low, std::numeric_limits<int>::max()))].policy.owned_gpus;
}

Decision decision_of(const TcoInputs& in, const std::vector<ReplayJob>& jobs, const FleetCostTerms& t, const std::vector<int>& candidates,
                     const FleetSweep& s, int& chosen) {
  Decision d;
  for (const FleetOption& o : s.options) d.curve.push_back(CurvePoint{o.policy.owned_gpus, o.month.total, true});
  chosen = cheapest_of(s, std::numeric_limits<int>::max());
  d.cheapest_owned = d.owned_gpus = s.options[static_cast<std::size_t>(chosen)].policy.owned_gpus;
  if (in.uncertainty > 0 && in.uncertainty >= in.uncertainty_rule) {
    d.rule_applied = true;
    d.owned_at_low_end = owned_at_low_end(in, jobs, t, candidates);
    if (d.cheapest_owned > d.owned_at_low_end) {
      chosen = cheapest_of(s, d.owned_at_low_end);
      d.owned_gpus = s.options[static_cast<std::size_t>(chosen)].policy.owned_gpus;
    }
  }
  d.verdict = verdict_of(s.options[static_cast<std::size_t>(chosen)]);
  return d;
}

}  // namespace

std::vector<int> buildable_fleets(int peak_gpus, int gpus_per_build, int max_points) {
  const int per = std::max(1, gpus_per_build);
  const int builds = (std::max(0, peak_gpus) + per - 1) / per;
  const int step = std::max(1, (builds + std::max(1, max_points - 1) - 1) / std::max(1, max_points - 1));
  std::vector<int> out{0};
  for (int b = step; b < builds; b += step) out.push_back(b * per);
  if (builds > 0) out.push_back(builds * per);
  return out;
}

Demand demand_of_log(const DemandSummary& d) {
  Demand out;
  const double per_month = d.months > 0 ? 1.0 / d.months : 0.0;
  for (double h : d.daily_gpu_hours) out.periods.push_back(DemandPeriod{24.0, h, per_month});
  return out;
}

Verdict verdict_of(const FleetOption& o) {
  if (o.policy.owned_gpus <= 0) return Verdict::rent;
  return o.month.spot + o.month.on_demand > 0 || o.replay.all.burst > 0 ? Verdict::hybrid : Verdict::buy;
}

MonthlyCost monthly_cost_of(const FleetMonth& m) {
  MonthlyCost c = m.owned;
  c.rent = m.spot + m.on_demand;
  c.rented_gpu_hours = m.spot_billed_gpu_hours + m.on_demand_billed_gpu_hours;
  c.total = m.total;
  c.rent_offer = m.on_demand_offer;  // the bursts rent on-demand (no job is marked as checkpointing here)
  return c;
}

JobTcoAnalysis analyse_tco_jobs(const TcoInputs& in, const std::vector<ReplayJob>& jobs, const FleetCostTerms& terms,
                                const std::vector<int>& candidates) {
  JobTcoAnalysis out;
  out.sweep = sweep_at_once(jobs, candidates, terms);
  TcoAnalysis& a = out.analysis;
  a.decision = decision_of(in, jobs, terms, candidates, out.sweep, out.chosen);
  const auto& opts = out.sweep.options;
  auto cost_at = [&](std::size_t i) { return monthly_cost_of(opts[i].month); };
  a.rent = cost_at(0);
  a.buy = cost_at(opts.size() - 1);
  a.choice = cost_at(static_cast<std::size_t>(out.chosen));
  // The partial option: the verdict's count when it owns some but not all, else the cheapest in between.
  const std::size_t last = opts.size() - 1;
  std::optional<std::size_t> partial;
  if (out.chosen > 0 && static_cast<std::size_t>(out.chosen) < last) partial = static_cast<std::size_t>(out.chosen);
  else
    for (std::size_t i = 1; i < last; ++i)
      if (!partial || opts[i].month.total < opts[*partial].month.total) partial = i;
  if (partial) {
    a.partial_owned = opts[*partial].policy.owned_gpus;
    a.partial = cost_at(*partial);
  }
  a.partial_rents = a.partial && a.partial->rent > 0;
  // The owner's terms and horizon are the ones the fleets were priced with (terms), so the
  // payback and the chart's capex are those of the months above.
  const int months = std::max(1, terms.horizon_months);
  const OwnedTerms& owner = terms.owned;
  a.payback_owned = a.decision.owned_gpus > 0 ? a.decision.owned_gpus : a.buy.owned_gpus;
  const MonthlyCost& payer = a.decision.owned_gpus > 0 ? a.choice : a.buy;
  a.payback_months = payback_months(payer, a.rent, capex_for(a.payback_owned, owner, months));
  for (std::size_t i = 0; i < opts.size(); ++i) {
    TcoCurveRow r{a.decision.curve[i], cost_at(i), 0};
    if (r.point.owned_gpus > 0) r.owned_use = opts[i].replay.owned_busy_gpu_hours / opts[i].month.months / (r.point.owned_gpus * kHoursPerMonth);
    a.curve.push_back(r);
  }
  a.cumulative_rent = cumulative_cost(a.rent, Capex{}, months);
  a.cumulative_buy = cumulative_cost(a.buy, capex_for(a.buy.owned_gpus, owner, months), months);
  if (a.partial_owned) a.cumulative_partial = cumulative_cost(*a.partial, capex_for(*a.partial_owned, owner, months), months);
  return out;
}

}  // namespace gpuplan
