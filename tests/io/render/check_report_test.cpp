// check's and diff's reports on fixed values: two specs (one priced and bound by its input
// pipeline, one unpriced), a failed and a passed rule; and a diff with every kind of change.
#include <catch2/catch.hpp>

#include "io/render/check_report.hpp"

using namespace gpuplan;
using namespace gpuplan::io;

namespace {

// Money as the CLI spells it without --grouping: Indian for INR, international otherwise.
const MoneyStyle automatic{DigitGrouping::automatic};

PipelineFigures storage_bound() {
  PipelineFigures f;
  f.tokens_per_second = 2e6;
  f.storage_bytes_per_second = 8e6;
  f.storage_limit = 5e6;
  f.fed_tokens_per_second = 1.25e6;
  f.bound = PipelineBound::storage;
  f.slowdown = 1.6;
  return f;
}

CheckedSpec priced_spec(const std::string& name) {
  CheckedSpec s;
  s.check.name = name;
  s.check.owner = "ann";
  s.check.team = "nlp";
  s.check.where = {"exp/" + name + ".yaml", 0, 0};
  s.check.priced = true;
  s.check.cost = 1234.5;
  s.check.offer = "lambda/gpu_8x_h100";
  s.check.gpu_hours = 64;
  s.check.wall_seconds = 28800;
  s.per_gpu_bytes = 42949672960.4;
  s.model = "llama-3-8b";
  s.pipeline = storage_bound();
  return s;
}

CheckReport two_specs() {
  CheckReport r;
  r.period = "2026-12";
  r.currency = "USD";
  CheckedSpec unpriced;
  unpriced.check.name = "big";
  unpriced.check.where = {"exp/big.yaml", 0, 0};
  unpriced.check.unpriced_reason = "no offer fits";
  unpriced.model = "llama-3-405b";
  r.specs = {priced_spec("llama-ft"), unpriced};
  RuleResult cap;
  cap.experiment = "llama-ft";
  cap.rule = BudgetRule::max_cost;
  cap.pass = false;
  cap.value = 1234.5;
  cap.limit = 1000;
  cap.where = {"exp/llama-ft.yaml", 7, 3};
  cap.subject = "runpod/a100";
  RuleResult total;
  total.rule = BudgetRule::total;
  total.value = 1234.5;
  total.limit = 5000;
  total.spent = 234.5;
  total.added = 1000;
  total.period = "2026-12";
  total.as_of = "2026-12-15";
  total.where = {"budget.yaml", 2, 0};
  r.rules = {cap, total};
  r.policy_given = true;
  return r;
}

}  // namespace

TEST_CASE("check JSON: each experiment's raw figures and each rule's verdict", "[render][check]") {
  const nlohmann::json j = check_json(two_specs());
  CHECK(j["period"] == "2026-12");
  CHECK(j["currency"] == "USD");
  CHECK(j["pass"] == false);
  CHECK(j["specs_read"] == 2);
  REQUIRE(j["experiments"].size() == 2);
  const auto& e = j["experiments"][0];
  CHECK(e["name"] == "llama-ft");
  CHECK(e["file"] == "exp/llama-ft.yaml");
  CHECK(e["cost"] == 1234.5);
  CHECK(e["gpu_hours"] == 64);
  CHECK(e["wall_seconds"] == 28800);
  CHECK(e["per_gpu_bytes"] == 42949672960LL);  // whole bytes
  CHECK_FALSE(e.contains("why_unpriced"));
  CHECK(e["pipeline"]["bound"] == "storage");
  CHECK(j["experiments"][1]["priced"] == false);
  CHECK(j["experiments"][1]["why_unpriced"] == "no offer fits");
  CHECK(j["experiments"][1]["pipeline"].is_null());
  CHECK(j["rules"][0] == nlohmann::json::parse(R"({"experiment": "llama-ft", "rule": "max_cost", "pass": false, "value": 1234.5,
      "limit": 1000, "message": "estimated 1234.50 USD on runpod/a100 over its per-run max_cost 1000.00 USD", "file": "exp/llama-ft.yaml", "line": 7})"));
  CHECK(j["rules"][1]["experiment"].is_null());  // a period-wide rule
}

TEST_CASE("check table: FAIL in capitals, period-wide rules as (all), raw CSV", "[render][check]") {
  const Table t = check_table(two_specs());
  CHECK(t.title == "Budget check, 2026-12 (USD)");
  REQUIRE(t.rows.size() == 2);
  CHECK(t.rows[0] == std::vector<std::string>{"llama-ft", "max_cost", "FAIL", "estimated 1234.50 USD on runpod/a100 over its per-run max_cost 1000.00 USD"});
  CHECK(t.rows[1] == std::vector<std::string>{"(all)", "total", "pass", "total: spent 234.50 USD in 2026-12 to 2026-12-15 + estimated 1000.00 USD = 1234.50 USD within the cap 5000.00 USD; remaining 3765.50 USD"});
  CHECK(t.csv_rows[0] == std::vector<std::string>{"llama-ft", "max_cost", "false", "1234.5", "1000", "exp/llama-ft.yaml", "7",
                                                  "estimated 1234.50 USD on runpod/a100 over its per-run max_cost 1000.00 USD"});
  CHECK(t.csv_rows[1][0].empty());
}

TEST_CASE("check notes count specs and failures and warn of a pipeline-bound spec", "[render][check]") {
  CheckReport r = two_specs();
  CHECK(check_notes(r) == std::vector<std::string>{
                              "read 2 experiment specs", "1 of 2 rules fail",
                              "warning: llama-ft on lambda/gpu_8x_h100: the input pipeline (storage), not the GPUs, bounds this run: "
                              "1250000 tokens/s, 1.60x the GPU-bound step; its time and cost include it"});
  r.policy_given = false;
  r.rules.erase(r.rules.begin());
  r.specs.resize(1);
  r.specs[0].pipeline.reset();
  CHECK(check_notes(r) == std::vector<std::string>{"read 1 experiment spec", "all 1 rules pass",
                                                   "no --policy file: only each experiment's own max_cost and deadline are checked"});
  r.changed_against = "origin/main";
  r.specs_found = 12;
  CHECK(check_notes(r)[1] == "1 spec of 12 changed against origin/main");
}

TEST_CASE("check notes name five pipeline-bound specs and count the rest", "[render][check]") {
  CheckReport r;
  for (int i = 0; i < 7; ++i) r.specs.push_back(priced_spec("e" + std::to_string(i)));
  r.policy_given = true;
  const auto notes = check_notes(r);
  REQUIRE(notes.size() == 2 + 5 + 1);
  CHECK(notes[6].rfind("warning: e4 on ", 0) == 0);
  CHECK(notes[7] == "warning: 2 more experiments bound by the input pipeline (--format json: experiments[].pipeline)");
}

TEST_CASE("GitHub annotations: one per failed rule, escaped so a name cannot forge one", "[render][check]") {
  CheckReport r = two_specs();
  CHECK(github_annotations(r) ==
        "::error file=exp/llama-ft.yaml,line=7::llama-ft: max_cost: estimated 1234.50 USD on runpod/a100 over its per-run max_cost 1000.00 USD\n");
  r.rules[0].where = {"a,line=9:x", 0, 0};
  r.rules[0].rule = BudgetRule::priced;
  r.rules[0].subject = "50%\nnext";
  CHECK(github_annotations(r) == "::error file=a%2Cline=9%3Ax,line=1::llama-ft: priced: cannot be priced: 50%25%0Anext\n");
  CHECK(gh_escape_data("a\rb\033") == "a%0Db\xEF\xBF\xBD");
}

TEST_CASE("GitHub error annotations point at the file, line and column, or stand alone", "[render][check]") {
  const std::vector<InputError> errors = {InputError({"spec.yaml", 3, 5}, "gpus", "expected a positive number"),
                                          InputError({"<flag --gpus>", 0, 0}, "", "bad value"), InputError("no spec files")};
  CHECK(github_error_annotations(errors) ==
        "::error file=spec.yaml,line=3,col=5::field 'gpus': expected a positive number\n"
        "::error::<flag --gpus>: bad value\n"
        "::error::no spec files\n");
}

TEST_CASE("the Markdown verdict opens with pass or FAILS and the rule count", "[render][check]") {
  CheckReport r = two_specs();
  CHECK(markdown_verdict(r) == "### ❌ Budget gate FAILS: 1 of 2 rules fail (2026-12)\n\n");
  r.rules[0].pass = true;
  CHECK(markdown_verdict(r) == "### ✅ Budget gate passes: all 2 rules pass (2026-12)\n\n");
  CHECK(r.pass());
}

namespace {

CheckedSpec costing(double cost, double wall_seconds, double per_gpu_bytes) {
  CheckedSpec s;
  s.check.cost = cost;
  s.check.wall_seconds = wall_seconds;
  s.per_gpu_bytes = per_gpu_bytes;
  return s;
}

}  // namespace

TEST_CASE("diff: changed, added, removed and same rows, with totals", "[render][diff]") {
  const CheckedSpec a_before = costing(100, 7200, 10737418240.0), a_after = costing(150.25, 10800, 21474836480.0);
  const CheckedSpec added = costing(50, 3600, 1073741824.0), removed = costing(30, 1800, 0), same = costing(10, 900, 0);
  DiffReport d;
  d.currency = "USD";
  d.rows = {{"a", &a_before, &a_after, {}}, {"new", nullptr, &added, {}}, {"gone", &removed, nullptr, {}}, {"same-one", &same, &same, {}}};
  decide_costs(d);  // as `gpuplan diff` does

  const nlohmann::json j = diff_json(d);
  CHECK(j["experiments"][0] == nlohmann::json::parse(R"({"name": "a", "change": "changed", "cost_before": 100, "cost_after": 150.25,
      "delta": 50.25, "wall_seconds_before": 7200, "wall_seconds_after": 10800, "per_gpu_bytes_before": 10737418240,
      "per_gpu_bytes_after": 21474836480})"));
  CHECK(j["experiments"][1]["change"] == "added");
  CHECK(j["experiments"][1]["cost_before"].is_null());
  CHECK(j["experiments"][1]["per_gpu_bytes_before"].is_null());
  CHECK(j["experiments"][2]["change"] == "removed");
  CHECK(j["experiments"][2]["cost_after"].is_null());
  CHECK(j["experiments"][2]["delta"] == -30);
  CHECK(j["experiments"][3]["change"] == "same");
  CHECK(j["total_before"] == 140);
  CHECK(j["total_after"] == 210.25);
  CHECK(j["total_delta"] == 70.25);

  const Table t = diff_table(d, automatic);
  CHECK(t.title == "Cost diff (USD)");
  REQUIRE(t.rows.size() == 5);
  CHECK(t.rows[0] == std::vector<std::string>{"a", "changed", "100.00", "150.25", "+50.25", "2.0", "3.0", "20.0"});
  CHECK(t.rows[1] == std::vector<std::string>{"new", "added", "-", "50.00", "+50.00", "-", "1.0", "1.0"});
  CHECK(t.rows[2] == std::vector<std::string>{"gone", "removed", "30.00", "-", "-30.00", "0.5", "-", "-"});
  CHECK(t.rows[3][4] == "+0.00");
  CHECK(t.rows[4] == std::vector<std::string>{"total", "", "140.00", "210.25", "+70.25", "", "", ""});
  CHECK(t.csv_rows[0] == std::vector<std::string>{"a", "changed", "100", "150.25", "50.25", "7200", "10800", "21474836480"});
  CHECK(t.csv_rows[1] == std::vector<std::string>{"new", "added", "", "50", "50", "", "3600", "1073741824"});
  CHECK(t.csv_rows[4] == std::vector<std::string>{"total", "", "140", "210.25", "70.25", "", "", ""});
}

TEST_CASE("an empty diff is a zero total", "[render][diff]") {
  DiffReport d;
  d.currency = "EUR";
  CHECK(diff_json(d)["experiments"] == nlohmann::json::array());
  CHECK(diff_json(d)["total_delta"] == 0);
  CHECK(diff_table(d, automatic).rows == std::vector<std::vector<std::string>>{{"total", "", "0.00", "0.00", "+0.00", "", "", ""}});
}
