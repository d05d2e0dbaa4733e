#include "gpuplan/cost.hpp"

#include "gpuplan/units.hpp"

#include <algorithm>
#include <cmath>

namespace gpuplan {

double young_interval(double checkpoint_seconds, double mtbf_seconds) {
  return std::sqrt(2.0 * checkpoint_seconds * mtbf_seconds);
}

double poisson_tail(double mean, long long k) {
  if (k < 0) return 1.0;
  if (mean <= 0) return 0.0;
  // Sum the CDF in log space term by term; k is at most a few thousand restarts.
  double term = std::exp(-mean);
  double cdf = term;
  for (long long i = 1; i <= k && cdf < 1.0; ++i) {
    term *= mean / static_cast<double>(i);
    cdf += term;
  }
  return std::clamp(1.0 - cdf, 0.0, 1.0);
}

RunCost convert(RunCost c, double rate) {
  for (double* m : {&c.compute, &c.storage, &c.egress, &c.tax, &c.total, &c.per_step, &c.per_million_tokens}) *m *= rate;
  return c;
}

TaxTerms tax_terms(const Provider& provider, const RunInputs& in) {
  TaxTerms t;
  // A tax-inclusive sheet's figure holds the sheet's own rate; take it out first.
  if (provider.tax_basis == TaxBasis::inclusive) t.pre_tax = 1.0 / (1.0 + provider.tax_rate.value_or(0.0));
  if (in.tax_basis == TaxBasis::inclusive && !in.input_tax_credit)
    t.rate = in.tax_rate.value_or(provider.tax_rate.value_or(0.0));
  return t;
}

std::optional<RunCost> price_run(const Offer& offer, const Provider& provider, const RunInputs& in) {
  const auto per_gpu_hour = offer.price(in.pricing);
  if (!per_gpu_hour) return std::nullopt;
  RunCost c;
  const int per_instance = std::max(1, offer.gpus);
  c.instances = (std::max(1, in.gpus) + per_instance - 1) / per_instance;  // whole instances are rented
  c.gpus_billed = c.instances * per_instance;

  const double startup = in.startup_seconds.value_or(provider.startup_seconds.value_or(0.0));
  const double busy = 1.0 - std::clamp(in.idle_fraction, 0.0, 0.99);
  double work = in.compute_seconds / busy;

  if (in.pricing == Pricing::spot) {
    SpotOutcome s;
    const double per_instance_rate = in.preemptions_per_hour.value_or(offer.spot_preemptions_per_hour.value_or(0.0));
    s.preemptions_per_hour = per_instance_rate * c.instances;
    const double lambda = s.preemptions_per_hour / 3600.0;  // per second
    if (lambda > 0) {
      const double ckpt = std::max(0.0, in.checkpoint_seconds);
      double interval = in.checkpoint_every_seconds.value_or(ckpt > 0 ? young_interval(ckpt, 1.0 / lambda) : 0.0);
      // Without a checkpoint cost, checkpoint as often as the sheet of work allows: every step
      // is the limit; use one minute so lost work stays finite.
      if (interval <= 0) interval = 60.0;
      s.checkpoint_interval_seconds = interval;
      const double with_ckpt = work * (1.0 + ckpt / interval);
      const double loss_per_preemption = interval / 2.0 + in.restart_seconds + startup;
      const double pressure = lambda * loss_per_preemption;
      if (pressure >= 1.0) {
        c.feasible = false;
        c.infeasible_reason = "preempted faster than it can make progress";
        return c;
      }
      const double wall = with_ckpt / (1.0 - pressure);
      s.expected_preemptions = lambda * wall;
      s.checkpoint_overhead_seconds = with_ckpt - work;
      s.lost_work_seconds = wall - with_ckpt;
      if (in.deadline_seconds) {
        const double room = *in.deadline_seconds - startup - with_ckpt;
        const long long k = room < 0 ? -1 : static_cast<long long>(std::floor(room / loss_per_preemption));
        s.p_miss_deadline = poisson_tail(lambda * *in.deadline_seconds, k);
      }
      if (s.expected_preemptions > in.max_restarts) {
        c.feasible = false;
        c.infeasible_reason = "expected preemptions exceed the restart cap";
      }
      work = wall;
    }
    c.spot = s;
  } else if (in.checkpoint_every_seconds && *in.checkpoint_every_seconds > 0) {
    work *= 1.0 + in.checkpoint_seconds / *in.checkpoint_every_seconds;
  }

  c.wall_seconds = work + startup;
  const double inc = std::max(1, provider.billing_increment_seconds);
  c.billed_seconds = std::max<double>(provider.minimum_billed_seconds, std::ceil(c.wall_seconds / inc) * inc);
  c.gpu_hours = c.billed_seconds / 3600.0 * c.gpus_billed;
  const TaxTerms tax = tax_terms(provider, in);
  c.compute = c.gpu_hours * *per_gpu_hour * tax.pre_tax;

  const double months = c.wall_seconds / 3600.0 / kHoursPerMonth;
  if (in.storage_gb > 0) {
    if (provider.storage_per_gb_month) c.storage = in.storage_gb * *provider.storage_per_gb_month * months * tax.pre_tax;
    else c.storage_priced = false;
  }
  if (in.egress_gb > 0) {
    if (provider.egress_per_gb) c.egress = in.egress_gb * *provider.egress_per_gb * tax.pre_tax;
    else c.egress_priced = false;
  }
  c.tax = (c.compute + c.storage + c.egress) * tax.rate;
  c.total = c.compute + c.storage + c.egress + c.tax;
  if (in.steps > 0) c.per_step = c.total / in.steps;
  if (in.tokens > 0) c.per_million_tokens = c.total / in.tokens * 1e6;
  if (in.deadline_seconds) c.meets_deadline = c.wall_seconds <= *in.deadline_seconds;
  return c;
}

}  // namespace gpuplan
