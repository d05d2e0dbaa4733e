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
  c.answers = {{"utilization", "1. How busy are the GPUs?", "80%", "flag --utilization"}};
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
      "source": "flag --utilization"})"));
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
  CHECK(tables[3].rows == std::vector<std::vector<std::string>>{{"1. How busy are the GPUs?", "80%", "flag --utilization"}});
  CHECK(tables[4].title == "What would change the answer");
  CHECK(tables[4].rows == std::vector<std::vector<std::string>>{{"a team able to run Slurm or Kubernetes could own 2 GPUs"}});
  const auto with_serving = advise_tables(baseline_and_bursts(), context(&t, &t), automatic);
  CHECK(with_serving[2].rows.back() == std::vector<std::string>{"serving: rent / own", "2,920 USD / 2,000 USD"});
  Advice settled = baseline_and_bursts();
  settled.would_change.clear();
  CHECK(advise_tables(settled, context(&t, nullptr), automatic).size() == 4);
}
