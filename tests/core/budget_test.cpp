#include <catch2/catch.hpp>

#include <algorithm>

#include "gpuplan/budget.hpp"

using namespace gpuplan;

namespace {
// A plain spend record (no provider, gpu-hours, tokens or outcomes) in USD.
LedgerRecord led(const std::string& date, const std::string& experiment, const std::string& team, const std::string& user, double cost) {
  LedgerRecord r;
  r.date = date;
  r.experiment = experiment;
  r.team = team;
  r.user = user;
  r.cost = cost;
  r.currency = "USD";
  return r;
}
}  // namespace

namespace {
ExperimentCheck experiment(const std::string& name, double cost, const std::string& team, const std::string& owner) {
  ExperimentCheck e;
  e.name = name;
  e.priced = true;
  e.cost = cost;
  e.team = team;
  e.owner = owner;
  e.offer = "p/o";
  return e;
}
const RuleResult& rule(const std::vector<RuleResult>& rs, const std::string& exp, const std::string& name) {
  const auto it = std::find_if(rs.begin(), rs.end(), [&](const RuleResult& r) { return r.experiment == exp && to_string(r.rule) == name; });
  REQUIRE(it != rs.end());
  return *it;
}
}  // namespace

TEST_CASE("caps add the period's ledger spend to every new estimate", "[budget]") {
  BudgetPolicy p;
  p.total = 100;
  p.teams["nlp"] = 50;
  p.users["asha"] = 30;
  const std::vector<ExperimentCheck> xs = {experiment("a", 20, "nlp", "asha"), experiment("b", 15, "cv", "ravi")};
  std::vector<LedgerRecord> ledger(3);
  ledger[0] = led("2026-12-01", "old", "nlp", "asha", 12);
  ledger[1] = led("2026-11-30", "older", "nlp", "asha", 500);  // last month: not counted
  ledger[2] = led("2026-12-02", "x", "cv", "ravi", 60);
  const auto rs = check_budget(p, xs, ledger, "2026-12-31");
  const RuleResult& total = rule(rs, "", "total");
  CHECK(total.value == Approx(12 + 60 + 20 + 15));
  CHECK_FALSE(total.pass);  // 107 > 100
  const RuleResult& team = rule(rs, "", "team");
  CHECK(team.value == Approx(12 + 20));
  CHECK(team.pass);
  const RuleResult& user = rule(rs, "", "user");
  CHECK(user.value == Approx(32));
  CHECK_FALSE(user.pass);  // 32 > 30
}

TEST_CASE("per-experiment rules: max_cost, cap, deadline, spot checkpoints, approval", "[budget]") {
  BudgetPolicy p;
  p.per_experiment = 40;
  p.spot_checkpoint_every_max = 3600;
  p.approval_over_gpu_hours = 100;
  ExperimentCheck e = experiment("a", 45, "", "");
  e.max_cost = 50;
  e.deadline_seconds = 3600;
  e.wall_seconds = 7200;
  e.spot = true;
  e.checkpoint_interval_seconds = 1800;
  e.gpu_hours = 150;
  auto rs = check_budget(p, {e}, {}, "2026-12-31");
  CHECK(rule(rs, "a", "max_cost").pass);
  CHECK_FALSE(rule(rs, "a", "per_experiment").pass);
  CHECK_FALSE(rule(rs, "a", "deadline").pass);
  CHECK(rule(rs, "a", "spot_checkpoint").pass);
  CHECK_FALSE(rule(rs, "a", "approval").pass);
  e.approved_by = "lead";
  e.checkpoint_interval_seconds.reset();  // a spot run with no interval fails the rule
  rs = check_budget(p, {e}, {}, "2026-12-31");
  CHECK(rule(rs, "a", "approval").pass);
  CHECK_FALSE(rule(rs, "a", "spot_checkpoint").pass);
}

TEST_CASE("an experiment that cannot be priced fails, and is left out of the caps", "[budget]") {
  BudgetPolicy p;
  p.total = 10;
  ExperimentCheck e;
  e.name = "x";
  e.unpriced_reason = "no run size";
  const auto rs = check_budget(p, {e}, {}, "2026-12-31");
  CHECK_FALSE(rule(rs, "x", "priced").pass);
  CHECK(rule(rs, "", "total").pass);
}

TEST_CASE("the gate passes only when no rule fails", "[budget]") {
  BudgetPolicy p;
  p.per_experiment = 40;
  CHECK(gate_passes({}));  // nothing to check: nothing fails
  CHECK(gate_passes(check_budget(p, {experiment("a", 30, "", "")}, {}, "2026-12-31")));
  // One experiment over the cap fails the whole gate, whatever the others do.
  CHECK_FALSE(gate_passes(check_budget(p, {experiment("a", 30, "", ""), experiment("b", 45, "", "")}, {}, "2026-12-31")));
}

TEST_CASE("diff: each spec's cost change, and the totals over every spec", "[budget]") {
  const ExperimentCheck a = experiment("a", 30, "", ""), a2 = experiment("a", 42.5, "", ""), b = experiment("b", 10, "", "");
  const CostChange repriced = cost_change(&a, &a2), same = cost_change(&b, &b), gone = cost_change(&b, nullptr),
                   added = cost_change(nullptr, &a);
  CHECK(repriced.change == SpecChange::changed);
  CHECK(repriced.delta() == 12.5);
  CHECK(same.change == SpecChange::same);
  CHECK(same.delta() == 0);
  CHECK(gone.change == SpecChange::removed);
  CHECK(gone.delta() == -10);
  CHECK(added.change == SpecChange::added);
  CHECK(added.before == 0);
  CHECK(added.after == 30);
  // before 30 + 10 + 10 + 0 = 50; after 42.5 + 10 + 0 + 30 = 82.5.
  const CostChange t = total_change({repriced, same, gone, added});
  CHECK(t.before == 50);
  CHECK(t.after == 82.5);
  CHECK(t.change == SpecChange::changed);
  CHECK(total_change({same, same}).change == SpecChange::same);
}

TEST_CASE("spend sums by period, team and experiment", "[budget]") {
  std::vector<LedgerRecord> l(2);
  l[0] = led("2026-11-03", "a", "nlp", "", 5);
  l[1] = led("2026-12-03", "a", "", "", 7);
  CHECK(sum_spend(l, "period").at("2026-11") == 5);
  CHECK(sum_spend(l, "experiment").at("a") == 12);
  CHECK(sum_spend(l, "team").at("(none)") == 7);
  CHECK(period_of("2026-12-31") == "2026-12");
}
