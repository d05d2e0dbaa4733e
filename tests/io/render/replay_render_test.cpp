// replay's sweep on three fixed fleets (rent all, own 8 and burst after 2 h, own 8 and never
// burst): the table's marks and rounding, raw CSV, JSON with null for infinite queues, and the
// per-team table of the cheapest fleet.
#include <catch2/catch.hpp>

#include <limits>

#include "io/render/replay_render.hpp"

using namespace gpuplan;
using namespace gpuplan::io;

namespace {

// Money as the CLI spells it without --grouping: Indian for INR, international otherwise.
const MoneyStyle automatic{DigitGrouping::automatic};

constexpr double kInf = std::numeric_limits<double>::infinity();

FleetOption fleet(int owned, std::optional<double> burst_after) {
  FleetOption o;
  o.policy.owned_gpus = owned;
  o.policy.burst_after = burst_after;
  o.replay.window_start = 0;
  o.replay.window_end = 720 * 3600.0;
  o.replay.all.jobs = 10;
  o.month.months = 1;
  o.meets_target = true;
  return o;
}

FleetSweep three_fleets() {
  FleetOption rent = fleet(0, 0.0);
  rent.replay.all.burst = 10;
  rent.replay.on_demand_gpu_hours = 1000;
  rent.month.on_demand = rent.month.total = 5000;
  rent.month.on_demand_offer = 0;

  FleetOption hybrid = fleet(8, 7200.0);
  hybrid.replay.all = {"", 10, 2, 0, 0.25, 1.5, 3};
  hybrid.replay.teams = {{"nlp", 6, 1, 0, 0.1, 1.2, 2}, {"cv", 4, 1, 0, 0.5, 1.6, 3}};
  hybrid.replay.utilisation = 0.625;
  hybrid.replay.owned_busy_gpu_hours = 3600;
  hybrid.month.owned.total = 3000;
  hybrid.month.owned.capital = 2000;
  hybrid.month.owned.running = 1000;
  hybrid.month.spot = 200;
  hybrid.month.on_demand = 300;
  hybrid.month.total = 3500;
  hybrid.month.on_demand_offer = 0;
  hybrid.month.spot_offer = 0;

  FleetOption never = fleet(8, std::nullopt);
  never.replay.all = {"", 10, 0, 1, 0.5, kInf, kInf};
  never.replay.utilisation = 0.7;
  never.month.owned.total = never.month.total = 3000;
  never.meets_target = false;

  FleetSweep s;
  s.options = {rent, hybrid, never};
  s.cheapest = 1;
  return s;
}

ReplayContext context() {
  ReplayContext c;
  c.file = "jobs.csv";
  c.log_format = "csv";
  c.gpu = "h100";
  c.currency = "USD";
  c.max_p95_queue_hours = 2;
  c.jobs = 10;
  c.on_demand_offers = {"lambda/gpu_1x_h100 (us-east-1)"};
  c.spot_offers = {"runpod/h100 (eu)"};
  return c;
}

}  // namespace

TEST_CASE("burst waits in words", "[render][replay]") {
  CHECK(burst_text(std::nullopt) == "never");
  CHECK(burst_text(0.0) == "0s");
  CHECK(burst_text(1800.0) == "30m");
  CHECK(burst_text(7200.0) == "2h");
  CHECK(burst_text(5400.0) == "1.50h");
}

TEST_CASE("the replay table marks the cheapest fleet, where it bursts and what misses the target", "[render][replay]") {
  const auto tables = replay_tables(three_fleets(), context(), automatic);
  REQUIRE(tables.size() == 2);
  const Table& t = tables[0];
  CHECK(t.title == "Fleet replay of 10 jobs on h100 (target: p95 queue <= 2.00 h; money per month)");
  REQUIRE(t.rows.size() == 3);
  CHECK(t.rows[0] == std::vector<std::string>{"0", "0s", "0.00 h", "0.00 h", "10", "0.0%", "0 USD", "0 USD", "5,000 USD", "5,000 USD", ""});
  CHECK(t.rows[1] == std::vector<std::string>{"8", "2h", "0.25 h", "1.50 h", "2", "62.5%", "3,000 USD", "200 USD", "300 USD", "3,500 USD",
                                              "<- cheapest: HYBRID, bursts on lambda/gpu_1x_h100 (us-east-1) and runpod/h100 (eu) spot"});
  CHECK(t.rows[2] == std::vector<std::string>{"8", "never", "0.50 h", "never runs", "0", "70.0%", "3,000 USD", "0 USD", "0 USD", "3,000 USD",
                                              "misses target (1 job(s) never fit)"});
  CHECK(t.csv_rows[1] == std::vector<std::string>{"8", "7200", "0.2500", "1.5000", "2", "0.6250", "3000.00", "200.00", "300.00", "3500.00", "true"});
  CHECK(t.csv_rows[2] == std::vector<std::string>{"8", "", "0.5000", "", "0", "0.7000", "3000.00", "0.00", "0.00", "3000.00", "false"});

  const Table& teams = tables[1];
  CHECK(teams.title == "Queue by team on the cheapest fleet (8 owned, burst after 2h)");
  CHECK(teams.rows == std::vector<std::vector<std::string>>{{"nlp", "6", "1", "0.10 h", "1.20 h", "2.00 h"},
                                                            {"cv", "4", "1", "0.50 h", "1.60 h", "3.00 h"}});
}

TEST_CASE("replay JSON: raw money per month, null for a queue that never ends", "[render][replay]") {
  const nlohmann::json j = replay_json(three_fleets(), context());
  CHECK(j["file"] == "jobs.csv");
  CHECK(j["log_format"] == "csv");
  CHECK(j["jobs"] == 10);
  CHECK(j["max_p95_queue_hours"] == 2);
  REQUIRE(j["options"].size() == 3);
  const auto& h = j["options"][1];
  CHECK(j["cheapest"] == h);
  CHECK(h["owned_gpus"] == 8);
  CHECK(h["verdict"] == "HYBRID");
  CHECK(h["burst_on_demand_offer"] == "lambda/gpu_1x_h100 (us-east-1)");
  CHECK(h["burst_spot_offer"] == "runpod/h100 (eu)");
  CHECK(h["burst_after_seconds"] == 7200);
  CHECK(h["queue"] == nlohmann::json::parse(R"({"jobs": 10, "burst_jobs": 2, "unserved_jobs": 0, "queue_p50_hours": 0.25,
      "queue_p95_hours": 1.5, "queue_max_hours": 3})"));  // no "team" for all jobs
  CHECK(h["teams"][0]["team"] == "nlp");
  CHECK(h["owned_utilization"] == 0.625);
  CHECK(h["window_hours"] == 720);
  CHECK(h["per_month"] == nlohmann::json::parse(R"({"months_replayed": 1, "owned": 3000, "owned_capital": 2000, "owned_running": 1000,
      "spot": 200, "on_demand": 300, "spot_billed_gpu_hours": 0, "on_demand_billed_gpu_hours": 0, "total": 3500})"));
  const auto& rent = j["options"][0];
  CHECK(rent["verdict"] == "RENT");
  CHECK(rent["burst_spot_offer"].is_null());
  CHECK(rent["burst_after_seconds"] == 0);
  const auto& never = j["options"][2];
  CHECK(never["verdict"] == "BUY");
  CHECK(never["burst_after_seconds"].is_null());
  CHECK(never["queue"]["queue_p95_hours"].is_null());
  CHECK(never["queue"]["queue_p50_hours"] == 0.5);
  CHECK(never["meets_target"] == false);
}

TEST_CASE("with no fleet meeting the target there is no cheapest and no team table", "[render][replay]") {
  FleetSweep s = three_fleets();
  s.cheapest = -1;
  CHECK(replay_json(s, context())["cheapest"].is_null());
  const auto tables = replay_tables(s, context(), automatic);
  REQUIRE(tables.size() == 1);
  CHECK(tables[0].rows[1].back().empty());  // meets the target, not marked cheapest
  CHECK(replay_json(FleetSweep{}, context())["options"] == nlohmann::json::array());
}
