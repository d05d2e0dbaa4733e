// The --owned block of estimate, compare and plan on a fixed value: two RTX 4090s in INR, busy
// 40% of the month; the JSON keys and figures as printed, and every note word for word.
#include <catch2/catch.hpp>

#include "io/render/owned_render.hpp"

using namespace gpuplan;
using namespace gpuplan::io;

namespace {

const MoneyStyle automatic{DigitGrouping::automatic};

OwnedBlock two_4090s(bool marginal) {
  OwnedBlock b;
  b.offer = "owned/rtx-4090-x2";
  b.gpu = "rtx-4090";
  b.currency = "INR";
  b.gpus = 2;
  b.utilization = 0.4;
  b.marginal = marginal;
  b.month.capital = 7000;
  b.month.power = 1200.5;
  b.month.maintenance = 900;
  b.month.failures = 150;
  b.month.colo = 0;
  b.month.ops = 0;
  b.month.running = 2250.5;
  b.month.owned_gpu_hours = 584;
  b.hour = {15.8399, 3.5967};
  b.per_gpu_hour = marginal ? b.hour.marginal : b.hour.full;
  b.horizon_months = 36;
  b.terms.gpu_price = 150000;
  b.terms.rest_of_machine_per_build = 100000;
  b.terms.gpus_per_build = 4;
  b.terms.power_price_per_kwh = 9;
  b.terms.load_factor = 1.0;
  b.purchase.country = "IN";
  b.purchase.country_from = "--buyer-country";
  b.purchase.warnings = {{StandInFigure::colo, "IN", "", 200, "USD", 16600, "INR"}};
  b.defaults = {{OwnershipDefault::colo, 16600, "INR", "--colo", "", false, 0}, {OwnershipDefault::financing, 0, "share", "--financing", "", false, 0}};
  b.notes = {{OwnershipNote::engineer_time_not_counted, ""}};
  return b;
}

}  // namespace

TEST_CASE("owned JSON carries the offer, its use and its price under the documented keys", "[render][owned]") {
  const nlohmann::json j = owned_json(two_4090s(false));
  CHECK(j["offer"] == "owned/rtx-4090-x2");
  CHECK(j["gpu"] == "rtx-4090");
  CHECK(j["gpus"] == 2);
  CHECK(j["utilization"] == 0.4);
  CHECK(j["utilisation"] == 0.4);
  CHECK(j["owned_gpu_hours_per_month"] == 584);
  CHECK(j["priced_at"] == "full");
  CHECK(j["per_gpu_hour"] == 15.8399);
  CHECK(j["full_per_gpu_hour"] == 15.8399);
  CHECK(j["marginal_per_gpu_hour"] == 3.5967);
  CHECK(j["horizon_months"] == 36);
  CHECK(j["monthly"] == nlohmann::json::parse(R"j({"capital": 7000, "power": 1200.5, "maintenance": 900, "failures": 150,
      "colo": 0, "ops": 0, "total": 9250.5})j"));
  CHECK(j["gpu_price"] == 150000);
  CHECK(j["rest_of_machine_per_build"] == 100000);
  CHECK(j["gpus_per_build"] == 4);
  CHECK(j["power_price_per_kwh"] == 9);
  CHECK(j["load_factor"] == 1.0);
  CHECK(j["purchase"]["country"] == "IN");
  CHECK(j["defaults"] == nlohmann::json::array({"colocation 16,600 INR/kW/month (--colo)", "bought outright (--financing)"}));
  CHECK(j["purchase"]["warnings"] ==
        nlohmann::json::array({"no IN colocation fee was found: it is the US figure (200 USD/kW/month) converted; pass --colo"}));
  CHECK(j.size() == 19);
  CHECK(owned_json(two_4090s(true))["priced_at"] == "marginal");
  CHECK(owned_json(two_4090s(true))["per_gpu_hour"] == 3.5967);
}

TEST_CASE("owned notes at the owner's full cost, then notes, warnings and defaults", "[render][owned]") {
  const auto n = owned_notes(two_4090s(false), automatic);
  REQUIRE(n.size() == 4);
  CHECK(n[0] == "owned/rtx-4090-x2 (2 GPUs you own, busy 40% of the month = 584 GPU-h) is priced at the owner's cost, 15.8399 INR/GPU-h: "
                "capital 7,000.00 INR + power 1,200.50 INR + maintenance 900.00 INR + failures 150.00 INR + colocation 0.00 INR + "
                "engineer time 0.00 INR a month over 36 months, as buy-vs-rent prices owning");
  CHECK(n[1] == "owned: engineer time is not counted (no published figure): add it with --ops-hours-per-month and --engineer-rate");
  CHECK(n[2] == "owned: warning: no IN colocation fee was found: it is the US figure (200 USD/kW/month) converted; pass --colo");
  CHECK(n[3] == "owned: defaults used (override with the flag): colocation 16,600 INR/kW/month (--colo), bought outright (--financing)");
}

TEST_CASE("owned JSON words its defaults the same whatever the notes' grouping", "[render][owned]") {
  OwnedBlock b = two_4090s(false);
  b.defaults.front().value = 1234567;
  const auto n = owned_notes(b, MoneyStyle{DigitGrouping::none});
  CHECK(n.back() == "owned: defaults used (override with the flag): colocation 1234567 INR/kW/month (--colo), bought outright (--financing)");
  CHECK(owned_json(b)["defaults"][0] == "colocation 12,34,567 INR/kW/month (--colo)");  // kJsonMoney: as without --grouping
}

TEST_CASE("owned notes at the marginal cost name the full cost beside it, grouped as asked", "[render][owned]") {
  OwnedBlock b = two_4090s(true);
  b.month.power = 123456;
  b.notes.clear();
  b.purchase.warnings.clear();
  b.defaults.clear();
  const auto n = owned_notes(b, MoneyStyle{DigitGrouping::intl});
  REQUIRE(n.size() == 1);
  CHECK(n[0] == "owned/rtx-4090-x2 (2 GPUs you own, busy 40% of the month = 584 GPU-h) is priced at its marginal cost, 3.5967 INR/GPU-h: "
                "power 123,456.00 INR + maintenance 900.00 INR a month, no purchase price (owner's full cost 15.8399 INR/GPU-h)");
  CHECK(owned_notes(b, automatic)[0].find("power 1,23,456.00 INR") != std::string::npos);
}
