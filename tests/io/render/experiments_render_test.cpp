// Experiments as decisions on a fixed family (three eval_loss runs whose last improvement cost
// ten times the one before): the reason in words for each basis, the table row, JSON and the
// HTML section's chart points and escaping.
#include <catch2/catch.hpp>

#include "io/render/experiments_render.hpp"
#include "io/render/spend_render.hpp"

using namespace gpuplan;
using namespace gpuplan::io;

namespace {

MetricSeries eval_loss() {
  MetricSeries s;
  s.metric = "eval_loss";
  s.higher_is_better = false;
  s.runs = {{"sft/a", "2026-11-01", "r1", 100, 2.0, true, false, std::nullopt},
            {"sft/b", "2026-11-05", "r2", 150, 1.8, true, true, std::nullopt},
            {"sft/c", "2026-11-09", "r3", 400, 1.75, true, true, std::nullopt}};
  s.improvements = {{1, 0.2, 150, 1}, {2, 0.05, 400, 1}};  // 750 then 8000 per unit of loss
  s.frontier = {0, 1, 2};
  s.decision = Decision::change_method;
  s.basis = DecisionBasis::flattened;
  s.cost_per_gain_ratio = 10.6667;
  return s;
}

SpendReport with_family(const std::string& family) {
  SpendReport r;
  r.currency = "USD";
  FamilyOutcome f;
  f.family = family;
  f.experiments = {"sft/a", "sft/b", "sft/c"};
  f.records = 3;
  f.spent = 650;
  f.gpu_hours = 60;
  f.tokens = 3e9;
  f.cost_per_million_tokens = 650 / 3e3;
  f.utilization = 0.55;
  f.utilization_runs = 3;
  f.utilization_low = true;
  f.idle_causes = {IdleCause::text_input, IdleCause::micro_batch};
  f.restore_seconds_max = 312.5;
  f.metrics = {eval_loss()};
  r.families = {f};
  return r;
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("the decision's reason, for each basis", "[render][experiments]") {
  const DecisionRule rule;  // stop after 3, change above 2x
  MetricSeries s = eval_loss();
  CHECK(decision_reason(s, rule, "USD") ==
        "change method: the last improvement (sft/c, eval_loss down 0.05, cost 400.00 USD over 1 run (8000.00 USD per unit)) cost 10.67x "
        "per unit what the one before did (sft/b, eval_loss down 0.2, cost 150.00 USD over 1 run (750.00 USD per unit)), over the 2.00x "
        "limit; cost per run went from 150.00 to 400.00 USD");
  s.basis = DecisionBasis::cheap_improvement;
  s.cost_per_gain_ratio = 1.5;
  CHECK(decision_reason(s, rule, "USD") ==
        "continue: the last improvement (sft/c, eval_loss down 0.05, cost 400.00 USD over 1 run (8000.00 USD per unit)) cost 1.50x per "
        "unit what the one before did, within the 2.00x limit");
  s.cost_per_gain_ratio.reset();
  CHECK(decision_reason(s, rule, "USD").find(") is the first; nothing to compare it with yet") != std::string::npos);
  s.basis = DecisionBasis::no_recent_frontier;
  s.runs_since_frontier = 1;
  s.cost_since_frontier = 400;
  CHECK(decision_reason(s, rule, "EUR") ==
        "stop: none of the last 1 run reached the cost/eval_loss frontier (400.00 EUR spent since sft/b on 2026-11-05, the last run on "
        "it; the rule stops after 3)");
  s.basis = DecisionBasis::baseline_only;
  CHECK(decision_reason(s, rule, "USD") == "continue: 3 runs, none better than the first yet; the rule stops after 3 in a row off the frontier");
}

TEST_CASE("metric values print with four significant digits", "[render][experiments]") {
  CHECK(metric_text(1.75) == "1.75");
  CHECK(metric_text(0.123456) == "0.1235");
  CHECK(metric_text(123456.0) == "1.235e+05");
}

TEST_CASE("the families table: one row per family and metric", "[render][experiments]") {
  const Table t = families_table(with_family("sft"));
  CHECK(t.title == "Experiment families: cost against quality (USD)");
  REQUIRE(t.rows.size() == 1);
  CHECK(t.rows[0] == std::vector<std::string>{"sft", "eval_loss (lower)", "3", "1.75", "3", "0.05", "400.00", "8000.00", "10.67x",
                                              "0 (0.00)", "0", "change_method"});
  CHECK(families_table(SpendReport{}).rows.empty());
}

TEST_CASE("family notes: the decision, low utilization with its advice, the slowest restore", "[render][experiments]") {
  const auto notes = family_notes(with_family("sft"));
  REQUIRE(notes.size() == 3);
  CHECK(notes[0].rfind("family sft: change method: the last improvement (sft/c, ", 0) == 0);
  CHECK(notes[1] == "family sft: GPU utilization 55.00% (median of 3 runs), below 70.00%; " + idle_advice(IdleCause::text_input) + "; " +
                        idle_advice(IdleCause::micro_batch));
  CHECK(notes[2] == "family sft: the slowest checkpoint restore took 312.5 s (a preemption costs at least that, plus the work since the "
                    "last checkpoint)");
  CHECK(idle_advice(IdleCause::micro_batch) ==
        "memory: a micro-batch too small to fill the GPU idles it too; `gpuplan estimate --micro-batch N` shows the largest that fits");
}

TEST_CASE("families JSON: the rule, each family's figures and each series' runs and improvements", "[render][experiments]") {
  const SpendReport r = with_family("sft");
  const nlohmann::json j = families_json(r);
  CHECK(j["decision_rule"] == nlohmann::json::parse(R"({"stop_after_runs": 3, "change_ratio": 2.0, "min_utilization": 0.7})"));
  const auto& f = j["families"][0];
  CHECK(f["family"] == "sft");
  CHECK(f["spent"] == 650);
  CHECK(f["utilization"] == 0.55);
  CHECK(f["utilization_low"] == true);
  CHECK(f["idle"][0]["cause"] == "text_input");
  CHECK(f["restore_seconds_max"] == 312.5);
  CHECK(f["cost_per_million_samples"].is_null());
  CHECK(f["decision"] == "change_method");
  const auto& m = f["metrics"][0];
  CHECK(m["metric"] == "eval_loss");
  CHECK(m["better"] == "lower");
  CHECK(m["best"] == 1.75);
  CHECK(m["runs"][0] == nlohmann::json::parse(R"({"experiment": "sft/a", "date": "2026-11-01", "id": "r1", "cost": 100, "value": 2.0,
      "on_frontier": true, "improved": false, "dominated_by": null})"));
  CHECK(m["frontier"] == nlohmann::json::array({0, 1, 2}));
  CHECK(m["improvements"][0] == nlohmann::json::parse(R"({"run": 1, "experiment": "sft/b", "gain": 0.2, "cost": 150, "runs": 1,
      "cost_per_run": 150, "cost_per_gain": 750.0})"));
  CHECK(m["last_improvement"] == m["improvements"][1]);
  CHECK(m["wasted_runs"] == nlohmann::json::array());
  CHECK(m["cost_per_gain_ratio"] == 10.6667);
  CHECK(m["basis"] == "flattened");
  CHECK(m["reason"] == decision_reason(r.families[0].metrics[0], r.rule, "USD"));
  CHECK(families_json(SpendReport{})["families"] == nlohmann::json::array());
}

TEST_CASE("the families HTML section: a chart per series, points placed and titled, names escaped", "[render][experiments]") {
  const std::string h = families_html(with_family("<b>sft</b>"));
  CHECK(h.rfind("<section><style>", 0) == 0);
  CHECK(has(h, "<h2>Experiments as decisions: cost against quality</h2>"));
  CHECK(has(h, "Rule: stop when none of a family's last 3 runs is on its cost/quality frontier; change the method when the last "
               "improvement cost more than 2.00x per unit gained what the one before did; otherwise continue. Utilization below 70.00% is flagged."));
  CHECK(has(h, "<ul class=\"decisions\" id=\"decisions\"><li>family &lt;b&gt;sft&lt;/b&gt;: change method: "));
  CHECK(has(h, "<figure class=\"frontier\" data-family=\"&lt;b&gt;sft&lt;/b&gt;\" data-metric=\"eval_loss\">"));
  CHECK_FALSE(has(h, "<b>"));
  // Lower loss is better, so it runs upwards: cost 100 at x = 70 + 430 x 100/400, loss 2.0 (the worst) at the bottom (y = 14 + 206).
  CHECK(has(h, "<circle class=\"run on\" cx=\"177.50\" cy=\"220.00\" r=\"5\"><title>sft/a 2026-11-01: 100.00 USD, eval_loss 2 (on the frontier)</title></circle>"));
  CHECK(has(h, "<circle class=\"run on\" cx=\"500.00\" cy=\"14.00\" r=\"5\">"));
  CHECK(has(h, "<polyline class=\"line\" points=\"177.50,220.00 "));
  CHECK(has(h, "<table id=\"families\"><caption>Experiment families (table)</caption>"));
  CHECK(has(h, "<td>&lt;b&gt;sft&lt;/b&gt;</td><td>eval_loss (lower)</td><td class=\"n\">3</td>"));
  CHECK(h.compare(h.size() - 18, 18, "</table></section>") == 0);
}

TEST_CASE("the families reach the dashboard's JSON and HTML only when there are some", "[render][experiments]") {
  SpendReport r = with_family("sft");
  r.period = "2026-12";
  const nlohmann::json j = spend_report_json(r);
  CHECK(j["families"].size() == 1);
  CHECK(j.contains("decision_rule"));
  CHECK(has(spend_report_html(r), "<table id=\"families\">"));
  r.families.clear();
  CHECK_FALSE(spend_report_json(r).contains("decision_rule"));
  CHECK_FALSE(has(spend_report_html(r), "<table id=\"families\">"));
}
