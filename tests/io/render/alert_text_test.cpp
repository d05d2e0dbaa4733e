// The dashboard's alerts in words, chosen from the core's kind, subject and numbers.
#include <catch2/catch.hpp>

#include "io/render/alert_text.hpp"

using namespace gpuplan;
using gpuplan::io::alert_message;

namespace {

MonthBurn burn(double spent, double cap, const std::string& crosses_on) {
  MonthBurn b;
  b.period = "2026-12";
  b.days_elapsed = 9;
  b.spent = spent;
  b.burn_per_day = spent / 9;
  b.forecast = 2480;
  b.forecast_made = true;
  b.cap = cap;
  b.crosses_on = crosses_on;
  return b;
}

}  // namespace

TEST_CASE("period caps: spent past the cap, or heading past it", "[render][alerts]") {
  CHECK(alert_message({AlertKind::over_cap, "team nlp", burn(900, 800, "2026-12-08")}, "USD") ==
        "team nlp: spent 900.00 USD in 2026-12, over the cap 800.00 USD since 2026-12-08");
  CHECK(alert_message({AlertKind::over_cap, "total", burn(900, 800, "")}, "INR") == "total: spent 900.00 INR in 2026-12, over the cap 800.00 INR");
  CHECK(alert_message({AlertKind::forecast_over_cap, "user asha", burn(720, 1000, "2026-12-20")}, "USD") ==
        "user asha: at 80.00 USD/day (9 days of 2026-12) the period ends at 2480.00 USD, over the cap 1000.00 USD; crossed on 2026-12-20");
  CHECK(alert_message({AlertKind::forecast_over_cap, "total", burn(720, 1000, "")}, "USD").find("1000.00 USD;") == std::string::npos);
}

TEST_CASE("experiments: a run over its max_cost, a life over its cap, specs the gate cannot price", "[render][alerts]") {
  CHECK(alert_message({AlertKind::run_over_max_cost, "experiment sft", {}, 61.5, 50, "2026-12-03"}, "EUR") ==
        "experiment sft: a run on 2026-12-03 cost 61.50 EUR, over its per-run max_cost 50.00 EUR");
  CHECK(alert_message({AlertKind::over_life_cap, "experiment sft", {}, 612, 600, "2026-12-15"}, "USD") ==
        "experiment sft: spent 612.00 USD over its whole ledger to 2026-12-15, over the per-experiment cap 600.00 USD");
  CHECK(alert_message({AlertKind::unpriced, "big", {}, 0, 0, "", "no offer fits"}, "USD") == "big: cannot be priced: no offer fits");
  CHECK(alert_message({AlertKind::spot_no_checkpoint, "cheap"}, "USD") ==
        "cheap: runs on spot instances and sets no checkpoint interval; a preemption loses the run");
  // JSON's kind: a life past its cap is a cap passed, as the first dashboard printed it.
  CHECK(std::string(to_string(AlertKind::over_life_cap)) == "over_cap");
  CHECK(std::string(to_string(AlertKind::run_over_max_cost)) == "run_over_max_cost");
}
