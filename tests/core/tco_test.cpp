// Buy vs rent, checked against hand computations. Every figure in a CHECK is worked out in the
// comment above it; money is asserted to the cent (Approx margin 0.005).
#include <catch2/catch.hpp>

#include <cmath>
#include <tuple>

#include "gpuplan/tco.hpp"

using namespace gpuplan;

namespace {

constexpr double kCent = 0.005;

Provider per_second_provider() {
  Provider p;
  p.id = "cloud";
  p.currency = "USD";
  p.billing_increment_seconds = 1;
  return p;
}

Offer offer(int gpus, double on_demand) {
  Offer o;
  o.id = "o";
  o.provider = "cloud";
  o.gpus = gpus;
  o.per_gpu_hour[static_cast<int>(Pricing::on_demand)] = on_demand;
  return o;
}

RentTerms rent_on(const Offer& o, const Provider& p) {
  RentTerms r;
  r.offers = {RentOffer{&o, &p, 1.0}};
  return r;
}

// A desk-side RTX 4090 build with round numbers.
OwnedTerms rtx_4090_build() {
  OwnedTerms o;
  o.gpu_price = 1600;
  o.rest_of_machine_per_build = 1400;
  o.gpus_per_build = 4;
  o.tdp_watts = 450;
  o.load_factor = 1.0;
  o.pue = 1.0;
  o.power_price_per_kwh = 0.15;
  o.maintenance_per_year = 0.08;
  o.failures_per_gpu_year = 0.05;
  o.resale_kept_per_year = 0.8;
  return o;
}

}  // namespace

TEST_CASE("one RTX 4090 against a 0.40/h cloud offer at 20% and 90% utilisation", "[tco]") {
  // Capex 1600 + 1400 (one build) = 3000. Residual after 3 years: 3000 x 0.8^3 = 1536.
  // Capital (3000 - 1536) / 36 = 40.6667/month. Maintenance 8% x 3000 / 12 = 20.00. Failures
  // 5% x 1600 / 12 = 6.6667. Power per used hour 0.45 kW x 1.0 x 1.0 x 0.15 = 0.0675.
  const Provider p = per_second_provider();
  const Offer o = offer(1, 0.40);
  TcoInputs in;
  in.owned = rtx_4090_build();
  in.rent = rent_on(o, p);
  in.fleet_gpus = 1;
  in.horizon_months = 36;

  const Capex c = capex_for(1, in.owned, 36);
  CHECK(c.builds == 1);
  CHECK(c.total == Approx(3000).margin(kCent));
  CHECK(c.residual == Approx(1536).margin(kCent));

  SECTION("20%: 146 GPU-h a month, renting wins") {
    in.demand = steady_demand(0.2 * 730);  // 146 GPU-h
    const MonthlyCost own = option_cost(1, 1, in.demand, in.owned, in.rent, 36);
    const MonthlyCost rent = option_cost(0, 1, in.demand, in.owned, in.rent, 36);
    CHECK(own.capital == Approx(40.67).margin(kCent));
    CHECK(own.maintenance == Approx(20.00).margin(kCent));
    CHECK(own.failures == Approx(6.67).margin(kCent));
    CHECK(own.power == Approx(9.86).margin(kCent));    // 146 x 0.0675 = 9.855
    CHECK(own.total == Approx(77.19).margin(kCent));   // 40.6667 + 20 + 6.6667 + 9.855 = 77.1883
    CHECK(rent.total == Approx(58.40).margin(kCent));  // 146 x 0.40
    const Decision d = decide(in);
    CHECK(d.verdict == Verdict::rent);
    CHECK(d.owned_gpus == 0);
  }
  SECTION("90%: 657 GPU-h a month, buying wins") {
    in.demand = steady_demand(0.9 * 730);  // 657 GPU-h
    const MonthlyCost own = option_cost(1, 1, in.demand, in.owned, in.rent, 36);
    const MonthlyCost rent = option_cost(0, 1, in.demand, in.owned, in.rent, 36);
    CHECK(own.power == Approx(44.35).margin(kCent));    // 657 x 0.0675 = 44.3475
    CHECK(own.total == Approx(111.68).margin(kCent));   // 40.6667 + 20 + 6.6667 + 44.3475 = 111.6808
    CHECK(rent.total == Approx(262.80).margin(kCent));  // 657 x 0.40
    const Decision d = decide(in);
    CHECK(d.verdict == Verdict::buy);
    CHECK(d.owned_gpus == 1);
    // Payback: 3000 / (262.80 - (20 + 6.6667 + 44.3475)) = 3000 / 191.7858 = 15.64 months.
    const auto pb = payback_months(own, rent, capex_for(1, in.owned, 36));
    REQUIRE(pb);
    CHECK(*pb == Approx(15.64).margin(kCent));
    // Over 36 months: 111.6808 x 36 = 4020.51 owning; renting 262.80 x 36 = 9460.80. The
    // series starts at the price and ends net of resale: 3000 + 36 x 71.0142 - 1536.
    const auto own_c = cumulative_cost(1, in), rent_c = cumulative_cost(0, in);
    REQUIRE(own_c.size() == 37);
    CHECK(own_c.front() == Approx(3000).margin(kCent));
    CHECK(own_c.back() == Approx(4020.51).margin(kCent));
    CHECK(rent_c.back() == Approx(9460.80).margin(kCent));
    // The demand flip is the break-even: 202.506 / 657 = 0.30823.
    const Sensitivity s = sensitivity(in, d, Factor::demand, 0.2);
    REQUIRE(s.flip_down);
    CHECK(*s.flip_down == Approx(202.506 / 657).epsilon(1e-3));
    CHECK(s.low.verdict == Verdict::buy);
  }
  SECTION("break-even: fixed 67.3333 over (0.40 - 0.0675) = 202.51 GPU-h a month, 27.74%") {
    const auto be = break_even_gpu_hours(in);
    REQUIRE(be);
    CHECK(*be == Approx(202.51).margin(kCent));
    CHECK(*be / 730 == Approx(0.2774).margin(0.00005));
  }
}

TEST_CASE("an 8xH100 build over 3 years against an 8-GPU instance at 2.95/GPU-h", "[tco]") {
  // 8 x 25,000 + 25,000 rest of machine = 225,000. Residual 225,000 x 0.7^3 = 77,175.
  // Capital (225,000 - 77,175) / 36 = 4106.25. Maintenance 5% x 225,000 / 12 = 937.50.
  // Failures 2% x 200,000 / 12 = 333.33. Colo 200/kW x 8 x 0.7 kW x 1.8 = 2016.00. Ops 20 h x
  // 100 = 2000.00. At 70%: 0.7 x 8 x 730 = 4088 GPU-h; power 4088 x 0.7 kW x 1.8 x 1.5 x 0.10
  // = 772.63. Owning 10,165.72/month; renting 4088 x 2.95 = 12,059.60 (one instance, 511 h).
  const Provider p = per_second_provider();
  const Offer o = offer(8, 2.95);
  TcoInputs in;
  in.owned.gpu_price = 25000;
  in.owned.rest_of_machine_per_build = 25000;
  in.owned.gpus_per_build = 8;
  in.owned.tdp_watts = 700;
  in.owned.load_factor = 1.8;
  in.owned.pue = 1.5;
  in.owned.power_price_per_kwh = 0.10;
  in.owned.maintenance_per_year = 0.05;
  in.owned.failures_per_gpu_year = 0.02;
  in.owned.colo_per_kw_month = 200;
  in.owned.ops_hours_per_month = 20;
  in.owned.engineer_rate_per_hour = 100;
  in.owned.resale_kept_per_year = 0.7;
  in.rent = rent_on(o, p);
  in.fleet_gpus = 8;
  in.horizon_months = 36;
  in.demand = steady_demand(0.7 * 8 * 730);

  const MonthlyCost own = option_cost(8, 8, in.demand, in.owned, in.rent, 36);
  const MonthlyCost rent = option_cost(0, 8, in.demand, in.owned, in.rent, 36);
  CHECK(capex_for(8, in.owned, 36).residual == Approx(77175).margin(kCent));
  CHECK(own.capital == Approx(4106.25).margin(kCent));
  CHECK(own.maintenance == Approx(937.50).margin(kCent));
  CHECK(own.failures == Approx(333.33).margin(kCent));
  CHECK(own.colo == Approx(2016.00).margin(kCent));
  CHECK(own.ops == Approx(2000.00).margin(kCent));
  CHECK(own.power == Approx(772.63).margin(kCent));
  CHECK(own.total == Approx(10165.72).margin(kCent));
  CHECK(rent.total == Approx(12059.60).margin(kCent));
  CHECK(rent.rented_gpu_hours == Approx(4088));
  // Over the horizon: 10,165.7153 x 36 = 365,965.75 against 434,145.60.
  CHECK(cumulative_cost(8, in).back() == Approx(365965.75).margin(kCent));
  CHECK(cumulative_cost(0, in).back() == Approx(434145.60).margin(kCent));
  // 4088 GPU-h fit on 6 GPUs (4380 h), so if the work can be spread over fewer GPUs, six are
  // cheapest: 6 x 25,000 + 25,000 = 175,000, capital 175,000 x (1 - 0.343) / 36 = 3193.75,
  // maintenance 729.17, failures 250.00, colo 1512.00, ops 2000.00, power 772.63 = 8457.55.
  // Still BUY (nothing is rented), owning 6 of the 8.
  const Decision d = decide(in);
  CHECK(d.verdict == Verdict::buy);
  CHECK(d.owned_gpus == 6);
  CHECK(d.monthly(6) == Approx(8457.55).margin(kCent));
  CHECK(d.monthly(7) == Approx(9311.63).margin(kCent));  // 3650 + 833.33 + 291.67 + 1764 + 2000 + 772.63
  CHECK(d.monthly(8) == Approx(10165.72).margin(kCent));
  // Break-even: fixed 9393.0833 / (2.95 - 0.189) = 3402.06 GPU-h/month = 58.25% of 8 GPUs.
  const auto be = break_even_gpu_hours(in);
  REQUIRE(be);
  CHECK(*be == Approx(3402.06).margin(kCent));
  // Payback 225,000 / (12,059.60 - 6059.4653) = 37.50 months: past the horizon although owning
  // is cheaper over it, because payback leaves out the 77,175 resale.
  CHECK(*payback_months(own, rent, capex_for(8, in.owned, 36)) == Approx(37.50).margin(kCent));

  SECTION("sensitivity compares the fleet the verdict owns, with the sign of its verdict") {
    // At 2.30/GPU-h renting costs 4088 x 2.30 = 9402.40: owning 6 (8457.55) beats it, owning all
    // 8 (10,165.72) does not. The verdict is BUY 6, so each row compares owning 6, not 8.
    // Power +20%: 8457.5487 + 0.2 x 772.632 = 8612.08 owning 6; 8612.0751 - 9402.40 = -790.32.
    const Offer cheap = offer(8, 2.30);
    in.rent = rent_on(cheap, p);
    const Decision base = decide(in);
    REQUIRE(base.verdict == Verdict::buy);
    REQUIRE(base.owned_gpus == 6);
    const Sensitivity power = sensitivity(in, base, Factor::power_price, 0.2);
    CHECK(power.high.verdict == Verdict::buy);
    CHECK(power.high_compared_owned == power.high.owned_gpus);
    CHECK(power.high_buy_minus_rent == Approx(-790.32).margin(kCent));
    for (Factor f : {Factor::demand, Factor::power_price, Factor::resale, Factor::cloud_price}) {
      const Sensitivity x = sensitivity(in, base, f, 0.2);
      for (const auto& [d, diff, compared] : {std::tuple{x.low, x.low_buy_minus_rent, x.low_compared_owned},
                                              std::tuple{x.high, x.high_buy_minus_rent, x.high_compared_owned}}) {
        INFO(to_string(f) << " " << to_string(d.verdict) << " " << d.owned_gpus << ": " << diff);
        if (d.verdict == Verdict::rent) {
          CHECK(diff >= 0);
          CHECK(compared == base.owned_gpus);
        } else {
          CHECK(diff <= 0);
          CHECK(compared == d.owned_gpus);
        }
      }
    }
  }
  SECTION("financed at 6% a year") {
    // i = 0.005/month; payment 225,000 x 0.005 / (1 - 1.005^-36) = 6844.94; interest
    // 6844.9359 x 36 - 225,000 = 21,417.69; capital (225,000 + 21,417.69 - 77,175) / 36 = 4701.19.
    in.owned.financing_per_year = 0.06;
    const Capex c = capex_for(8, in.owned, 36);
    CHECK(c.payment_per_month == Approx(6844.94).margin(kCent));
    CHECK(c.interest == Approx(21417.69).margin(kCent));
    const MonthlyCost f = option_cost(8, 8, in.demand, in.owned, in.rent, 36);
    CHECK(f.capital == Approx(4701.19).margin(kCent));
    CHECK(f.total == Approx(10760.65).margin(kCent));
    const auto series = cumulative_cost(8, in);
    CHECK(series.front() == 0);  // nothing up front
    CHECK(series[1] == Approx(6844.9359 + 6059.4653).margin(kCent));
    CHECK(series.back() == Approx(10760.6513 * 36).margin(kCent));
  }
  SECTION("a 12-month commitment at 1.99 against 3.39 on-demand") {
    // Committed: 8 GPUs x 730 h x 1.99 = 11,621.60 whatever the use; on-demand at 4088 GPU-h:
    // 4088 x 3.39 = 13,858.32. It pays above 1.99 / 3.39 = 58.70% utilisation.
    Offer dc = offer(8, 3.39);
    dc.per_gpu_hour[static_cast<int>(Pricing::reserved_1y)] = 1.99;
    in.rent = rent_on(dc, p);
    const auto cc = commitment_check(in, Pricing::reserved_1y);
    REQUIRE(cc);
    CHECK(cc->committed_per_month == Approx(11621.60).margin(kCent));
    CHECK(cc->on_demand_per_month == Approx(13858.32).margin(kCent));
    CHECK(cc->break_even_utilisation == Approx(0.5870).margin(0.00005));
    CHECK(cc->pays);
    CHECK_FALSE(commitment_check(in, Pricing::reserved_3y));
    in.demand = steady_demand(0.5 * 8 * 730);
    CHECK_FALSE(commitment_check(in, Pricing::reserved_1y)->pays);  // 2920 x 3.39 = 9898.80 < 11,621.60
  }
}

TEST_CASE("a bursty profile: own the baseline, rent the bursts", "[tco]") {
  // Ten days: eight at 2 GPUs busy (48 GPU-h), two at 4 (96 GPU-h). 576 GPU-h over 240 h, so
  // each day stands for 730 / 240 = 3.041667 days a month: 1752 GPU-h a month, peak 4 GPUs.
  // An owned GPU costs 2190 / 12 = 182.50 a month (no resale, power or upkeep); renting is 1.00/GPU-h.
  //   own 0: rent 1752                                        = 1752.00
  //   own 1: rent (8 x 24 + 2 x 72) x 3.041667 = 1022         = 182.50 + 1022.00 = 1204.50
  //   own 2: rent (2 x 48) x 3.041667 = 292                   = 365.00 +  292.00 =  657.00
  //   own 3: rent (2 x 24) x 3.041667 = 146                   = 547.50 +  146.00 =  693.50
  //   own 4: nothing rented                                   =  730.00
  // The third GPU is busy 2 days in 10 (146 h a month) and costs more than the 146.00 it saves.
  const Provider p = per_second_provider();
  const Offer o = offer(1, 1.00);
  TcoInputs in;
  in.owned.gpu_price = 2190;
  in.owned.gpus_per_build = 4;
  in.owned.tdp_watts = 450;
  in.owned.resale_kept_per_year = 0;
  in.rent = rent_on(o, p);
  in.horizon_months = 12;
  in.demand = profile_demand({48, 48, 48, 48, 48, 48, 48, 48, 96, 96}, 24);
  CHECK(in.demand.gpu_hours_per_month() == Approx(1752));
  CHECK(in.demand.peak_gpus() == Approx(4));
  in.fleet_gpus = 4;

  const Decision d = decide(in);
  REQUIRE(d.curve.size() == 5);
  const double expected[] = {1752.00, 1204.50, 657.00, 693.50, 730.00};
  for (int k = 0; k <= 4; ++k) CHECK(d.curve[k].monthly == Approx(expected[k]).margin(kCent));
  CHECK(d.verdict == Verdict::hybrid);
  CHECK(d.owned_gpus == 2);
  const MonthlyCost two = option_cost(2, 4, in.demand, in.owned, in.rent, 12);
  CHECK(two.rented_gpu_hours == Approx(292));
  CHECK(two.owned_gpu_hours == Approx(1460));  // 2 GPUs busy all 730 hours
  // Payback for 2 owned: 4380 / (1752 - 292) = 3.00 months.
  CHECK(*payback_months(two, option_cost(0, 4, in.demand, in.owned, in.rent, 12), capex_for(2, in.owned, 12)) ==
        Approx(3.00).margin(kCent));

  SECTION("±50% uncertainty: own only what pays at the low end") {
    // At half the demand (days of 24 and 48 GPU-h): own 0 = 876.00; own 1 = 182.50 + 146.00 =
    // 328.50; own 2 = 365.00. One GPU pays at the low end, so of the expected curve only counts
    // 0 and 1 are allowed: own 1 (1204.50 < 1752.00).
    in.uncertainty = 0.5;
    const Decision r = decide(in);
    CHECK(r.rule_applied);
    CHECK(r.cheapest_owned == 2);
    CHECK(r.owned_at_low_end == 1);
    CHECK(r.owned_gpus == 1);
    CHECK(r.verdict == Verdict::hybrid);
    in.uncertainty = 0.2;  // under the rule's 30%: expected cost decides
    CHECK(decide(in).owned_gpus == 2);
  }
}

TEST_CASE("uncertain demand is spread evenly around the mean", "[tco]") {
  // ±40% in 10 bins: 0.64, 0.72, ..., 1.36 of the mean; the mean is kept.
  const Demand d = uncertain_demand(1000, 0.4);
  REQUIRE(d.periods.size() == 10);
  CHECK(d.periods.front().gpu_hours == Approx(640));
  CHECK(d.periods.back().gpu_hours == Approx(1360));
  CHECK(d.gpu_hours_per_month() == Approx(1000));
  CHECK(d.peak_gpus() == Approx(1360.0 / 730));
  CHECK(uncertain_demand(1000, 0).periods.size() == 1);
}

TEST_CASE("more utilisation never makes renting relatively cheaper", "[tco]") {
  Provider hourly = per_second_provider();
  hourly.billing_increment_seconds = 3600;
  hourly.startup_seconds = 300;
  hourly.tax_rate = 0.18;
  const Provider per_second = per_second_provider();
  Offer one = offer(1, 0.60);
  one.per_gpu_hour[static_cast<int>(Pricing::spot)] = 0.34;
  one.spot_preemptions_per_hour = 0.05;
  const Offer eight = offer(8, 2.95);
  struct Case {
    const Offer* offer;
    const Provider* provider;
    Pricing pricing;
    int fleet;
  };
  const Case cases[] = {{&one, &per_second, Pricing::on_demand, 1}, {&one, &hourly, Pricing::on_demand, 1},
                        {&one, &per_second, Pricing::spot, 1}, {&eight, &per_second, Pricing::on_demand, 8},
                        {&one, &per_second, Pricing::on_demand, 3}};
  for (const auto& c : cases) {
    TcoInputs in;
    in.owned = rtx_4090_build();
    in.owned.idle_power_share = 0.1;
    in.owned.ops_hours_per_month = 2;
    in.owned.engineer_rate_per_hour = 50;
    in.rent = rent_on(*c.offer, *c.provider);
    in.rent.pricing = c.pricing;
    in.rent.run.checkpoint_seconds = 60;
    in.fleet_gpus = c.fleet;
    double last_gap = -1e300;
    bool bought = false;
    // Whole hours a month, so hourly billing's round-up never lands inside a step.
    for (int pct = 0; pct <= 100; pct += 5) {
      const double hours = std::round(pct / 100.0 * c.fleet * 730 / c.fleet) * c.fleet;
      in.demand = steady_demand(hours);
      const double gap = option_cost(0, c.fleet, in.demand, in.owned, in.rent, 36).total -
                         option_cost(c.fleet, c.fleet, in.demand, in.owned, in.rent, 36).total;
      CHECK(gap >= last_gap - 1e-9);  // rent minus own never shrinks
      last_gap = gap;
      const Verdict v = decide(in).verdict;
      if (bought) CHECK(v != Verdict::rent);  // once owning wins, more use keeps it winning
      bought = bought || v != Verdict::rent;
    }
  }
}

TEST_CASE("spot's expected overhead is priced by price_run", "[tco]") {
  // 100 GPU-h on spot at 0.34, one preemption per 10 h, a 60 s checkpoint, 600 s restart:
  // Young's interval sqrt(2 x 60 x 36000) = 2078.46 s; wall = 100 h x (1 + 60/2078.46) /
  // (1 - (1/36000) x (2078.46/2 + 600)) = 102.887 h / 0.954466 = 107.80 h; cost 36.65.
  const Provider p = per_second_provider();
  Offer o = offer(1, 0.60);
  o.per_gpu_hour[static_cast<int>(Pricing::spot)] = 0.34;
  o.spot_preemptions_per_hour = 0.1;
  RentTerms r = rent_on(o, p);
  r.pricing = Pricing::spot;
  r.run.checkpoint_seconds = 60;
  r.run.restart_seconds = 600;
  const MonthlyCost m = option_cost(0, 1, steady_demand(100), OwnedTerms{}, r, 36);
  const double interval = std::sqrt(2.0 * 60 * 36000);
  const double wall_h = 100 * (1 + 60 / interval) / (1 - (interval / 2 + 600) / 36000);
  CHECK(wall_h == Approx(107.80).margin(kCent));
  CHECK(m.rent == Approx(wall_h * 0.34).margin(kCent));
  CHECK(m.rent == Approx(36.65).margin(kCent));
}

TEST_CASE("bursts rent the cheapest shape listed", "[tco]") {
  // One GPU of burst on an 8-GPU instance pays for 8; with a 1-GPU shape at a higher rate
  // listed too, the burst takes that one. 100 GPU-h: 8 x 100 x 2.00 = 1600 vs 100 x 2.50 = 250.
  const Provider p = per_second_provider();
  const Offer eight = offer(8, 2.00), single = offer(1, 2.50);
  RentTerms r;
  r.offers = {RentOffer{&eight, &p, 1.0}, RentOffer{&single, &p, 1.0}};
  const MonthlyCost m = option_cost(0, 1, steady_demand(100), OwnedTerms{}, r, 36);
  CHECK(m.rent == Approx(250.00).margin(kCent));
  CHECK(m.rent_offer == 1);
  // Eight at once (800 GPU-h over 100 h) fill the big instance: 800 x 2.00 = 1600.
  const MonthlyCost wide = option_cost(0, 8, steady_demand(800), OwnedTerms{}, r, 36);
  CHECK(wide.rent == Approx(1600.00).margin(kCent));
  CHECK(wide.rent_offer == 0);
}

TEST_CASE("an owned GPU-hour costs the owned month over the hours it served", "[tco]") {
  // One 450 W GPU at 3650, kept 10 months, no resale: 365 a month of capital. Busy half of a
  // 730-hour month (365 h) at 1 x TDP, PUE 1, no idle draw, 0.20 a kWh: 365 x 0.45 x 0.20 =
  // 32.85 of power. Maintenance 12% a year of 3650: 36.50 a month.
  OwnedTerms o;
  o.gpu_price = 3650;
  o.gpus_per_build = 1;
  o.tdp_watts = 450;
  o.load_factor = 1;
  o.pue = 1;
  o.power_price_per_kwh = 0.20;
  o.maintenance_per_year = 0.12;
  o.resale_kept_per_year = 0;
  const MonthlyCost m = owned_month(1, 0.5, o, 10);
  CHECK(m.owned_gpu_hours == Approx(365));
  CHECK(m.rent == 0);
  const auto h = owned_hour_cost(m);
  REQUIRE(h);
  CHECK(h->full == Approx((365 + 32.85 + 36.50) / 365));  // 1.19
  CHECK(h->marginal == Approx((32.85 + 36.50) / 365));    // 0.19
  // The same month buy-vs-rent prices for owning that GPU at that demand.
  const MonthlyCost same = option_cost(1, 1, steady_demand(365), o, RentTerms{}, 10);
  CHECK(owned_hour_cost(same)->full == h->full);
  // Twice the GPUs at the same use cost the same per hour; an owner who serves nothing has no hourly cost.
  CHECK(owned_hour_cost(owned_month(2, 0.5, o, 10))->full == Approx(h->full));
  CHECK_FALSE(owned_hour_cost(option_cost(1, 1, steady_demand(0), o, RentTerms{}, 10)));
}
