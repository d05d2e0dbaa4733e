// buy-vs-rent's report on a fixed analysis: two owned H100s against renting on demand for three
// months, BUY; the reasons in words, the tables' rounding and JSON's raw figures and nulls.
#include <catch2/catch.hpp>

#include "io/render/tco_render.hpp"

using namespace gpuplan;
using namespace gpuplan::io;

namespace {

// Money as the CLI spells it without --grouping: Indian for INR, international otherwise.
const MoneyStyle automatic{DigitGrouping::automatic};

struct Fixture {
  Provider lambda;
  Offer one;
  TcoInputs in;
  TcoAnalysis a;
  TcoContext c;

  Fixture() {
    lambda.id = "lambda";
    one.id = "gpu_1x_h100";
    one.provider = "lambda";
    one.gpu = "h100";
    one.per_gpu_hour[static_cast<int>(Pricing::on_demand)] = 2.5;
    in.fleet_gpus = 2;
    in.horizon_months = 3;
    in.owned.gpu_price = 25000;
    in.rent.offers = {RentOffer{&one, &lambda, 1}};

    a.decision.verdict = Verdict::buy;
    a.decision.owned_gpus = a.decision.cheapest_owned = 2;
    a.decision.curve = {{0, 2920, true}, {1, 2400, true}, {2, 2000, true}};
    a.rent.rent = a.rent.total = 2920;
    a.rent.rented_gpu_hours = 1168;
    a.rent.rent_offer = 0;
    a.buy.owned_gpus = 2;
    a.buy.capital = 1500;
    a.buy.power = 200;
    a.buy.maintenance = 150;
    a.buy.failures = 50;
    a.buy.ops = 100;
    a.buy.running = 500;
    a.buy.total = 2000;
    a.buy.owned_gpu_hours = 1168;
    a.choice = a.buy;
    a.break_even_gpu_hours = 900;
    a.payback_owned = 2;
    a.payback_months = 2.5;
    MonthlyCost rented_half;
    rented_half.rented_gpu_hours = 438;
    a.curve = {{{0, 2920, true}, a.rent, 0}, {{1, 2400, true}, rented_half, 1.0}, {{2, 2000, true}, a.buy, 0.8}};
    a.cumulative_rent = {0, 2920, 5840, 8760};
    a.cumulative_buy = {50000, 50500, 51000, 51500};

    c.gpu = c.rented_gpu = "h100";
    c.currency = "USD";
    c.hours_per_month = 1168;  // 80% of two GPUs' 730-hour months
    c.demand_source = "gpu_hours_per_month";
    c.defaults = {{OwnershipDefault::power_price, 0.12, "USD", "--power-price", "", false, 0}};
    c.peak_gpus = 1.6;
  }
};

std::string blocks(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += "█";
  return s;
}

}  // namespace

TEST_CASE("buy-vs-rent reasons: the verdict, break-even, payback and the uncertainty rule in words", "[render][tco]") {
  const Fixture f;
  CHECK(tco_reasons(f.in, f.a, f.c, automatic) ==
        std::vector<std::string>{
            "owning 2 x h100 costs 2,000.00 USD/month against 2,920.00 USD/month renting on lambda/gpu_1x_h100 on-demand, at 1168 "
            "GPU-h/month (80% of 2 GPUs): 2,760.00 USD saved over 3 months",
            "break-even at 900.0 GPU-h/month (61.6% utilisation of 2 owned GPUs, steady demand); expected demand is 1168.0",
            "payback in 2.5 months for 2 owned (price over the monthly saving; resale not counted), within the 3-month horizon",
            "no --uncertainty given: the rule (avoid buying when utilisation cannot be predicted within about 30-50%) is not applied"});
  Fixture rent;
  rent.a.decision.verdict = Verdict::rent;
  rent.a.decision.owned_gpus = 0;
  rent.a.payback_months.reset();
  const auto reasons = tco_reasons(rent.in, rent.a, rent.c, automatic);
  CHECK(reasons[0] == "renting on lambda/gpu_1x_h100 on-demand costs 2,920.00 USD/month against 2,000.00 USD/month owning 2 x h100, at 1168 "
                      "GPU-h/month (80% of 2 GPUs)");
  CHECK(reasons[2] == "owning 2 never pays back: it saves nothing per month against renting");
  CHECK(tco_tables(rent.in, rent.a, rent.c, reasons, automatic)[0].title == "Verdict: RENT on lambda/gpu_1x_h100 on-demand (3-month horizon, USD)");
}

TEST_CASE("buy-vs-rent from a job log says the jobs were replayed whole", "[render][tco]") {
  Fixture f;
  f.c.jobs = 120;
  const auto reasons = tco_reasons(f.in, f.a, f.c, automatic);
  CHECK(reasons[0] == "replaying the log's 120 jobs (each on all its GPUs at once; one that does not fit rents at once): owning 2 x h100 runs "
                      "every job for 2,000.00 USD/month against 2,920.00 USD renting on lambda/gpu_1x_h100 on-demand");
  CHECK(reasons[1].rfind("break-even, sensitivity and reserved terms assume GPU-hours can be spread over any GPUs", 0) == 0);
  const nlohmann::json j = tco_json(f.in, f.a, f.c, reasons);
  CHECK(j["model"] == "jobs");
  CHECK(j["demand"]["jobs"] == 120);
}

TEST_CASE("buy-vs-rent tables: verdict, monthly options, the hybrid curve, the cumulative chart", "[render][tco]") {
  const Fixture f;
  const auto reasons = tco_reasons(f.in, f.a, f.c, automatic);
  const auto tables = tco_tables(f.in, f.a, f.c, reasons, automatic);
  REQUIRE(tables.size() == 4);  // verdict, monthly, curve, chart (no reserved terms, no sensitivity)
  CHECK(tables[0].title == "Verdict: BUY: own 2 x h100 (3-month horizon, USD)");
  CHECK(tables[0].rows.size() == reasons.size());
  const Table& m = tables[1];
  CHECK(m.columns == std::vector<std::string>{"option", "owned", "capital", "power", "upkeep", "colo+ops", "rented", "per month", "over 3 mo"});
  CHECK(m.rows == std::vector<std::vector<std::string>>{
                      {"rent: lambda/gpu_1x_h100 on-demand", "0", "0.00", "0.00", "0.00", "0.00", "2,920.00", "2,920.00", "8,760.00"},
                      {"buy: 2 x h100", "2", "1,500.00", "200.00", "200.00", "100.00", "0.00", "2,000.00", "6,000.00"}});
  const Table& curve = tables[2];
  CHECK(curve.title == "Hybrid: expected monthly cost by owned GPUs (the rest rented on the cheapest h100 on-demand shape)");
  CHECK(curve.rows == std::vector<std::vector<std::string>>{{"0", "-", "1168", "2,920.00", blocks(24)},
                                                            {"1", "100%", "438", "2,400.00", blocks(19) + "▊"},
                                                            {"2", "80%", "0", "2,000.00", blocks(16) + "▌ <- verdict"}});
  const Table& chart = tables[3];
  CHECK(chart.title == "Cumulative cost (USD; owning pays the price up front, resale back at the end)");
  REQUIRE(chart.rows.size() == 4);  // months 0 to 3
  CHECK(chart.rows[0] == std::vector<std::string>{"0", "0", blocks(15) + "▌ 50,000"});
  CHECK(chart.rows[3][0] == "3");
}

TEST_CASE("the cumulative series for CSV: every month, two decimals, no grouping", "[render][tco]") {
  const Fixture f;
  const Table t = tco_series_table(f.in, f.a, f.c);
  CHECK(t.columns == std::vector<std::string>{"month", "rent", "buy"});
  CHECK(t.rows == std::vector<std::vector<std::string>>{
                      {"0", "0.00", "50000.00"}, {"1", "2920.00", "50500.00"}, {"2", "5840.00", "51000.00"}, {"3", "8760.00", "51500.00"}});
}

TEST_CASE("buy-vs-rent JSON: the verdict, demand, options and the series, raw, with nulls for what is absent", "[render][tco]") {
  const Fixture f;
  const auto reasons = tco_reasons(f.in, f.a, f.c, automatic);
  const nlohmann::json j = tco_json(f.in, f.a, f.c, reasons);
  CHECK(j["verdict"] == "BUY");
  CHECK(j["owned_gpus"] == 2);
  CHECK(j["fleet_gpus"] == 2);
  CHECK(j["horizon_months"] == 3);
  CHECK(j["reasons"] == nlohmann::json(reasons));
  CHECK(j["model"] == "divisible_hours");
  CHECK(j["demand"] == nlohmann::json::parse(R"({"source": "gpu_hours_per_month", "gpu_hours_per_month": 1168, "utilization": 0.8,
      "peak_gpus": 1.6, "jobs": null, "uncertainty": 0, "uncertainty_rule_applied": false, "periods": null, "period": null})"));
  CHECK(j["rent_offer"] == nlohmann::json::parse(R"({"provider": "lambda", "offer": "gpu_1x_h100", "gpu": "h100", "pricing": "on-demand",
      "per_gpu_hour": 2.5, "equivalent": false, "hours_scale": 1})"));
  CHECK(j["burst_offer"].is_null());
  CHECK(j["monthly"] == nlohmann::json::parse(R"({"verdict": 2000, "rent": 2920, "buy": 2000, "hybrid": null, "spot": null,
      "reserved_1y": null, "reserved_3y": null})"));
  REQUIRE(j["options"].size() == 2);
  CHECK(j["options"][0]["option"] == "rent");
  CHECK(j["options"][0]["owned_cost_per_gpu_hour"].is_null());  // owns nothing
  CHECK(j["options"][1]["option"] == "buy");
  CHECK(j["options"][1]["capital"] == 1500);
  CHECK(j["options"][1]["owned_gpu_hours"] == 1168);
  CHECK(j["options"][1]["owned_cost_per_gpu_hour"].is_number());
  CHECK(j["break_even_gpu_hours_per_month"] == 900);
  CHECK(j["break_even_utilization"] == 900.0 / 1460);
  CHECK(j["payback_months"] == 2.5);
  CHECK(j["hybrid_curve"][1] == nlohmann::json::parse(R"({"owned_gpus": 1, "monthly": 2400, "feasible": true})"));
  CHECK(j["reserved"] == nlohmann::json::array());
  CHECK(j["sensitivity"] == nlohmann::json::array());
  CHECK(j["cumulative"] == nlohmann::json::parse(R"({"months": [0, 1, 2, 3], "rent": [0, 2920, 5840, 8760], "buy": [50000, 50500, 51000, 51500],
      "partial": null, "partial_owned_gpus": null})"));
  CHECK(j["assumptions"]["gpu_price"] == 25000);
  CHECK(j["assumptions"]["defaults_used"] == nlohmann::json::array({"power 0.120 USD/kWh (--power-price)"}));
}
