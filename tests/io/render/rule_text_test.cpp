// The budget gate's words are chosen here from the core's codes and numbers: each rule's sentence.
#include <catch2/catch.hpp>

#include <set>

#include "io/render/rule_text.hpp"

using namespace gpuplan;
using gpuplan::io::rule_message;

namespace {

RuleResult rule(BudgetRule code, bool pass, double value, double limit) {
  RuleResult r;
  r.experiment = "sft";
  r.rule = code;
  r.pass = pass;
  r.value = value;
  r.limit = limit;
  return r;
}

}  // namespace

TEST_CASE("a spec's own rules in words", "[render][rules]") {
  RuleResult cap = rule(BudgetRule::max_cost, false, 1234.5, 1000);
  cap.subject = "runpod/h100-x8";
  CHECK(rule_message(cap, "EUR") == "estimated 1234.50 EUR on runpod/h100-x8 over its per-run max_cost 1000.00 EUR");
  cap.pass = true;
  cap.value = 12.004;
  CHECK(rule_message(cap, "USD") == "estimated 12.00 USD on runpod/h100-x8 within its per-run max_cost 1000.00 USD");
  CHECK(rule_message(rule(BudgetRule::deadline, false, 9000, 7200), "USD") == "takes 2.5 h, deadline 2.0 h");
  CHECK(rule_message(rule(BudgetRule::spot_checkpoint, true, 1800, 3600), "USD") ==
        "spot run checkpoints every 30 min; policy requires at most 60 min");
  CHECK(rule_message(rule(BudgetRule::spot_checkpoint, false, 0, 3600), "USD") ==
        "spot run sets no checkpoint interval; policy requires at most 60 min");
  RuleResult approval = rule(BudgetRule::approval, false, 512.25, 500);
  CHECK(rule_message(approval, "USD") == "512.2 GPU-hours is over the 500 that need approval; no approved_by");
  approval.subject = "asha";
  CHECK(rule_message(approval, "USD") == "512.2 GPU-hours is over the 500 that need approval; approved by asha");
  RuleResult priced = rule(BudgetRule::priced, false, 0, 0);
  priced.subject = "no offer fits 405B in fp16";
  CHECK(rule_message(priced, "USD") == "cannot be priced: no offer fits 405B in fp16");
}

TEST_CASE("a spec's life and the period's caps in words", "[render][rules]") {
  RuleResult life = rule(BudgetRule::per_experiment, false, 700, 600);
  life.spent = 500;
  life.added = 200;
  CHECK(rule_message(life, "USD") == "ledger 500.00 USD + estimated 200.00 USD = 700.00 USD over the per-experiment cap 600.00 USD");
  RuleResult done = rule(BudgetRule::status, true, 41.2, 0);
  done.status = SpecStatus::done;
  done.spent = 41.2;
  CHECK(rule_message(done, "USD") == "done: not estimated again; the ledger holds 41.20 USD under its name");
  done.status = SpecStatus::cancelled;
  done.spent = done.value = 0;
  CHECK(rule_message(done, "USD") == "cancelled: not estimated again; the ledger holds no record under its name");

  RuleResult team = rule(BudgetRule::team, true, 900, 1000);
  team.experiment.clear();
  team.subject = "nlp";
  team.spent = 400;
  team.added = 500;
  team.period = "2026-W49";
  team.as_of = "2026-12-03";
  CHECK(rule_message(team, "INR") ==
        "team nlp: spent 400.00 INR in 2026-W49 to 2026-12-03 + estimated 500.00 INR = 900.00 INR within the cap 1000.00 INR; "
        "remaining 100.00 INR");
  team.rule = BudgetRule::total;
  team.pass = false;
  team.limit = 800;
  CHECK(rule_message(team, "INR") ==
        "total: spent 400.00 INR in 2026-W49 to 2026-12-03 + estimated 500.00 INR = 900.00 INR over the cap 800.00 INR");
  team.rule = BudgetRule::user;
  team.subject = "asha";
  CHECK(rule_message(team, "INR").rfind("user asha: spent 400.00 INR", 0) == 0);
}

TEST_CASE("every rule has its own snake_case name", "[render][rules]") {
  std::set<std::string> names;
  for (int i = 0; i <= static_cast<int>(BudgetRule::total); ++i) {
    const std::string n = to_string(static_cast<BudgetRule>(i));
    CHECK(n.find_first_not_of("abcdefghijklmnopqrstuvwxyz_") == std::string::npos);
    names.insert(n);
  }
  CHECK(names.size() == static_cast<std::size_t>(BudgetRule::total) + 1);
}
