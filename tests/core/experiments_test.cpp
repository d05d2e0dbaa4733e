// Experiments as decisions: the frontier, improvements and continue / change / stop, against
// cases worked by hand in the comments.
#include <catch2/catch.hpp>

#include "gpuplan/experiments.hpp"

using namespace gpuplan;

namespace {

MetricSeries series(std::vector<std::pair<double, double>> cost_value, bool higher = false) {
  MetricSeries s;
  s.metric = "eval_loss";
  s.higher_is_better = higher;
  int i = 0;
  for (const auto& [c, v] : cost_value) {
    MetricRun r;
    r.experiment = "run" + std::to_string(++i);
    r.date = "2026-12-01";
    r.cost = c;
    r.value = v;
    s.runs.push_back(r);
  }
  return s;
}

LedgerRecord rec(const std::string& date, const std::string& experiment, double cost, std::vector<RunMetric> metrics = {}) {
  LedgerRecord r;
  r.date = date;
  r.experiment = experiment;
  r.cost = cost;
  r.currency = "USD";
  r.metrics = std::move(metrics);
  return r;
}

}  // namespace

TEST_CASE("a family is its family field, else the name up to the last slash", "[experiments]") {
  LedgerRecord r = rec("2026-12-01", "sft/lr-3e-4/seed1", 1);
  CHECK(family_of(r) == "sft/lr-3e-4");
  r.experiment = "plain-name";
  CHECK(family_of(r) == "plain-name");
  r.experiment = "/leading";
  CHECK(family_of(r) == "/leading");
  r.family = "chosen";
  CHECK(family_of(r) == "chosen");
}

TEST_CASE("improving cheaply: every run on the frontier, each gain no dearer per unit", "[experiments]") {
  // Loss 2.0 (10), 1.8 (10), 1.6 (12): gains 0.2 for 10 (50/unit) then 0.2 for 12 (60/unit).
  // 60/50 = 1.2x, within 2x: continue.
  MetricSeries s = series({{10, 2.0}, {10, 1.8}, {12, 1.6}});
  decide_series(s, {});
  REQUIRE(s.improvements.size() == 2);
  CHECK(s.improvements[1].gain == Approx(0.2));
  CHECK(s.improvements[1].cost_per_gain() == Approx(60));
  CHECK(*s.cost_per_gain_ratio == Approx(1.2));
  CHECK(s.decision == Decision::continue_);
  CHECK(s.basis == DecisionBasis::cheap_improvement);
  // Run 1 (10, 2.0) is dominated by run 2 (10, 1.8): same cost, better loss.
  CHECK(s.wasted == std::vector<std::size_t>{0});
  CHECK(s.runs[0].dominated_by == std::size_t{1});
  CHECK(s.frontier == std::vector<std::size_t>{1, 2});
}

TEST_CASE("flattening: the last gain cost far more per unit than the one before", "[experiments]") {
  // Accuracy 0.60 (10), 0.70 (10), 0.72 (40), 0.73 (80): gains 0.10 for 10 (100/unit), 0.02 for
  // 40 (2000/unit), 0.01 for 80 (8000/unit): 8000/2000 = 4x > 2x: change method.
  MetricSeries s = series({{10, 0.60}, {10, 0.70}, {40, 0.72}, {80, 0.73}}, true);
  decide_series(s, {});
  REQUIRE(s.improvements.size() == 3);
  CHECK(s.improvements.back().cost_per_gain() == Approx(8000));
  CHECK(*s.cost_per_gain_ratio == Approx(4));
  CHECK(s.decision == Decision::change_method);
  CHECK(s.basis == DecisionBasis::flattened);
  // The same series under a looser rule continues: the threshold is the rule's, not a constant.
  DecisionRule loose;
  loose.change_ratio = 5;
  decide_series(s, loose);
  CHECK(s.decision == Decision::continue_);
}

TEST_CASE("no frontier run in the last N: stop, with what was spent since", "[experiments]") {
  // Loss 1.5 for 20, then three dearer runs that do worse: all dominated by run 1.
  MetricSeries s = series({{30, 1.9}, {20, 1.5}, {25, 1.7}, {40, 1.6}, {22, 1.55}});
  decide_series(s, {});
  CHECK(s.runs_since_frontier == 3);
  CHECK(s.cost_since_frontier == Approx(25 + 40 + 22));
  CHECK(s.wasted.size() == 4);
  CHECK(s.wasted_cost == Approx(30 + 25 + 40 + 22));
  CHECK(s.decision == Decision::stop);
  CHECK(s.basis == DecisionBasis::no_recent_frontier);
  DecisionRule patient;
  patient.stop_after_runs = 4;
  decide_series(s, patient);
  CHECK(s.decision == Decision::continue_);  // one improvement (run 2), nothing to compare it with
  CHECK(s.basis == DecisionBasis::cheap_improvement);
}

TEST_CASE("the cost of an improvement counts every run since the previous best", "[experiments]") {
  // 2.0 (10); 2.1 (5) no gain; 2.2 (7) no gain; 1.9 (8): gain 0.1 for 5 + 7 + 8 = 20 over 3 runs.
  MetricSeries s = series({{10, 2.0}, {5, 2.1}, {7, 2.2}, {8, 1.9}});
  decide_series(s, {});
  REQUIRE(s.improvements.size() == 1);
  CHECK(s.improvements[0].cost == Approx(20));
  CHECK(s.improvements[0].runs == 3);
  CHECK(s.improvements[0].cost_per_run() == Approx(20.0 / 3));
  CHECK(s.improvements[0].run == 3);
  // Runs 2 and 3 are cheaper than anything better: on the frontier, though worse.
  CHECK(s.runs[1].on_frontier);
  CHECK(!s.runs[2].on_frontier);
}

TEST_CASE("one run, or no improvement yet, continues on the baseline", "[experiments]") {
  MetricSeries one = series({{10, 2.0}});
  decide_series(one, {});
  CHECK(one.decision == Decision::continue_);
  CHECK(one.basis == DecisionBasis::baseline_only);
  CHECK(one.frontier.size() == 1);
  MetricSeries flat = series({{10, 2.0}, {5, 2.0}});  // the cheaper equal run dominates the first
  decide_series(flat, {});
  CHECK(flat.improvements.empty());
  CHECK(flat.wasted == std::vector<std::size_t>{0});
  CHECK(flat.decision == Decision::continue_);
}

TEST_CASE("an improvement after a free one is an unbounded ratio: change method", "[experiments]") {
  MetricSeries s = series({{10, 2.0}, {0, 1.9}, {10, 1.8}});
  decide_series(s, {});
  REQUIRE(s.improvements.size() == 2);
  CHECK(!s.cost_per_gain_ratio);
  CHECK(s.decision == Decision::change_method);
}

TEST_CASE("families from the ledger: metrics per family, utilization median, unit costs", "[experiments]") {
  std::vector<LedgerRecord> ledger = {rec("2026-12-03", "vit/b", 30, {{"acc", 0.8, true}}), rec("2026-12-01", "vit/a", 10, {{"acc", 0.7, true}}),
                                      rec("2026-12-02", "plain", 5)};
  ledger[0].utilization = 0.5;
  ledger[1].utilization = 0.6;
  ledger[0].samples = 2e6;
  ledger[1].requests = 4000;
  const auto fams = experiment_outcomes(ledger, {});
  REQUIRE(fams.size() == 1);  // "plain" records no outcome
  const FamilyOutcome& f = fams[0];
  CHECK(f.family == "vit");
  CHECK(f.experiments == std::vector<std::string>{"vit/a", "vit/b"});  // by date, not ledger order
  CHECK(f.spent == Approx(40));
  CHECK(*f.cost_per_million_samples == Approx(20));     // 40 / 2M samples
  CHECK(*f.cost_per_thousand_requests == Approx(10));   // 40 / 4k requests
  CHECK(*f.utilization == Approx(0.55));
  CHECK(f.utilization_low);
  CHECK(f.idle_causes == std::vector<IdleCause>{IdleCause::image_input, IdleCause::micro_batch});
  REQUIRE(f.metrics.size() == 1);
  CHECK(f.metrics[0].runs[0].experiment == "vit/a");
  CHECK(f.metrics[0].improvements.size() == 1);
  DecisionRule lax;
  lax.min_utilization = 0.5;
  CHECK(!experiment_outcomes(ledger, lax)[0].utilization_low);
}
