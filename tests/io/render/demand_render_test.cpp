// demand's report on a fixed summary of three days of a sacct log: the summary and group tables
// (rounded as each says), the chart's partial buckets, and JSON's raw figures and nulls.
#include <catch2/catch.hpp>

#include "io/render/demand_render.hpp"

using namespace gpuplan;
using namespace gpuplan::io;

namespace {

constexpr long kMarch1 = 20513;  // 2026-03-01, days since 1970-01-01 (56 x 365 + 14 leap days + 59)
constexpr double kDay = 86400;

JobLog sacct() {
  JobLog log;
  log.format = "sacct";
  log.steps_skipped = 3;
  log.pending_skipped = 1;
  return log;
}

DemandSummary three_days() {
  DemandSummary d;
  d.start = kMarch1 * kDay + 3600;       // 01:00 on the first day
  d.end = (kMarch1 + 2) * kDay + 7200;   // 02:00 on the third
  d.jobs = 3;
  d.gpu_hours = 48.26;
  d.gpu_hours_per_week = 112.04;
  d.gpu_hours_per_month = 486.67;
  d.months = 0.0671;
  d.span_hours = 49;
  d.mean_gpus = 0.6667;
  d.baseline_gpus = 0;
  d.p95_gpus = 4;
  d.peak_gpus = 8;
  d.variability = 1.234;
  d.queue_p50_hours = 0.5;
  d.queue_p95_hours = 2.25;
  d.queue_mean_hours = 1;
  d.finished_jobs = 3;
  d.failed_jobs = 1;
  d.failure_rate = 1.0 / 3;
  d.retry_rate = 1;
  d.by_team = {{"nlp", 2, 1, 40, 0.8333}, {"cv", 1, 0, 8.26, 0.1711}};
  d.by_user = {{"ann", 3, 1, 48.26, 1}};
  d.first_day = kMarch1;
  d.daily_gpu_hours = {10, 30.2604, 8};
  return d;
}

std::string blocks(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += "█";
  return s;
}

}  // namespace

TEST_CASE("civil dates from days since 1970", "[render][demand]") {
  CHECK(civil_date(0) == "1970-01-01");
  CHECK(civil_date(kMarch1) == "2026-03-01");
  CHECK(civil_date(11016) == "2000-02-29");
  CHECK(civil_date(-1) == "1969-12-31");
}

TEST_CASE("the demand summary table rounds as people read it", "[render][demand]") {
  const auto tables = demand_tables(sacct(), three_days(), {}, kDay, 1);
  REQUIRE(tables.size() == 5);
  const Table& s = tables[0];
  CHECK(s.title == "Demand from sacct (3 GPU jobs, 2026-03-01 to 2026-03-03)");
  CHECK(s.rows == std::vector<std::vector<std::string>>{
                      {"GPU-hours", "48.3"},
                      {"GPU-hours per week", "112.0"},
                      {"GPU-hours per month (730 h)", "486.7"},
                      {"mean GPUs busy", "0.67"},
                      {"baseline (p50 of GPUs busy)", "0"},
                      {"p95 GPUs busy", "4"},
                      {"peak GPUs busy", "8"},
                      {"variability (CV of GPUs busy)", "1.23 (bursty)"},
                      {"queue time p50 / p95", "0.50 h / 2.25 h"},
                      {"failure rate", "33.3% (1 of 3 finished)"},
                      {"failures retried", "100.0%"}});
  DemandSummary steady = three_days();
  steady.variability = 0.5;
  steady.queue_p50_hours.reset();
  const Table q = demand_tables(sacct(), steady, {}, kDay, 1)[0];
  CHECK(q.rows[7][1] == "0.50 (steady)");
  CHECK(q.rows[8][1] == "- (no submit times)");
}

TEST_CASE("group tables keep the top N with shares and bars", "[render][demand]") {
  const auto tables = demand_tables(sacct(), three_days(), {}, kDay, 1);
  const Table& team = tables[2];
  CHECK(team.title == "By team (account)");
  REQUIRE(team.rows.size() == 1);  // top 1 of 2
  CHECK(team.rows[0] == std::vector<std::string>{"nlp", "2", "1", "40.0", "83.3%", blocks(16) + "▋"});  // 0.8333 x 20 x 8 = 133 eighths
  CHECK(tables[3].title == "By user");
  CHECK(tables[4].rows.empty());  // no partitions
}

TEST_CASE("the chart marks buckets the log covers only in part", "[render][demand]") {
  const std::vector<ConcurrencyBucket> chart = {{kMarch1 * kDay, 2, 8}, {(kMarch1 + 1) * kDay, 4, 8}, {(kMarch1 + 2) * kDay, 1, 2}};
  const Table c = demand_tables(sacct(), three_days(), chart, kDay, 5)[1];
  CHECK(c.title == "GPUs busy per day (bar: mean against the peak of 8)");
  REQUIRE(c.rows.size() == 3);
  CHECK(c.rows[0] == std::vector<std::string>{"2026-03-01 (partial)", "2.0", "8", blocks(7) + "▌"});  // 2/8 x 30 = 7.5 blocks
  CHECK(c.rows[1] == std::vector<std::string>{"2026-03-02", "4.0", "8", blocks(15)});
  CHECK(c.rows[2][0] == "2026-03-03 (partial)");
  const std::vector<ConcurrencyBucket> hourly = {{kMarch1 * kDay + 5 * 3600, 1, 1}};
  CHECK(demand_tables(sacct(), three_days(), hourly, 3600, 5)[1].rows[0][0] == "2026-03-01 05:00");  // within the log
  CHECK(demand_tables(sacct(), three_days(), hourly, 6 * 3600, 5)[1].title.rfind("GPUs busy per 6 hours ", 0) == 0);
  CHECK(demand_tables(sacct(), three_days(), hourly, 7 * kDay, 5)[1].title.rfind("GPUs busy per week ", 0) == 0);
}

TEST_CASE("demand JSON: raw figures, null queue times without submit times, days and buckets", "[render][demand]") {
  const std::vector<ConcurrencyBucket> chart = {{kMarch1 * kDay + 3600, 2.5, 8}};
  nlohmann::json j = demand_json(sacct(), three_days(), chart);
  CHECK(j["format"] == "sacct");
  CHECK(j["jobs"] == 3);
  CHECK(j["steps_skipped"] == 3);
  CHECK(j["pending_skipped"] == 1);
  CHECK(j["gpu_hours"] == 48.26);  // not rounded
  CHECK(j["gpu_hours_per_month"] == 486.67);
  CHECK(j["queue_p95_hours"] == 2.25);
  CHECK(j["failure_rate"] == 1.0 / 3);
  CHECK(j["by_team"][0] == nlohmann::json::parse(R"({"key": "nlp", "jobs": 2, "failed_jobs": 1, "gpu_hours": 40, "share": 0.8333})"));
  CHECK(j["by_partition"] == nlohmann::json::array());
  CHECK(j["daily"][1] == nlohmann::json::parse(R"({"day": "2026-03-02", "gpu_hours": 30.2604})"));
  CHECK(j["concurrency"][0] == nlohmann::json::parse(R"({"start": "2026-03-01 01:00", "mean_gpus": 2.5, "peak_gpus": 8})"));
  DemandSummary none = three_days();
  none.queue_p50_hours.reset();
  none.queue_p95_hours.reset();
  none.queue_mean_hours.reset();
  j = demand_json(sacct(), none, {});
  CHECK(j["queue_p50_hours"].is_null());
  CHECK(j["queue_mean_hours"].is_null());
  CHECK(j["concurrency"] == nlohmann::json::array());
}

TEST_CASE("the daily CSV table has three decimals and no grouping", "[render][demand]") {
  const Table t = demand_daily_table(three_days());
  CHECK(t.columns == std::vector<std::string>{"day", "gpu_hours"});
  CHECK(t.rows == std::vector<std::vector<std::string>>{{"2026-03-01", "10.000"}, {"2026-03-02", "30.260"}, {"2026-03-03", "8.000"}});
}

TEST_CASE("demand notes: lines left out, running jobs cut at the log's end, the baseline's percentile", "[render][demand]") {
  JobLog log = sacct();
  log.running = 2;
  log.cutoff = (kMarch1 + 2) * kDay + 7200;
  DemandSummary d = three_days();
  d.baseline_quantile = 0.3;
  CHECK(demand_notes(log, d, "jobs.txt") ==
        std::vector<std::string>{"3 job step line(s) and 1 job(s) that never started are left out (the allocation line carries a job's GPUs)",
                                 "2 running job(s) (End Unknown) are counted up to the log's last time, 2026-03-03",
                                 "times are read as UTC; the baseline is the GPUs busy at least 70% of the time: what an owned fleet of "
                                 "that size keeps busy (buy-vs-rent --demand jobs.txt prices it)"});
  CHECK(demand_notes(JobLog{}, d, "jobs.txt").size() == 1);
}
