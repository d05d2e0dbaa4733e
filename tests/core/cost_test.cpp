#include <catch2/catch.hpp>

#include <cmath>

#include "gpuplan/cost.hpp"

using namespace gpuplan;

namespace {
Provider hourly_provider() {
  Provider p;
  p.id = "p";
  p.currency = "USD";
  p.billing_increment_seconds = 3600;
  return p;
}
Offer offer(int gpus, double on_demand, std::optional<double> spot = std::nullopt) {
  Offer o;
  o.id = "o";
  o.gpus = gpus;
  o.per_gpu_hour[static_cast<int>(Pricing::on_demand)] = on_demand;
  o.per_gpu_hour[static_cast<int>(Pricing::spot)] = spot;
  return o;
}
}  // namespace

TEST_CASE("whole instances and billing increments are paid", "[cost]") {
  RunInputs in;
  in.compute_seconds = 61 * 60;  // a 61-minute job
  in.gpus = 3;                   // on an 8-GPU node
  in.steps = 100;
  in.tokens = 1e6;
  const auto c = price_run(offer(8, 2.0), hourly_provider(), in);
  REQUIRE(c);
  CHECK(c->instances == 1);
  CHECK(c->gpus_billed == 8);
  CHECK(c->billed_seconds == 7200);  // hourly billing pays 2 hours
  CHECK(c->compute == Approx(2 * 8 * 2.0));
  CHECK(c->per_step == Approx(c->total / 100));
  CHECK(c->per_million_tokens == Approx(c->total));
  in.gpus = 9;
  CHECK(price_run(offer(8, 2.0), hourly_provider(), in)->instances == 2);
}

TEST_CASE("start-up, idle time, minimums, storage, egress and tax are on the bill", "[cost]") {
  Provider p;
  p.billing_increment_seconds = 1;
  p.minimum_billed_seconds = 600;
  p.startup_seconds = 120;
  p.storage_per_gb_month = 0.073;
  p.egress_per_gb = 0.09;
  p.tax_rate = 0.18;
  RunInputs in;
  in.compute_seconds = 3600;
  in.idle_fraction = 0.1;
  in.storage_gb = 100;
  in.egress_gb = 16;
  const auto c = price_run(offer(1, 1.0), p, in);
  REQUIRE(c);
  CHECK(c->wall_seconds == Approx(3600 / 0.9 + 120));
  CHECK(c->compute == Approx(c->wall_seconds / 3600));
  CHECK(c->storage == Approx(100 * 0.073 * c->wall_seconds / 3600 / 730));
  CHECK(c->egress == Approx(16 * 0.09));
  CHECK(c->tax == Approx(0.18 * (c->compute + c->storage + c->egress)));
  CHECK(c->total == Approx(1.18 * (c->compute + c->storage + c->egress)));
  in.compute_seconds = 10;
  CHECK(price_run(offer(1, 1.0), p, in)->billed_seconds == 600);
  in.tax_rate = 0.0;  // a flag overrides the sheet
  CHECK(price_run(offer(1, 1.0), p, in)->tax == 0);
  p.storage_per_gb_month.reset();
  CHECK_FALSE(price_run(offer(1, 1.0), p, in)->storage_priced);
}

TEST_CASE("an offer without the requested pricing is not priced", "[cost]") {
  RunInputs in;
  in.pricing = Pricing::spot;
  CHECK_FALSE(price_run(offer(1, 1.0), hourly_provider(), in));
}

TEST_CASE("Young's interval and the spot overheads", "[cost][spot]") {
  // cost_notes: C = 2 min, MTBF = 4 h -> Young 31.0 min.
  CHECK(young_interval(120, 4 * 3600) / 60 == Approx(31.0).epsilon(0.005));
  Provider p;
  RunInputs in;
  in.pricing = Pricing::spot;
  in.compute_seconds = 10 * 3600;
  in.preemptions_per_hour = 0.25;
  in.checkpoint_seconds = 120;
  in.restart_seconds = 300;
  const auto c = price_run(offer(1, 3.0, 1.0), p, in);
  REQUIRE(c);
  REQUIRE(c->spot);
  const double tau = young_interval(120, 4 * 3600);
  CHECK(c->spot->checkpoint_interval_seconds == Approx(tau));
  const double with_ckpt = 36000 * (1 + 120 / tau);
  const double wall = with_ckpt / (1 - 0.25 / 3600 * (tau / 2 + 300));
  CHECK(c->wall_seconds == Approx(wall));
  CHECK(c->spot->expected_preemptions == Approx(0.25 / 3600 * wall));
  CHECK(c->compute == Approx(std::ceil(wall) / 3600 * 1.0));
  // Two instances: losing either restarts the job.
  in.gpus = 2;
  CHECK(price_run(offer(1, 3.0, 1.0), p, in)->spot->preemptions_per_hour == Approx(0.5));
  // Preempted faster than progress: not feasible.
  in.preemptions_per_hour = 20;
  CHECK_FALSE(price_run(offer(1, 3.0, 1.0), p, in)->feasible);
}

TEST_CASE("the deadline miss probability is a Poisson tail", "[cost][spot]") {
  CHECK(poisson_tail(2.0, 0) == Approx(1 - std::exp(-2.0)));
  CHECK(poisson_tail(2.0, 2) == Approx(1 - std::exp(-2.0) * (1 + 2 + 2)));
  CHECK(poisson_tail(0.0, 3) == 0);
  CHECK(poisson_tail(5.0, -1) == 1);
  Provider p;
  RunInputs in;
  in.pricing = Pricing::spot;
  in.compute_seconds = 3600;
  in.preemptions_per_hour = 0.5;
  in.checkpoint_seconds = 60;
  in.deadline_seconds = 1.5 * 3600;
  const auto tight = price_run(offer(1, 3.0, 1.0), p, in);
  in.deadline_seconds = 10 * 3600;
  const auto loose = price_run(offer(1, 3.0, 1.0), p, in);
  REQUIRE(tight->spot->p_miss_deadline);
  CHECK(*tight->spot->p_miss_deadline > *loose->spot->p_miss_deadline);
  CHECK(*loose->meets_deadline);
}
