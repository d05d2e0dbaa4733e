#include "gpuplan/tco_analysis.hpp"

#include "gpuplan/tco_defaults.hpp"

namespace gpuplan {

namespace {

std::optional<int> partial_count(const Decision& d, int fleet) {
  if (d.owned_gpus > 0 && d.owned_gpus < fleet) return d.owned_gpus;
  std::optional<int> k;
  for (const auto& p : d.curve)
    if (p.owned_gpus > 0 && p.owned_gpus < fleet && p.feasible && (!k || p.monthly < d.monthly(*k))) k = p.owned_gpus;
  return k;
}

std::vector<TcoCommitment> commitments_for(const TcoInputs& in, const CommitmentOffers& offers) {
  std::vector<TcoCommitment> out;
  for (const auto& [term, set] : offers) {
    if (term == in.rent.pricing) continue;  // already the rent option
    TcoInputs t = in;
    t.rent.offers = set;
    if (auto cc = commitment_check(t, term)) out.push_back({*cc, set[static_cast<std::size_t>(cc->offer)].offer});
  }
  return out;
}

// Sixteen evenly spaced rows of the curve, plus its last point and the verdict's and cheapest counts.
std::vector<TcoCurveRow> curve_rows(const TcoInputs& in, const Decision& d) {
  std::vector<TcoCurveRow> out;
  if (in.fleet_gpus < 2) return out;
  const std::size_t step = (d.curve.size() + 15) / 16;
  for (std::size_t i = 0; i < d.curve.size(); ++i) {
    const CurvePoint& p = d.curve[i];
    if (i % step != 0 && i + 1 != d.curve.size() && p.owned_gpus != d.owned_gpus && p.owned_gpus != d.cheapest_owned) continue;
    TcoCurveRow r{p, option_cost(p.owned_gpus, in.fleet_gpus, in.demand, in.owned, in.rent, in.horizon_months), 0};
    if (p.owned_gpus > 0) r.owned_use = r.cost.owned_gpu_hours / (p.owned_gpus * tco_defaults::kHoursPerMonth);
    out.push_back(r);
  }
  return out;
}

}  // namespace

TcoAnalysis analyse_tco(const TcoInputs& in, const RentTerms& spot, const CommitmentOffers& commitments, double swing) {
  TcoAnalysis a;
  const int n = in.fleet_gpus, months = in.horizon_months;
  auto cost_of = [&](int k) { return option_cost(k, n, in.demand, in.owned, in.rent, months); };
  a.decision = decide(in);
  const Decision& d = a.decision;
  a.rent = cost_of(0);
  a.buy = cost_of(n);
  a.choice = cost_of(d.owned_gpus);
  a.partial_owned = partial_count(d, n);
  if (a.partial_owned) a.partial = cost_of(*a.partial_owned);
  a.partial_rents = a.partial && a.partial->rent > 0;
  if (!spot.offers.empty()) {
    const MonthlyCost m = option_cost(0, n, in.demand, in.owned, spot, months);
    if (m.feasible) {
      a.spot = m;
      a.spot_offer = spot.offers[m.rent_offer >= 0 ? static_cast<std::size_t>(m.rent_offer) : 0].offer;
    }
  }
  a.commitments = commitments_for(in, commitments);
  a.break_even_gpu_hours = break_even_gpu_hours(in);
  a.payback_owned = d.owned_gpus > 0 ? d.owned_gpus : n;
  a.payback_months = payback_months(cost_of(a.payback_owned), a.rent, capex_for(a.payback_owned, in.owned, months));
  for (Factor f : {Factor::demand, Factor::power_price, Factor::resale, Factor::cloud_price}) {
    TcoSensitivityRow row{sensitivity(in, d, f, swing), std::nullopt, std::nullopt};
    if (row.s.flip_down) row.flip_down_verdict = decide(with_factor(in, f, *row.s.flip_down)).verdict;
    if (row.s.flip_up) row.flip_up_verdict = decide(with_factor(in, f, *row.s.flip_up)).verdict;
    a.sensitivity.push_back(row);
  }
  a.curve = curve_rows(in, d);
  a.cumulative_rent = cumulative_cost(0, in);
  a.cumulative_buy = cumulative_cost(n, in);
  if (a.partial_owned) a.cumulative_partial = cumulative_cost(*a.partial_owned, in);
  return a;
}

}  // namespace gpuplan
