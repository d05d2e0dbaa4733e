// The dashboard for people: summary, teams, users and experiments tables, and the alert notes.
#include <catch2/catch.hpp>

#include "io/render/spend_tables.hpp"

using namespace gpuplan;
using namespace gpuplan::io;

namespace {

SpendGroup group(const std::string& name, std::size_t runs, double spent) {
  SpendGroup g;
  g.name = name;
  g.runs = runs;
  g.burn.spent = spent;
  return g;
}

SpendReport week() {
  SpendReport r;
  r.as_of = "2026-12-03";
  r.period = "2026-W49";
  r.currency = "EUR";
  r.total.spent = 1234.567;
  r.total.burn_per_day = 411.52;
  r.total.forecast = 2880.67;
  r.total.forecast_made = true;
  r.total.forecast_method = "linear";
  r.total.cap = 2500;
  r.total.crosses_on = "2026-12-06";
  r.total.crossing_forecast = true;
  SpendGroup nlp = group("nlp", 3, 1000);
  nlp.burn.cap = 800;
  nlp.burn.crosses_on = "2026-12-02";
  r.teams = {nlp};
  r.users = {group("asha", 1, 234.567)};
  SpendGroup sft = group("sft", 2, 300);
  sft.tokens = 3e9;
  sft.planned = 250;
  r.experiments = {sft};
  return r;
}

}  // namespace

TEST_CASE("the dashboard's tables round money to cents and mark forecast crossings", "[render][spend]") {
  const std::vector<Table> t = spend_report_tables(week());
  REQUIRE(t.size() == 4);  // no families: no outcomes table
  CHECK(t[0].title == "Spend 2026-W49 as of 2026-12-03 (EUR)");
  CHECK(t[0].rows == std::vector<std::vector<std::string>>{{"spent", "1234.57"},
                                                           {"cap", "2500.00"},
                                                           {"burn per day", "411.52"},
                                                           {"period-end forecast", "2880.67"},
                                                           {"forecast method", "linear"},
                                                           {"cap crossed on", "2026-12-06 (forecast)"}});
  CHECK(t[1].title == "Teams");
  CHECK(t[1].rows == std::vector<std::vector<std::string>>{{"nlp", "1000.00", "800.00", "-", "2026-12-02", "3"}});
  CHECK(t[2].rows == std::vector<std::vector<std::string>>{{"asha", "234.57", "-", "-", "-", "1"}});
  CHECK(t[3].columns.size() == 6);  // cost per sample and request only once runs carry outcomes
  CHECK(t[3].rows == std::vector<std::vector<std::string>>{{"sft", "2", "300.00", "150.00", "0.10", "250.00"}});
}

TEST_CASE("the dashboard's notes: each alert in words, or none", "[render][spend]") {
  SpendReport r = week();
  CHECK(spend_report_notes(r) == std::vector<std::string>{"no alerts"});
  r.alerts = {{AlertKind::spot_no_checkpoint, "cheap"}, {AlertKind::unpriced, "big", {}, 0, 0, "", "no offer fits"}};
  CHECK(spend_report_notes(r) ==
        std::vector<std::string>{"alert: cheap: runs on spot instances and sets no checkpoint interval; a preemption loses the run",
                                 "alert: big: cannot be priced: no offer fits"});
}
