// Serving fleets: queueing (Erlang C), replicas for a traffic level, scaling, and the bill.
#include "gpuplan/serving.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gpuplan {

namespace {
constexpr double kSecondsPerMonth = kHoursPerMonth * 3600.0;
int tp_of(const ServingConfig& c) { return std::max(1, c.workload.tensor_parallel); }
}  // namespace

double erlang_c(std::int64_t servers, double a) {
  if (servers < 1) return 1.0;
  if (a <= 0) return 0.0;
  const double c = static_cast<double>(servers);
  if (a >= c) return 1.0;
  double b = 1.0;  // Erlang B by the stable recursion B(k) = a B(k-1) / (k + a B(k-1))
  for (std::int64_t k = 1; k <= servers; ++k) b = a * b / (static_cast<double>(k) + a * b);
  const double rho = a / c;
  return b / (1.0 - rho * (1.0 - b));
}

double mmc_wait_quantile(std::int64_t servers, double lambda, double service_seconds, double q) {
  if (lambda <= 0 || service_seconds <= 0) return 0;
  const double c = static_cast<double>(std::max<std::int64_t>(1, servers));
  const double mu = 1.0 / service_seconds;
  if (lambda >= c * mu) return std::numeric_limits<double>::infinity();
  const double pw = erlang_c(servers, lambda * service_seconds);
  const double tail = 1.0 - q;
  if (pw <= tail) return 0;
  return std::log(pw / tail) / (c * mu - lambda);  // P(W > t) = C e^{-(c mu - lambda) t}
}

double ttft_quantile(const ModelArch& m, const ParamCounts& pc, const Gpu& gpu, const ServingConfig& c,
                     const ServingRequest& r, const ReplicaPlan& p, double lambda) {
  const double q = c.k.latency_quantile;
  const double s = p.request_seconds;
  const double wait = mmc_wait_quantile(p.operating_batch, lambda, s, q);
  if (c.batching == Batching::static_batch) {
    // A request waits for the running batch (uniform over its cycle while one runs), then
    // its own batch's prefill.
    const double busy = std::min(1.0, lambda * s);
    return p.prefill_seconds + q * s * busy + wait;
  }
  // The prompt joins a pass already in flight when any sequence is decoding (M/G/inf: busy
  // with probability 1 - e^{-lambda s}).
  const double step = lambda > 0 ? load_point(m, pc, gpu, c, r, p, lambda).tpot_seconds : 0.0;
  return p.prefill_seconds + step * (1.0 - std::exp(-lambda * s)) + wait;
}

FleetPlan plan_fleet(const ModelArch& m, const ParamCounts& pc, const Gpu& gpu, const ReplicaPlan& p, const ServingConfig& c,
                     const ServingRequest& r, const Traffic& t, const Scaling& s, const LatencyTargets& targets) {
  FleetPlan f;
  f.requests_per_month = t.mean_requests_per_second * kSecondsPerMonth;
  f.output_tokens_per_month = f.requests_per_month * r.output_tokens;
  f.meets_latency = p.meets_latency;
  f.latency_shortfall = p.latency_shortfall;
  if (!p.capacity.fits || p.max_requests_per_second <= 0) {
    f.meets_latency = false;
    return f;
  }
  const double peak = t.mean_requests_per_second * std::max(1.0, t.peak_factor);
  f.replicas_needed = std::max(1.0, std::ceil(peak / p.max_requests_per_second - 1e-9));
  if (s.autoscale) f.replicas_needed = std::max(f.replicas_needed, static_cast<double>(s.min_replicas));
  // Checked before any integer conversion: the count must fit the limit (and so an int).
  if (!(f.replicas_needed * tp_of(c) <= c.k.max_fleet_gpus)) {
    f.beyond_limit = true;
    f.meets_latency = false;
    f.latency_shortfall = shortfall_of(ServingLimit::beyond_fleet, f.replicas_needed, c.k.max_fleet_gpus);
    f.latency_shortfall.gpus_per_replica = tp_of(c);
    return f;
  }
  f.replicas = static_cast<int>(f.replicas_needed);
  f.ttft_seconds = ttft_quantile(m, pc, gpu, c, r, p, peak / f.replicas);
  f.at_peak = load_point(m, pc, gpu, c, r, p, peak / f.replicas);

  double replicas_on = f.replicas;  // mean replicas billed
  if (s.autoscale) {
    // Perfectly elastic capacity (a lower bound): the mean traffic's share of replicas.
    const double needed = t.mean_requests_per_second / p.max_requests_per_second;
    replicas_on = std::max(static_cast<double>(s.min_replicas), needed);
    if (s.min_replicas == 0) {
      // Scale to zero: a replica stays up while requests arrive within keep_warm of the last
      // one finishing; a longer gap (Poisson) means a cold start for the next request.
      const double lambda = t.mean_requests_per_second;
      const double window = p.request_seconds + s.keep_warm_seconds;
      f.cold_start_request_share = std::exp(-lambda * window);
      const double launches_per_second = lambda * f.cold_start_request_share;
      f.launches_per_month = launches_per_second * kSecondsPerMonth;
      const double on = (1.0 - f.cold_start_request_share) + launches_per_second * s.cold_start_seconds;
      replicas_on = std::max(needed, std::min(1.0, on));
      if (f.cold_start_request_share > 1.0 - c.k.latency_quantile) f.ttft_seconds += s.cold_start_seconds;
    }
  }
  f.replica_hours_per_month = replicas_on * kHoursPerMonth;
  f.utilization = replicas_on > 0 ? t.mean_requests_per_second / (replicas_on * p.capacity_requests_per_second) : 0;
  // A replica loaded past the planning cap (or past its capacity) is never within target,
  // whatever the queueing formulas say at that load.
  const double cap = std::clamp(c.k.max_utilization, 0.01, 0.999);
  if (f.meets_latency && (peak / f.replicas > p.max_requests_per_second * (1 + 1e-9) || f.utilization > cap + 1e-9)) {
    f.meets_latency = false;
    f.latency_shortfall = shortfall_of(ServingLimit::utilization_cap, f.utilization, cap);
  }
  if (targets.ttft_seconds && f.ttft_seconds > *targets.ttft_seconds + 1e-12 && f.meets_latency) {
    f.meets_latency = false;
    f.latency_shortfall = shortfall_of(ServingLimit::cold_starts, f.cold_start_request_share, 0);
  }
  return f;
}

std::optional<ServingCost> price_serving(const Offer& offer, const Provider& provider, const ServingConfig& c,
                                         const ReplicaPlan& rp, const FleetPlan& f, const Scaling& s, const RunInputs& bill) {
  const int tp = tp_of(c);
  const int per_instance = std::max(1, offer.gpus);
  // A replica wider than one instance runs only where a stated node shape joins instances into
  // one node (serve_on checks); it then takes whole instances, billed together as one unit.
  const int joined = (tp + per_instance - 1) / per_instance;
  if ((joined > 1 && !c.links) || f.replicas < 1) return std::nullopt;
  const auto price = offer.price(bill.pricing);
  if (!price) return std::nullopt;
  ServingCost sc;
  const int unit_gpus = joined * per_instance;
  sc.instances_per_replica = joined;
  sc.replicas_per_instance = unit_gpus / tp;  // per unit: 1 when a replica joins instances
  const int units = (f.replicas + sc.replicas_per_instance - 1) / sc.replicas_per_instance;
  sc.instances = units * joined;
  sc.gpus_billed = static_cast<std::int64_t>(sc.instances) * per_instance;  // replicas <= max_fleet_gpus: no overflow
  const double tax = bill.tax_rate.value_or(provider.tax_rate.value_or(0.0));
  sc.rate_per_hour = *price * per_instance * (1.0 + tax);

  RunInputs in = bill;
  in.gpus = unit_gpus;  // one unit (an instance, or the instances one replica joins); scaled below
  in.idle_fraction = 0;
  std::optional<RunCost> rc;
  if (!s.autoscale) {
    in.compute_seconds = kSecondsPerMonth;
    in.startup_seconds = 0;
    rc = price_run(offer, provider, in);
    if (!rc) return std::nullopt;
    sc.per_month = rc->total * units;
  } else {
    // An instance is up whenever one of its replicas is: below one replica on average that is
    // the replicas' own on-time; above it, replicas pack into instances (elastic lower bound).
    const double replicas_on = f.replica_hours_per_month / kHoursPerMonth;
    const double packed = replicas_on <= 1 ? replicas_on : std::max(1.0, replicas_on / sc.replicas_per_instance);
    const double instances_on = std::max(std::ceil(static_cast<double>(s.min_replicas) / sc.replicas_per_instance), packed);
    if (s.min_replicas == 0 && f.launches_per_month > 0) {
      // Each launch is billed on its own: start-up, then the on-period, rounded to the sheet's increment.
      const double on_seconds = instances_on * kSecondsPerMonth;
      in.compute_seconds = on_seconds / f.launches_per_month;
      in.startup_seconds = 0;  // the cold start is inside the on-period already
      rc = price_run(offer, provider, in);
      if (!rc) return std::nullopt;
      sc.per_month = rc->total * f.launches_per_month;
    } else {
      in.compute_seconds = instances_on * kSecondsPerMonth;
      in.startup_seconds = 0;
      rc = price_run(offer, provider, in);
      if (!rc) return std::nullopt;
      sc.per_month = rc->total;
    }
  }
  if (f.output_tokens_per_month > 0) sc.per_million_output_tokens = sc.per_month / f.output_tokens_per_month * 1e6;
  if (f.requests_per_month > 0) sc.per_request = sc.per_month / f.requests_per_month;
  if (rp.tokens_per_second > 0)
    sc.at_full_load_per_million_output_tokens =
        sc.rate_per_hour * joined / sc.replicas_per_instance / (rp.tokens_per_second * 3600) * 1e6;
  return sc;
}

}  // namespace gpuplan
