// The dashboard's budget math, against cases computed by hand in the comments.
#include <catch2/catch.hpp>

#include <algorithm>

#include "gpuplan/spend.hpp"

using namespace gpuplan;

namespace {
LedgerRecord rec(const std::string& date, const std::string& experiment, const std::string& team, const std::string& user, double cost,
                 double tokens = 0) {
  LedgerRecord r;
  r.date = date;
  r.experiment = experiment;
  r.team = team;
  r.user = user;
  r.cost = cost;
  r.currency = "USD";
  r.tokens = tokens;
  return r;
}
bool has_alert(const SpendReport& r, const std::string& kind, const std::string& subject) {
  return std::any_of(r.alerts.begin(), r.alerts.end(), [&](const SpendAlert& a) { return to_string(a.kind) == kind && a.subject == subject; });
}
}  // namespace

TEST_CASE("days in a month follow the Gregorian leap rule", "[spend]") {
  CHECK(days_in_month(2026, 12) == 31);
  CHECK(days_in_month(2026, 2) == 28);
  CHECK(days_in_month(2024, 2) == 29);
  CHECK(days_in_month(1900, 2) == 28);
  CHECK(days_in_month(2000, 2) == 29);
  CHECK(days_in_month(2026, 4) == 30);
  CHECK(days_in_month(2026, 13) == 0);
}

TEST_CASE("burn rate, month-end forecast and the forecast day a cap is crossed", "[spend]") {
  // 150 spent by day 10 of a 31-day month: 15/day; month end 150 + 15 * 21 = 465.
  // Cap 300: projected total at the end of day d is 150 + 15 * (d - 10); first d above 300 is 21.
  const std::vector<LedgerRecord> rs = {rec("2026-12-01", "a", "", "", 100), rec("2026-12-05", "b", "", "", 50),
                                        rec("2026-11-30", "old", "", "", 999)};
  const MonthBurn b = month_burn(rs, "2026-12-10", 300.0);
  CHECK(b.period == "2026-12");
  CHECK(b.days_in_month == 31);
  CHECK(b.days_elapsed == 10);
  CHECK(b.spent == Approx(150));
  CHECK(b.burn_per_day == Approx(15));
  CHECK(b.forecast == Approx(465));
  CHECK(b.crosses_on == "2026-12-21");
  CHECK(b.crossing_forecast);
  // Exactly at the cap is not over it: cap 465 is reached on day 31, not exceeded.
  CHECK(month_burn(rs, "2026-12-10", 465.0).crosses_on.empty());
  // A cap the month's pace never reaches: no crossing this month.
  CHECK(month_burn(rs, "2026-12-10", 1000.0).crosses_on.empty());
  // No cap, no crossing; the forecast is still there.
  CHECK(month_burn(rs, "2026-12-10", std::nullopt).crosses_on.empty());
}

TEST_CASE("a cap already exceeded reports the day the ledger crossed it", "[spend]") {
  // Running total: 100 on the 1st, 150 on the 5th; cap 120 is exceeded on the 5th.
  const std::vector<LedgerRecord> rs = {rec("2026-12-05", "b", "", "", 50), rec("2026-12-01", "a", "", "", 100)};
  const MonthBurn b = month_burn(rs, "2026-12-10", 120.0);
  CHECK(b.crosses_on == "2026-12-05");
  CHECK_FALSE(b.crossing_forecast);
}

TEST_CASE("the dashboard groups spend, compares planned with actual and raises alerts", "[spend]") {
  BudgetPolicy p;
  p.total = 300;
  p.teams["nlp"] = 100;
  p.users["ravi"] = 500;
  const std::vector<LedgerRecord> rs = {rec("2026-12-01", "sft", "nlp", "asha", 100, 1e6), rec("2026-12-05", "sft", "nlp", "asha", 20, 1e6),
                                        rec("2026-12-05", "vit", "cv", "ravi", 30), rec("2026-11-02", "sft", "nlp", "asha", 70)};
  ExperimentCheck sft;
  sft.name = "sft";
  sft.priced = true;
  sft.cost = 80;
  ExperimentCheck spot;
  spot.name = "spotty";
  spot.priced = true;
  spot.cost = 5;
  spot.spot = true;
  const SpendReport r = build_spend_report(p, rs, {{"2026-11", 70}, {"2026-12", 150}}, {sft, spot}, "2026-12-10");
  CHECK(r.total.spent == Approx(150));
  REQUIRE(r.teams.size() == 2);
  CHECK(r.teams[1].name == "nlp");
  CHECK(r.teams[1].burn.spent == Approx(120));
  CHECK(r.teams[1].burn.crosses_on == "2026-12-05");  // 100 then 120 > 100
  const auto ex = std::find_if(r.experiments.begin(), r.experiments.end(), [](const SpendGroup& g) { return g.name == "sft"; });
  REQUIRE(ex != r.experiments.end());
  CHECK(ex->runs == 2);
  CHECK(ex->cost_per_run() == Approx(60));
  CHECK(*ex->cost_per_million_tokens() == Approx(60));  // 120 over 2M tokens = 60 per million
  CHECK(*ex->planned == Approx(80));
  CHECK(std::any_of(r.experiments.begin(), r.experiments.end(), [](const SpendGroup& g) { return g.name == "spotty" && g.runs == 0; }));
  CHECK(has_alert(r, "over_cap", "team nlp"));
  CHECK(has_alert(r, "forecast_over_cap", "total"));  // 15/day: 465 by month end against 300
  CHECK(has_alert(r, "spot_no_checkpoint", "spotty"));
  CHECK_FALSE(has_alert(r, "over_cap", "user ravi"));
  CHECK_FALSE(has_alert(r, "forecast_over_cap", "user ravi"));  // 3/day: 93 by month end
  REQUIRE(!r.largest.empty());
  CHECK(r.largest[0].kind == "team");
  CHECK(r.largest[0].name == "nlp");
  CHECK(r.largest[0].share == Approx(0.8));
  CHECK(r.days.size() == 2);
}
