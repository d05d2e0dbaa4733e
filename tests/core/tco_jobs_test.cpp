// Buy or rent from the jobs themselves (issue #33): the fleets a buyer can build, and a decision
// worked by hand where divisible GPU-hours would say otherwise (a job needs all its GPUs at once).
#include <catch2/catch.hpp>

#include "gpuplan/tco_jobs.hpp"

using namespace gpuplan;

namespace {

constexpr double kH = 3600;

ReplayJob job(double arrival_h, double hours, int gpus) {
  ReplayJob j;
  j.team = "t";
  j.arrival = arrival_h * kH;
  j.duration = hours * kH;
  j.gpus = gpus;
  return j;
}

struct Cloud {
  Provider p;
  Offer o;
  Cloud() {
    p.id = "cloud";
    p.currency = "USD";
    p.billing_increment_seconds = 1;
    o.id = "x1";
    o.provider = "cloud";
    o.gpus = 1;
    o.per_gpu_hour[static_cast<int>(Pricing::on_demand)] = 2.00;
  }
};

// One GPU at 730 USD all in (no resale, no running cost): 730 / 36 = 20.28 a month per GPU.
FleetCostTerms terms(const Cloud& c, double months) {
  FleetCostTerms t;
  t.owned.gpu_price = 730;
  t.owned.gpus_per_build = 1;
  t.owned.resale_kept_per_year = 0;
  t.on_demand.offers = {RentOffer{&c.o, &c.p, 1.0}};
  t.horizon_months = 36;
  t.months = months;
  return t;
}

}  // namespace

TEST_CASE("buildable fleets: 0, then whole builds up to the peak", "[tco_jobs]") {
  CHECK(buildable_fleets(20, 8) == std::vector<int>{0, 8, 16, 24});
  CHECK(buildable_fleets(16, 8) == std::vector<int>{0, 8, 16});
  CHECK(buildable_fleets(0, 8) == std::vector<int>{0});
  CHECK(buildable_fleets(3, 1) == std::vector<int>{0, 1, 2, 3});
  const auto many = buildable_fleets(1000, 1, 64);
  CHECK(many.size() <= 64);
  CHECK(many.front() == 0);
  CHECK(many.back() == 1000);
}

TEST_CASE("jobs are not divisible: an 8-GPU job cannot run on 5 owned GPUs", "[tco_jobs]") {
  const Cloud c;
  // A month (730 h) of one 8-GPU job running 365 h: 2920 GPU-h. Divisible, 5 owned GPUs would
  // serve 5 x 365 of it; as a job, 5 owned GPUs take none of it and all 2920 GPU-h rent.
  const std::vector<ReplayJob> jobs = {job(0, 365, 8)};
  TcoInputs in;
  in.horizon_months = 36;
  const FleetCostTerms t = terms(c, 1.0);
  const JobTcoAnalysis j = analyse_tco_jobs(in, jobs, t, {0, 5, 8});
  REQUIRE(j.sweep.options.size() == 3);
  // Rent all: 2920 x 2.00 = 5840. Own 5: 5 x 20.28 = 101.39 of capital and still 5840 rent.
  CHECK(j.sweep.options[0].month.total == Approx(5840));
  CHECK(j.sweep.options[1].replay.owned_busy_gpu_hours == 0);
  CHECK(j.sweep.options[1].month.total == Approx(5840 + 5 * 730.0 / 36));
  // Own 8: 8 x 20.28 = 162.22 and nothing rents: BUY.
  CHECK(j.sweep.options[2].month.total == Approx(8 * 730.0 / 36));
  CHECK(j.analysis.decision.verdict == Verdict::buy);
  CHECK(j.analysis.decision.owned_gpus == 8);
  CHECK(j.analysis.choice.total == Approx(8 * 730.0 / 36));
  CHECK(j.analysis.rent.total == Approx(5840));
  CHECK(j.analysis.partial_owned == 5);
  CHECK(j.analysis.partial_rents);
  // The cumulative chart pays the fleet's price at month 0 from the terms the fleets were priced
  // with (TcoInputs::owned is left empty here): 8 x 730 up front, no running cost, no resale, so
  // after the horizon it has spent what 36 of its months cost.
  REQUIRE(j.analysis.cumulative_buy.size() == 37);
  CHECK(j.analysis.cumulative_buy.front() == Approx(8 * 730.0));
  CHECK(j.analysis.cumulative_buy.back() == Approx(36 * j.analysis.buy.total));
  CHECK(j.analysis.cumulative_rent.back() == Approx(36 * 5840.0));
  REQUIRE(j.analysis.payback_months);
  CHECK(*j.analysis.payback_months == Approx(8 * 730.0 / 5840));
}

TEST_CASE("the verdict is the cheapest replayed fleet, and names what it rents", "[tco_jobs]") {
  const Cloud c;
  // One 1-GPU job all month (owning pays) and a 4-GPU job for 10 h (renting it pays): HYBRID 1.
  const std::vector<ReplayJob> jobs = {job(0, 730, 1), job(100, 10, 4)};
  TcoInputs in;
  in.horizon_months = 36;
  const JobTcoAnalysis j = analyse_tco_jobs(in, jobs, terms(c, 1.0), buildable_fleets(5, 1));
  CHECK(j.analysis.decision.verdict == Verdict::hybrid);
  CHECK(j.analysis.decision.owned_gpus == 1);
  // 20.28 owned + the 4-GPU job rented: 40 GPU-h x 2.00 = 80.
  CHECK(j.analysis.choice.total == Approx(730.0 / 36 + 80));
  CHECK(j.analysis.choice.rent_offer == 0);
  CHECK(verdict_of(j.sweep.options[static_cast<std::size_t>(j.chosen)]) == Verdict::hybrid);
  for (const auto& o : j.sweep.options) CHECK(o.month.total >= j.analysis.choice.total - 1e-9);
}
