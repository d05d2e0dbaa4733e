#include "gpuplan/tco.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "gpuplan/tco_defaults.hpp"

namespace gpuplan {
namespace {

constexpr double kMonth = tco_defaults::kHoursPerMonth;

bool committed(Pricing p) { return p == Pricing::reserved_1y || p == Pricing::reserved_3y; }

// What renting `leftover_gpu_hours` of work in one period costs on the cheapest offer, on
// max(min_width, what the work needs) GPUs at once.
struct Rented {
  double cost = 0, gpu_hours = 0;
  int offer = -1;
  bool feasible = true;
};
Rented rent_period(const RentTerms& r, double leftover_gpu_hours, int min_width, double length_hours) {
  Rented out;
  const double hours = leftover_gpu_hours * r.hours_scale;
  // GPUs the leftover needs at once, capped far below int's range (the caller caps demand).
  const int need = hours > 0 ? static_cast<int>(std::min(1e9, std::ceil(hours / length_hours - 1e-9))) : 0;
  const int width = std::max(min_width, need);
  if (width <= 0 || (!committed(r.pricing) && hours <= 0)) return out;
  RunInputs in = r.run;
  in.pricing = r.pricing;
  in.gpus = width;
  // A commitment pays every hour of the period; pay-as-you-go pays the work spread over `width`.
  in.compute_seconds = committed(r.pricing) ? length_hours * 3600.0 : hours * 3600.0 / width;
  in.steps = 0;
  in.tokens = 0;
  bool priced = false;
  for (std::size_t i = 0; i < r.offers.size(); ++i) {
    const RentOffer& o = r.offers[i];
    const auto c = price_run(*o.offer, *o.provider, in);
    if (!c) continue;
    priced = true;
    if (!c->feasible) continue;
    const double cost = c->total * o.currency_rate * r.price_scale;
    if (out.offer < 0 || cost < out.cost) {
      out.offer = static_cast<int>(i);
      out.cost = cost;
      out.gpu_hours = c->gpu_hours;
    }
  }
  if (!priced) throw std::logic_error("buy-vs-rent: no rent offer has a price for the chosen pricing");
  out.feasible = out.offer >= 0;
  return out;
}

std::vector<int> grid_counts(int fleet) {
  std::vector<int> ks;
  if (fleet <= 64) {
    for (int k = 0; k <= fleet; ++k) ks.push_back(k);
    return ks;
  }
  const int step = (fleet + 63) / 64;
  for (int k = 0; k < fleet; k += step) ks.push_back(k);
  ks.push_back(fleet);
  return ks;
}

// The curve over owned counts and its cheapest feasible point (ties go to fewer owned GPUs).
std::vector<CurvePoint> curve_for(const TcoInputs& in, const Demand& d) {
  auto point = [&](int k) {
    const MonthlyCost m = option_cost(k, in.fleet_gpus, d, in.owned, in.rent, in.horizon_months);
    return CurvePoint{k, m.total, m.feasible};
  };
  std::vector<CurvePoint> pts;
  for (int k : grid_counts(in.fleet_gpus)) pts.push_back(point(k));
  if (in.fleet_gpus > 64) {
    // Fill in every count next to the cheapest grid point.
    const int step = (in.fleet_gpus + 63) / 64;
    int best = -1;
    for (std::size_t i = 0; i < pts.size(); ++i)
      if (pts[i].feasible && (best < 0 || pts[i].monthly < pts[best].monthly)) best = static_cast<int>(i);
    if (best >= 0) {
      const int centre = pts[best].owned_gpus;
      for (int k = std::max(0, centre - step + 1); k <= std::min(in.fleet_gpus, centre + step - 1); ++k)
        if (k % step != 0 && k != in.fleet_gpus) pts.push_back(point(k));
      std::sort(pts.begin(), pts.end(), [](const CurvePoint& a, const CurvePoint& b) { return a.owned_gpus < b.owned_gpus; });
    }
  }
  return pts;
}

int cheapest(const std::vector<CurvePoint>& pts) {
  const CurvePoint* best = nullptr;
  for (const auto& p : pts)
    if (p.feasible && (!best || p.monthly < best->monthly)) best = &p;
  return best ? best->owned_gpus : pts.back().owned_gpus;
}

}  // namespace

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::rent: return "RENT";
    case Verdict::buy: return "BUY";
    case Verdict::hybrid: return "HYBRID";
  }
  return "?";
}

const char* to_string(Factor f) {
  switch (f) {
    case Factor::demand: return "demand";
    case Factor::power_price: return "power_price";
    case Factor::resale: return "resale";
    case Factor::cloud_price: return "cloud_price";
  }
  return "?";
}

double Demand::gpu_hours_per_month() const {
  double h = 0;
  for (const auto& p : periods) h += p.per_month * p.gpu_hours;
  return h;
}

double Demand::peak_gpus() const {
  double peak = 0;
  for (const auto& p : periods)
    if (p.length_hours > 0) peak = std::max(peak, p.gpu_hours / p.length_hours);
  return peak;
}

Demand Demand::scaled(double factor) const {
  Demand d = *this;
  for (auto& p : d.periods) p.gpu_hours *= factor;
  return d;
}

Demand steady_demand(double gpu_hours_per_month) { return Demand{{DemandPeriod{kMonth, gpu_hours_per_month, 1.0}}}; }

Demand uncertain_demand(double gpu_hours_per_month, double share, int points) {
  if (share <= 0 || points < 2) return steady_demand(gpu_hours_per_month);
  Demand d;
  for (int i = 0; i < points; ++i) {
    const double m = 1.0 - share + share * (2.0 * i + 1.0) / points;
    d.periods.push_back(DemandPeriod{kMonth, gpu_hours_per_month * m, 1.0 / points});
  }
  return d;
}

Demand profile_demand(const std::vector<double>& gpu_hours, double period_hours) {
  Demand d;
  if (gpu_hours.empty() || period_hours <= 0) return d;
  const double per_month = kMonth / (period_hours * static_cast<double>(gpu_hours.size()));
  for (double h : gpu_hours) d.periods.push_back(DemandPeriod{period_hours, h, per_month});
  return d;
}

Capex capex_for(int owned_gpus, const OwnedTerms& o, int horizon_months) {
  Capex c;
  if (owned_gpus <= 0) return c;
  const int per_build = std::max(1, o.gpus_per_build);
  c.builds = (owned_gpus + per_build - 1) / per_build;
  c.gpus = owned_gpus * o.gpu_price;
  c.rest = c.builds * o.rest_of_machine_per_build;
  c.total = c.gpus + c.rest;
  const int months = std::max(1, horizon_months);
  c.residual = c.total * std::pow(std::clamp(o.resale_kept_per_year, 0.0, 1e6), months / 12.0);
  if (o.financing_per_year > 0) {
    // A loan repaid in equal monthly payments over the horizon (annuity).
    const double i = o.financing_per_year / 12.0;
    // 1 - (1+i)^-n through expm1/log1p: written directly it cancels to nothing for a tiny rate
    // (1e-13 a year gave 78.64 where 0% gives 79.64); this tends to total / n as it should.
    c.payment_per_month = c.total * i / -std::expm1(-months * std::log1p(i));
    c.interest = c.payment_per_month * months - c.total;
  }
  return c;
}

MonthlyCost option_cost(int owned, int fleet, const Demand& d, const OwnedTerms& o, const RentTerms& r,
                        int horizon_months) {
  MonthlyCost m;
  m.owned_gpus = owned;
  const int months = std::max(1, horizon_months);
  const Capex c = capex_for(owned, o, months);
  m.capital = (c.total + c.interest - c.residual) / months;
  m.maintenance = o.maintenance_per_year * c.total / 12.0;
  m.failures = o.failures_per_gpu_year * owned * o.gpu_price / 12.0;
  const double kw_per_gpu = o.tdp_watts / 1000.0;
  m.colo = o.colo_per_kw_month * owned * kw_per_gpu * o.load_factor;
  m.ops = owned > 0 ? o.ops_hours_per_month * o.engineer_rate_per_hour : 0.0;
  const double busy_kw = kw_per_gpu * o.load_factor * o.pue;
  const double idle_kw = kw_per_gpu * o.idle_power_share * o.pue;
  std::vector<double> by_offer(r.offers.size(), 0.0);
  for (const auto& p : d.periods) {
    const double capacity = owned * p.length_hours;
    const double mine = std::min(p.gpu_hours, capacity);
    m.owned_gpu_hours += p.per_month * mine;
    m.power += p.per_month * (mine * busy_kw + (capacity - mine) * idle_kw) * o.power_price_per_kwh;
    const Rented rented = rent_period(r, p.gpu_hours - mine, std::max(0, fleet - owned), p.length_hours);
    if (!rented.feasible) m.feasible = false;
    if (rented.offer >= 0) by_offer[static_cast<std::size_t>(rented.offer)] += p.per_month * rented.cost;
    m.rent += p.per_month * rented.cost;
    m.rented_gpu_hours += p.per_month * rented.gpu_hours;
  }
  for (std::size_t i = 0; i < by_offer.size(); ++i)
    if (by_offer[i] > 0 && (m.rent_offer < 0 || by_offer[i] > by_offer[static_cast<std::size_t>(m.rent_offer)]))
      m.rent_offer = static_cast<int>(i);
  m.running = m.power + m.maintenance + m.failures + m.colo + m.ops;
  m.total = m.capital + m.running + m.rent;
  return m;
}

std::optional<OwnedHourCost> owned_hour_cost(const MonthlyCost& m) {
  if (!(m.owned_gpu_hours > 0)) return std::nullopt;
  return OwnedHourCost{(m.capital + m.running) / m.owned_gpu_hours, (m.power + m.maintenance) / m.owned_gpu_hours};
}

MonthlyCost owned_month(int gpus, double utilisation, const OwnedTerms& o, int horizon_months) {
  const int n = std::max(1, gpus);
  // Steady demand within the owned capacity: nothing is left to rent, so no rent terms are needed.
  const double busy = std::clamp(utilisation, 0.0, 1.0) * n * kMonth;
  return option_cost(n, n, steady_demand(busy), o, RentTerms{}, horizon_months);
}

double Decision::monthly(int owned) const {
  const CurvePoint* best = nullptr;
  for (const auto& p : curve)
    if (!best || std::abs(p.owned_gpus - owned) < std::abs(best->owned_gpus - owned)) best = &p;
  return best ? best->monthly : 0.0;
}

Decision decide(const TcoInputs& in) {
  Decision out;
  out.curve = curve_for(in, in.demand);
  out.cheapest_owned = cheapest(out.curve);
  out.owned_gpus = out.cheapest_owned;
  if (in.uncertainty > 0 && in.uncertainty >= in.uncertainty_rule) {
    // The seeds' rule: when demand cannot be predicted, own only what pays at its low end.
    out.rule_applied = true;
    out.owned_at_low_end = cheapest(curve_for(in, in.demand.scaled(std::max(0.0, 1.0 - in.uncertainty))));
    if (out.cheapest_owned > out.owned_at_low_end) {
      // The cheapest expected cost among the counts that still pay at the low end.
      std::vector<CurvePoint> allowed;
      for (const auto& p : out.curve)
        if (p.owned_gpus <= out.owned_at_low_end) allowed.push_back(p);
      out.owned_gpus = allowed.empty() ? 0 : cheapest(allowed);
    }
  }
  // BUY when the owned GPUs serve every period on their own (even fewer than the fleet);
  // HYBRID when some demand is still rented (a burst, or overflow past a fleet set too small).
  const bool rents = out.owned_gpus > 0 &&
                     option_cost(out.owned_gpus, in.fleet_gpus, in.demand, in.owned, in.rent, in.horizon_months).rent > 0;
  out.verdict = out.owned_gpus <= 0 ? Verdict::rent : rents ? Verdict::hybrid : Verdict::buy;
  return out;
}

std::optional<double> break_even_gpu_hours(const TcoInputs& in) {
  const int n = in.fleet_gpus;
  auto gap = [&](double h) {  // owning minus renting at steady demand h
    const Demand d = steady_demand(h);
    return option_cost(n, n, d, in.owned, in.rent, in.horizon_months).total -
           option_cost(0, n, d, in.owned, in.rent, in.horizon_months).total;
  };
  double lo = 0, hi = n * kMonth;
  double glo = gap(lo), ghi = gap(hi);
  if (glo == 0) return lo;
  if ((glo > 0) == (ghi > 0)) return std::nullopt;
  for (int i = 0; i < 200 && hi - lo > 1e-9; ++i) {
    const double mid = (lo + hi) / 2;
    const double g = gap(mid);
    if ((g > 0) == (glo > 0)) lo = mid, glo = g;
    else hi = mid, ghi = g;
  }
  return (lo + hi) / 2;
}

std::optional<double> payback_months(const MonthlyCost& owned, const MonthlyCost& rent, const Capex& c) {
  if (owned.owned_gpus <= 0) return std::nullopt;
  const double saving = rent.total - (owned.running + owned.rent);
  if (!(saving > 0)) return std::nullopt;
  return (c.total + c.interest) / saving;
}

std::vector<double> cumulative_cost(int owned, const TcoInputs& in) {
  const int months = std::max(1, in.horizon_months);
  return cumulative_cost(option_cost(owned, in.fleet_gpus, in.demand, in.owned, in.rent, months), capex_for(owned, in.owned, months), months);
}

std::vector<double> cumulative_cost(const MonthlyCost& m, const Capex& c, int horizon_months) {
  const int months = std::max(1, horizon_months);
  std::vector<double> out(static_cast<std::size_t>(months) + 1);
  const bool financed = c.payment_per_month > 0;
  for (int t = 0; t <= months; ++t) {
    double v = t * (m.running + m.rent);
    v += financed ? t * c.payment_per_month : c.total;
    if (t == months) v -= c.residual;
    out[static_cast<std::size_t>(t)] = v;
  }
  return out;
}

std::optional<CommitmentCheck> commitment_check(const TcoInputs& in, Pricing term) {
  if (!committed(term)) return std::nullopt;
  const int n = in.fleet_gpus;
  std::optional<CommitmentCheck> best;
  for (std::size_t i = 0; i < in.rent.offers.size(); ++i) {
    const Offer& offer = *in.rent.offers[i].offer;
    if (!offer.price(term) || !offer.price(Pricing::on_demand)) continue;
    RentTerms one = in.rent;
    one.offers = {in.rent.offers[i]};
    CommitmentCheck c;
    c.term = term;
    c.offer = static_cast<int>(i);
    c.term_months = term == Pricing::reserved_1y ? 12 : 36;
    one.pricing = term;
    c.committed_per_month = option_cost(0, n, steady_demand(0), in.owned, one, in.horizon_months).total;
    one.pricing = Pricing::on_demand;
    c.on_demand_per_month = option_cost(0, n, in.demand, in.owned, one, in.horizon_months).total;
    const double full = option_cost(0, n, steady_demand(n * kMonth), in.owned, one, in.horizon_months).total;
    c.break_even_utilisation = full > 0 ? c.committed_per_month / full : 0;
    c.pays = c.committed_per_month < c.on_demand_per_month;
    if (!best || c.committed_per_month < best->committed_per_month) best = c;
  }
  return best;
}

TcoInputs with_factor(TcoInputs in, Factor f, double multiplier) {
  switch (f) {
    case Factor::demand: in.demand = in.demand.scaled(multiplier); break;
    case Factor::power_price: in.owned.power_price_per_kwh *= multiplier; break;
    case Factor::resale:
      // residual = price x kept^(months/12): scale it by scaling kept by multiplier^(12/months).
      in.owned.resale_kept_per_year *= std::pow(std::max(0.0, multiplier), 12.0 / std::max(1, in.horizon_months));
      break;
    case Factor::cloud_price: in.rent.price_scale *= multiplier; break;
  }
  return in;
}

Sensitivity sensitivity(const TcoInputs& in, const Decision& base, Factor f, double swing) {
  Sensitivity s;
  s.factor = f;
  s.swing = swing;
  const int n = in.fleet_gpus;
  // Each end is priced exactly (not read off the curve, which samples large fleets) for the
  // count its own verdict owns.
  auto gap = [&](double multiplier, const Decision& d, int& compared) {
    const TcoInputs t = with_factor(in, f, multiplier);
    compared = d.owned_gpus > 0 ? d.owned_gpus : base.owned_gpus > 0 ? base.owned_gpus : n;
    return option_cost(compared, n, t.demand, t.owned, t.rent, t.horizon_months).total -
           option_cost(0, n, t.demand, t.owned, t.rent, t.horizon_months).total;
  };
  s.low = decide(with_factor(in, f, 1.0 - swing));
  s.high = decide(with_factor(in, f, 1.0 + swing));
  s.low_buy_minus_rent = gap(1.0 - swing, s.low, s.low_compared_owned);
  s.high_buy_minus_rent = gap(1.0 + swing, s.high, s.high_compared_owned);

  auto verdict_at = [&](double m) { return decide(with_factor(in, f, m)).verdict; };
  // Largest multiplier that keeps the residual at or below the hardware price.
  double up_limit = 30.0;
  if (f == Factor::resale) {
    const double kept = std::pow(std::max(0.0, in.owned.resale_kept_per_year), std::max(1, in.horizon_months) / 12.0);
    up_limit = kept > 0 ? std::min(up_limit, 1.0 / kept) : 1.0;
  }
  // Walk out from 1 in 10% steps, then bisect the step where the verdict changes.
  auto find_flip = [&](bool up) -> std::optional<double> {
    double prev = 1.0;
    for (int j = 1; j <= 40; ++j) {
      double m = up ? std::pow(1.1, j) : std::pow(1.1, -j);
      bool last = false;
      if (up && m >= up_limit) m = up_limit, last = true;
      if (!up && j == 40) m = 0.0, last = true;
      if (verdict_at(m) != base.verdict) {
        double a = prev, b = m;  // verdict unchanged at a, changed at b
        for (int i = 0; i < 14; ++i) {
          const double mid = (a + b) / 2;
          if (verdict_at(mid) != base.verdict) b = mid;
          else a = mid;
        }
        return b;
      }
      if (last || (up && m >= up_limit)) break;
      prev = m;
    }
    return std::nullopt;
  };
  s.flip_down = find_flip(false);
  s.flip_up = find_flip(true);
  return s;
}

}  // namespace gpuplan
