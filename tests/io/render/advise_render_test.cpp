// advise's report on a fixed answer: an owned baseline with cloud bursts, the split, the
// buy-vs-rent numbers behind it (a BUY of two GPUs), the answers and where each came from.
#include <catch2/catch.hpp>

#include "io/render/advise_render.hpp"

using namespace gpuplan;
using namespace gpuplan::io;

namespace {

// Money as the CLI spells it without --grouping: Indian for INR, international otherwise.
const MoneyStyle automatic{DigitGrouping::automatic};

TcoAnalysis buy_two() {
  TcoAnalysis a;
  a.decision.verdict = Verdict::buy;
  a.decision.owned_gpus = 2;
  a.rent.total = 2920;
  a.buy.owned_gpus = 2;
  a.buy.total = 2000;
  a.choice = a.buy;
  a.break_even_gpu_hours = 900;
  a.payback_months = 2.5;
  return a;
}

Advice baseline_and_bursts() {
  Advice a;
  a.pattern = Pattern::owned_baseline_cloud_burst;
  PatternReason why;
  why.code = AdviceReason::owned_baseline;
  why.gpus = 2;
  why.verdict = Verdict::buy;
  a.reasons = {why};
  a.split = {{WorkloadClass::steady_baseline, 200.6, RunOn::owned, PlacementWhy::owned_busy, 2},
             {WorkloadClass::interruptible_bursts, 40.25, RunOn::spot, PlacementWhy::checkpointed}};
  AnswerChange team;
  team.code = AdviceChange::ops_team;
  team.gpus = 2;
  a.would_change = {team};
  a.idle_gpu_per_month = 750.4;
  a.uncertainty_rule = true;
  return a;
}

AdviseContext context(const TcoAnalysis* training, const TcoAnalysis* serving) {
  AdviseContext c;
  c.gpu = "h100";
  c.currency = "USD";
  c.answers = {{"utilization", "1. How busy are the GPUs?", AnswerOrigin::flag, "80%", "", 0}};
  c.training = training;
  c.serving = serving;
  return c;
}

}  // namespace

TEST_CASE("advise JSON: the pattern, the split, the answers and the numbers behind them", "[render][advise]") {
  const TcoAnalysis t = buy_two();
  const nlohmann::json j = advise_json(baseline_and_bursts(), context(&t, nullptr));
  CHECK(j["gpu"] == "h100");
  CHECK(j["currency"] == "USD");
  CHECK(j["reasons"] == nlohmann::json::array({"a predictable baseline: owning 2 GPUs is buy-vs-rent's cheapest option (BUY; the numbers below); spikes burst to the cloud (the owned-baseline-plus-burst pattern)"}));
  CHECK(j["split"][0] == nlohmann::json::parse(R"({"workload": "steady baseline", "gpu_hours_per_week": 200.6, "run_on": "owned",
      "why": "the owned GPUs buy-vs-rent chose (2), kept busy"})"));
  CHECK(j["would_change"] == nlohmann::json::array({"a team able to run Slurm or Kubernetes could own 2 GPUs"}));
  CHECK(j["answers"][0] == nlohmann::json::parse(R"({"key": "utilization", "question": "1. How busy are the GPUs?", "answer": "80%",
      "source": "flag"})"));
  CHECK(j["idle_gpu_per_month"] == 750.4);
  CHECK(j["rules"] == nlohmann::json::parse(R"({"uncertainty_30_50": true, "checkpoint_before_spot": false})"));
  CHECK(j["training"] == nlohmann::json::parse(R"({"verdict": "BUY", "owned_gpus": 2, "rent_per_month": 2920, "own_fleet_per_month": 2000,
      "chosen_per_month": 2000, "spot_per_month": null, "break_even_gpu_hours_per_month": 900, "payback_months": 2.5,
      "uncertainty_rule_applied": false})"));
  CHECK(j["serving"].is_null());
  CHECK(advise_json(baseline_and_bursts(), context(&t, &t))["serving"]["verdict"] == "BUY");
}

TEST_CASE("advise's split table: whole GPU-hours for people, two decimals in CSV", "[render][advise]") {
  const Table t = advise_split_table(baseline_and_bursts());
  CHECK(t.title == "Split per workload class");
  CHECK(t.rows == std::vector<std::vector<std::string>>{{"steady baseline", "201", "owned", "the owned GPUs buy-vs-rent chose (2), kept busy"},
                                                        {"interruptible bursts (experiments, sweeps, eval)", "40", "spot", "restartable from checkpoints: spot is safe (spot only for work that can restart)"}});
  CHECK(t.csv_columns == std::vector<std::string>{"workload", "gpu_hours_per_week", "run_on", "why"});
  CHECK(t.csv_rows[1] == std::vector<std::string>{"interruptible bursts (experiments, sweeps, eval)", "40.25", "spot", "restartable from checkpoints: spot is safe (spot only for work that can restart)"});
}

TEST_CASE("advise's tables: pattern, split, numbers, answers and what would change it", "[render][advise]") {
  const TcoAnalysis t = buy_two();
  const auto tables = advise_tables(baseline_and_bursts(), context(&t, nullptr), automatic);
  REQUIRE(tables.size() == 5);
  CHECK(tables[0].title == "Pattern: owned baseline + cloud burst");
  CHECK(tables[0].rows == std::vector<std::vector<std::string>>{{"a predictable baseline: owning 2 GPUs is buy-vs-rent's cheapest option (BUY; the numbers below); spikes burst to the cloud (the owned-baseline-plus-burst pattern)"}});
  const Table& n = tables[2];
  CHECK(n.title == "The buy-vs-rent numbers behind it (h100, per month)");
  CHECK(n.rows == std::vector<std::vector<std::string>>{{"training: buy-vs-rent verdict", "BUY (2 owned)"},
                                                        {"training: rent everything", "2,920 USD"},
                                                        {"training: own the fleet (2 GPUs)", "2,000 USD"},
                                                        {"training: the verdict's option", "2,000 USD"},
                                                        {"break-even (steady GPU-hours a week)", "207"},  // 900 x 168 / 730
                                                        {"payback", "2.5 months"},
                                                        {"6. cost of idle hardware: one owned GPU idle", "750 USD"}});
  CHECK(tables[3].title == "Answers");
  CHECK(tables[3].rows == std::vector<std::vector<std::string>>{{"1. How busy are the GPUs?", "80%", "flag"}});
  CHECK(tables[4].title == "What would change the answer");
  CHECK(tables[4].rows == std::vector<std::vector<std::string>>{{"a team able to run Slurm or Kubernetes could own 2 GPUs"}});
  const auto with_serving = advise_tables(baseline_and_bursts(), context(&t, &t), automatic);
  CHECK(with_serving[2].rows.back() == std::vector<std::string>{"serving: rent / own", "2,920 USD / 2,000 USD"});
  Advice settled = baseline_and_bursts();
  settled.would_change.clear();
  CHECK(advise_tables(settled, context(&t, nullptr), automatic).size() == 4);
}

namespace {

// Every origin once: as given (flag, file, prompt), converted (a month's hours a week), measured
// in a log, and computed (question 6).
AdviseContext every_origin(const TcoAnalysis* t, bool capped) {
  AdviseContext c = context(t, nullptr);
  c.currency = "INR";
  c.values.gpu_hours_per_week = 350.004;
  c.values.steady_share = 0.7142857;
  c.values.uncertainty = capped ? 1.0 : 0.2504;
  DemandUncertainty u;
  u.value = c.values.uncertainty;
  u.measured = capped ? 2.786 : 0.2504;
  u.weekly = !capped;
  u.periods = capped ? 12 : 4;
  c.demand = DemandFacts{2, u};
  c.answers = {{"gpu_hours_per_week", "1. GPU-hours a week?", AnswerOrigin::demand_hours, "", "jobs.csv", 0},
               {"steady_share", "2. Steady share?", AnswerOrigin::demand_steady, "", "jobs.csv", 0},
               {"uncertainty", "2. How far off?", AnswerOrigin::demand_spread, "", "jobs.csv", 0},
               {"interruptible", "3. Interruptible?", AnswerOrigin::answers_file, "60%", "answers.yaml", 5},
               {"checkpoints", "3. Checkpoints?", AnswerOrigin::prompt, "yes", "", 0},
               {"cost_of_idle", "6. Idle?", AnswerOrigin::computed_idle, "", "", 0}};
  return c;
}

std::vector<std::vector<std::string>> answer_rows(const AdviseContext& c, MoneyStyle style) {
  Advice a = baseline_and_bursts();
  a.idle_gpu_per_month = 123456.7;
  return advise_tables(a, c, style)[3].rows;
}

}  // namespace

TEST_CASE("advise's answers: derived numbers worded where they came from, money grouped for people only", "[render][advise]") {
  const TcoAnalysis t = buy_two();
  const AdviseContext c = every_origin(&t, false);
  CHECK(answer_rows(c, automatic) == std::vector<std::vector<std::string>>{
                                         {"1. GPU-hours a week?", "350.00", "demand jobs.csv"},
                                         {"2. Steady share?", "71.4%", "demand jobs.csv: GPU-hours under the p50 of GPUs busy (2)"},
                                         {"2. How far off?", "25.0%", "demand jobs.csv: coefficient of variation of 4 whole weeks' GPU-hours"},
                                         {"3. Interruptible?", "60%", "answers.yaml:5"},
                                         {"3. Checkpoints?", "yes", "prompt"},
                                         {"6. Idle?", "1,23,457 INR per owned GPU-month", "computed (buy-vs-rent terms)"}});
  CHECK(answer_rows(c, MoneyStyle{DigitGrouping::none}).back()[1] == "123457 INR per owned GPU-month");
  // JSON keeps the automatic grouping: --grouping is for tables.
  Advice a = baseline_and_bursts();
  a.idle_gpu_per_month = 123456.7;
  CHECK(advise_json(a, c)["answers"][5]["answer"] == "1,23,457 INR per owned GPU-month");
}

TEST_CASE("advise's answers: a month's hours a week, and a log's spread capped at 100 percent", "[render][advise]") {
  const TcoAnalysis t = buy_two();
  AdviseContext c = every_origin(&t, true);
  c.answers[0].origin = AnswerOrigin::per_month_flag;
  const auto rows = answer_rows(c, automatic);
  CHECK(rows[0] == std::vector<std::string>{"1. GPU-hours a week?", "350.004000", "flag --gpu-hours-per-month x 168/730"});
  CHECK(rows[2] == std::vector<std::string>{"2. How far off?", "100.0%",
                                            "demand jobs.csv: coefficient of variation of 12 days' GPU-hours (under 3 weeks of log); "
                                            "measured 278.6%, capped at 100% (the low end of demand is already zero)"});
}

TEST_CASE("advise's derived answers are rounded to what their rows show, so the rules see the shown number", "[render][advise]") {
  // A spread of 29.96% is shown as 30.0%: the 30-50% rule must see 30%, not 29.96%.
  CHECK(shown_answer(AnswerOrigin::demand_spread, 0.29996) == 0.3);
  CHECK(shown_answer(AnswerOrigin::demand_steady, 0.71428) == Approx(0.714).margin(1e-12));
  CHECK(shown_answer(AnswerOrigin::demand_hours, 350.004) == Approx(350.0).margin(1e-12));
  CHECK(shown_answer(AnswerOrigin::per_month_flag, 9.972601972602739) == Approx(9.972602).margin(1e-12));
  CHECK(shown_answer(AnswerOrigin::flag, 0.29996) == 0.29996);  // typed answers are used as typed
}

TEST_CASE("advise notes: the setup's, then the divisible-hours model without a job log", "[render][advise]") {
  const std::vector<SetupNote> none;
  const std::vector<SetupNote> spot = {SpotRateUnstated{}};
  const auto with = advise_notes(none, spot, true);
  REQUIRE(with.size() == 2);
  CHECK(with[0] == setup_note_text(SpotRateUnstated{}));
  CHECK(with[1].rfind("divisible-hours model: ", 0) == 0);
  CHECK(advise_notes(none, spot, false).size() == 1);
}
