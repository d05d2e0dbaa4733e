// The budget gate over time: calendar periods, the experiment lifecycle (a run is counted once),
// caps that mean what they say, and a year of monthly gate runs with no false alert.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>

#include "gpuplan/budget.hpp"
#include "gpuplan/catalog.hpp"
#include "gpuplan/spend.hpp"

using namespace gpuplan;

namespace {
LedgerRecord rec(const std::string& date, const std::string& experiment, double cost, const std::string& team = "nlp") {
  LedgerRecord r;
  r.date = date;
  r.experiment = experiment;
  r.team = team;
  r.user = "asha";
  r.cost = cost;
  r.currency = "USD";
  return r;
}
ExperimentCheck spec(const std::string& name, double cost, SpecStatus status = SpecStatus::planned) {
  ExperimentCheck e;
  e.name = name;
  e.priced = true;
  e.cost = cost;
  e.team = "nlp";
  e.owner = "asha";
  e.offer = "p/o";
  e.status = status;
  return e;
}
const RuleResult* find_rule(const std::vector<RuleResult>& rs, const std::string& exp, const std::string& name) {
  const auto it = std::find_if(rs.begin(), rs.end(), [&](const RuleResult& r) { return r.experiment == exp && to_string(r.rule) == name; });
  return it == rs.end() ? nullptr : &*it;
}
bool all_pass(const std::vector<RuleResult>& rs) {
  return std::all_of(rs.begin(), rs.end(), [](const RuleResult& r) { return r.pass; });
}
bool has_alert(const SpendReport& r, const std::string& kind, const std::string& subject) {
  return std::any_of(r.alerts.begin(), r.alerts.end(), [&](const SpendAlert& a) { return to_string(a.kind) == kind && a.subject == subject; });
}
}  // namespace

TEST_CASE("calendar periods: ISO weeks, months and quarters", "[gate]") {
  // 2026-01-01 is a Thursday, so 2026 has 53 ISO weeks and 2027-01-01 (a Friday) is in 2026-W53.
  Period w = period_containing("2026-12-03", "week");
  CHECK(w.name == "2026-W49");
  CHECK(w.first == "2026-11-30");  // a Monday
  CHECK(w.last == "2026-12-06");
  CHECK(w.days == 7);
  CHECK(period_containing("2027-01-01", "week").name == "2026-W53");
  CHECK(period_containing("2025-12-29", "week").name == "2026-W01");
  const Period q = period_containing("2026-11-15", "quarter");
  CHECK(q.name == "2026-Q4");
  CHECK(q.first == "2026-10-01");
  CHECK(q.last == "2026-12-31");
  CHECK(q.days == 92);
  const Period m = period_containing("2024-02-10", "month");
  CHECK(m.name == "2024-02");
  CHECK(m.last == "2024-02-29");
  CHECK(days_between("2026-12-31", "2027-01-01") == 1L);
  CHECK(add_days("2026-02-27", 3) == "2026-03-02");
}

TEST_CASE("a run in the ledger is not estimated again, done and cancelled specs add nothing", "[gate]") {
  // The reproducer: llama70b-lora has spent 250 and its spec estimates 213.67.
  BudgetPolicy p;
  p.total = 1000;
  const std::vector<LedgerRecord> ledger = {rec("2026-12-01", "llama70b-lora", 250)};
  auto rs = check_budget(p, {spec("llama70b-lora", 213.67), spec("new", 100)}, ledger, "2026-12-02");
  CHECK(find_rule(rs, "", "total")->value == Approx(250 + 100));
  // Running with 50 of its 120 spent: 70 more.
  rs = check_budget(p, {spec("r", 120, SpecStatus::running)}, {rec("2026-12-01", "r", 50)}, "2026-12-02");
  CHECK(find_rule(rs, "", "total")->value == Approx(120));
  // Done: its ledger records only, and the gate says so at its status line.
  rs = check_budget(p, {spec("d", 500, SpecStatus::done), spec("c", 900, SpecStatus::cancelled)}, {rec("2026-12-01", "d", 40)}, "2026-12-02");
  CHECK(find_rule(rs, "", "total")->value == Approx(40));
  REQUIRE(find_rule(rs, "d", "status"));
  CHECK(find_rule(rs, "d", "status")->value == Approx(40));
  CHECK(find_rule(rs, "c", "max_cost") == nullptr);
}

TEST_CASE("the as-of date (--date) cuts the ledger, and caps count the policy's period", "[gate]") {
  BudgetPolicy p;
  p.total = 100;
  const std::vector<LedgerRecord> ledger = {rec("2026-12-01", "a", 30), rec("2026-12-20", "b", 500), rec("2026-11-30", "c", 70)};
  auto rs = check_budget(p, {}, ledger, "2026-12-10");
  CHECK(find_rule(rs, "", "total")->value == Approx(30));  // the 20th has not happened yet
  p.period = "quarter";
  rs = check_budget(p, {}, ledger, "2026-12-10");
  CHECK(find_rule(rs, "", "total")->value == Approx(100));  // November is in 2026-Q4
  p.period = "week";
  rs = check_budget(p, {}, ledger, "2026-12-01");
  CHECK(find_rule(rs, "", "total")->value == Approx(100));  // Monday 30 Nov and Tuesday 1 Dec
}

TEST_CASE("the per-experiment cap covers the experiment's whole ledger", "[gate]") {
  BudgetPolicy p;
  p.per_experiment = 600;
  const std::vector<LedgerRecord> ledger = {rec("2026-10-03", "big", 500), rec("2026-12-02", "big", 736)};
  const auto rs = check_budget(p, {spec("big", 100, SpecStatus::running)}, ledger, "2026-12-05");
  REQUIRE(find_rule(rs, "big", "per_experiment"));
  CHECK(find_rule(rs, "big", "per_experiment")->value == Approx(1236));
  CHECK_FALSE(find_rule(rs, "big", "per_experiment")->pass);
  // The dashboard alerts it from the ledger alone, without specs.
  const SpendReport r = build_spend_report(p, ledger, {}, {}, "2026-12-05");
  CHECK(has_alert(r, "over_cap", "experiment big"));
}

TEST_CASE("report: max_cost caps each run, and forecasts wait for a week of history", "[gate]") {
  BudgetPolicy p;
  p.total = 60;
  ExperimentCheck s = spec("sft", 20);
  s.max_cost = 60;
  // 21.45 spent by the 3rd: 7.15/day would reach 221.65 by the 31st, but 3 days say little.
  const std::vector<LedgerRecord> ledger = {rec("2026-12-01", "sft", 10), rec("2026-12-03", "sft", 11.45)};
  SpendReport r = build_spend_report(p, ledger, {}, {s}, "2026-12-03");
  CHECK(r.alerts.empty());
  CHECK_FALSE(r.total.forecast_made);
  CHECK(r.total.forecast_needs_days == 7);
  CHECK(r.total.days_elapsed == 3);
  r = build_spend_report(p, ledger, {}, {s}, "2026-12-07");
  CHECK(r.total.forecast_made);
  CHECK(r.total.last_day == "2026-12-31");
  CHECK(r.total.forecast == Approx(21.45 / 7 * 31));
  CHECK(has_alert(r, "forecast_over_cap", "total"));
  s.max_cost = 11;  // one run of 11.45 is over a per-run cap of 11; the other is not
  r = build_spend_report(p, ledger, {}, {s}, "2026-12-03");
  CHECK(std::count_if(r.alerts.begin(), r.alerts.end(), [](const SpendAlert& a) { return a.kind == AlertKind::run_over_max_cost; }) == 1);
}

// "Done when": twelve monthly gate runs over one spec folder and one ledger. Each month a new
// experiment is planned and gated mid-month, runs (its cost recorded once), and is marked done.
// Caps fit the true spend, so any alert is a false one and any double count shows in the totals.
TEST_CASE("a year of monthly gate runs raises no false alert and counts nothing twice", "[gate]") {
  BudgetPolicy p;
  p.total = 400;
  p.teams["nlp"] = 400;
  p.per_experiment = 350;
  std::vector<ExperimentCheck> folder;
  std::vector<LedgerRecord> ledger;
  double all_time = 0;
  for (int month = 1; month <= 12; ++month) {
    char mid[16], late[16], end[16], name[16];
    std::snprintf(mid, sizeof mid, "2026-%02d-10", month);
    std::snprintf(late, sizeof late, "2026-%02d-12", month);
    std::snprintf(end, sizeof end, "2026-%02d-28", month);
    std::snprintf(name, sizeof name, "exp-%02d", month);
    const double estimate = 200 + 10 * month;  // each month a little dearer, always under the caps
    ExperimentCheck e = spec(name, estimate);
    e.max_cost = estimate * 1.2;
    folder.push_back(e);
    // The gate on the PR, mid-month: last months' specs are done and add nothing.
    const auto rs = check_budget(p, folder, ledger, mid);
    CHECK(all_pass(rs));
    CHECK(find_rule(rs, "", "total")->value == Approx(estimate));
    // It runs: a first partial record, then a gate run while it is running, then the rest.
    folder.back().status = SpecStatus::running;
    ledger.push_back(rec(late, name, estimate * 0.4));
    const auto running = check_budget(p, folder, ledger, late);
    CHECK(all_pass(running));
    CHECK(find_rule(running, "", "total")->value == Approx(estimate));  // 40% spent + 60% to come
    ledger.push_back(rec(end, name, estimate * 0.6));
    folder.back().status = SpecStatus::done;
    all_time += estimate;
    const SpendReport r = build_spend_report(p, ledger, {}, folder, end);
    CHECK(r.alerts.empty());
    CHECK(r.total.spent == Approx(estimate));
    const auto after = check_budget(p, folder, ledger, end);
    CHECK(all_pass(after));
    CHECK(find_rule(after, "", "total")->value == Approx(estimate));
  }
  double in_ledger = 0;
  for (const auto& [n, v] : experiment_spend(ledger, "2026-12-31")) in_ledger += v;
  CHECK(in_ledger == Approx(all_time));
}
