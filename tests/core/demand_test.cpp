// Demand from a job history, against hand computations (tests/fixtures/jobs.csv is the same
// four jobs; tests/io/job_log_test.cpp reads them from sacct and CSV).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "gpuplan/demand.hpp"

using namespace gpuplan;

namespace {

constexpr double kH = 3600;
const double kMar2 = 20514 * 86400.0;  // 2026-03-02T00:00:00Z

Job job(const char* name, const char* user, const char* team, double submit_h, double start_h, double end_h, int gpus, JobState s) {
  Job j;
  j.name = name;
  j.user = user;
  j.team = team;
  j.submit = kMar2 + submit_h * kH;
  j.start = kMar2 + start_h * kH;
  j.end = kMar2 + end_h * kH;
  j.gpus = gpus;
  j.state = s;
  return j;
}

std::vector<Job> four_jobs() {
  return {job("train", "alice", "vision", -1, 0, 10, 4, JobState::completed), job("train", "bob", "nlp", 5, 5, 15, 2, JobState::failed),
          job("train", "bob", "nlp", 15.5, 16, 24, 2, JobState::completed), job("eval", "carol", "nlp", 22, 24, 48, 1, JobState::completed)};
}

}  // namespace

TEST_CASE("four jobs over two days: GPU-hours, concurrency, baseline, peak, variability", "[demand]") {
  const DemandSummary d = summarise_demand(four_jobs());
  // 4 x 10 + 2 x 10 + 2 x 8 + 1 x 24 = 100 GPU-hours over 48 h: 350 a week, 2.083 GPUs on average.
  CHECK(d.jobs == 4);
  CHECK(d.gpu_hours == Approx(100));
  CHECK(d.span_hours == Approx(48));
  CHECK(d.gpu_hours_per_week == Approx(350));
  CHECK(d.mean_gpus == Approx(100.0 / 48));
  // Busy: 4 (0-5 h), 6 (5-10), 2 (10-15), 0 (15-16), 2 (16-24), 1 (24-48); at 24 h one job ends
  // as another starts. Time at each level: 0 1 h, 1 24 h, 2 13 h, 4 5 h, 6 5 h.
  REQUIRE(d.steps.size() == 7);
  CHECK(d.steps[5].gpus == 1);
  CHECK(d.steps[5].t == kMar2 + 24 * kH);
  CHECK(d.peak_gpus == 6);
  CHECK(d.baseline_gpus == 1);  // half of 48 h is reached within level 1 (1 + 24 h)
  CHECK(d.p95_gpus == 6);       // 45.6 h is past 43 h (levels up to 4)
  CHECK(concurrency_quantile(d.steps, 0.75) == 2);  // 36 h: within 25..38 h
  // E[x^2] = (24 + 4 x 13 + 16 x 5 + 36 x 5) / 48 = 7; CV = sqrt(7 - (100/48)^2) / (100/48) = 0.7828.
  CHECK(d.variability == Approx(std::sqrt(7 - std::pow(100.0 / 48, 2)) / (100.0 / 48)));
  CHECK(d.variability == Approx(0.7828).margin(1e-4));
}

TEST_CASE("queue time, failures, retries and the split by team and user", "[demand]") {
  const DemandSummary d = summarise_demand(four_jobs());
  // Waits 1, 0, 0.5, 2 h: median 0.75, p95 0 + ... = 1 + 0.85 x (2 - 1) = 1.85, mean 0.875.
  REQUIRE(d.queue_p50_hours);
  CHECK(*d.queue_p50_hours == Approx(0.75));
  CHECK(*d.queue_p95_hours == Approx(1.85));
  CHECK(*d.queue_mean_hours == Approx(0.875));
  CHECK(d.finished_jobs == 4);
  CHECK(d.failed_jobs == 1);
  CHECK(d.failure_rate == Approx(0.25));
  CHECK(d.retry_rate == Approx(1.0));  // bob's failed "train" restarted an hour later
  REQUIRE(d.by_team.size() == 2);
  CHECK(d.by_team[0].key == "nlp");
  CHECK(d.by_team[0].gpu_hours == Approx(60));
  CHECK(d.by_team[0].share == Approx(0.6));
  CHECK(d.by_team[0].failed == 1);
  REQUIRE(d.by_user.size() == 3);
  CHECK(d.by_user[0].key == "alice");  // 40 > bob's 36 > carol's 24
  CHECK(d.by_user[1].gpu_hours == Approx(36));
  // Per UTC day: 40 + 20 + 16 on 2 March, 24 on the 3rd.
  CHECK(d.first_day == 20514);
  REQUIRE(d.daily_gpu_hours.size() == 2);
  CHECK(d.daily_gpu_hours[0] == Approx(76));
  CHECK(d.daily_gpu_hours[1] == Approx(24));
}

TEST_CASE("concurrency buckets: the mean and peak of GPUs busy per bucket", "[demand]") {
  const DemandSummary d = summarise_demand(four_jobs());
  const auto b = concurrency_buckets(d.steps, d.start, d.end, 86400);
  REQUIRE(b.size() == 2);
  CHECK(b[0].mean_gpus == Approx(76.0 / 24));
  CHECK(b[0].peak_gpus == 6);
  CHECK(b[1].mean_gpus == Approx(1));
  CHECK(b[1].peak_gpus == 1);
}

TEST_CASE("a failure not resubmitted is no retry, running jobs are not finished", "[demand]") {
  auto jobs = four_jobs();
  jobs[2].name = "other";
  jobs[3].state = JobState::running;
  const DemandSummary d = summarise_demand(jobs);
  CHECK(d.retry_rate == 0);
  CHECK(d.finished_jobs == 3);
  CHECK(d.failure_rate == Approx(1.0 / 3));
}

TEST_CASE("the indexed retry count equals the all-pairs definition on random logs", "[demand][retry]") {
  // The definition retry_share replaced: a failure is retried when another job of the same user
  // and name starts within a day after it ended.
  auto reference = [](const std::vector<Job>& jobs) {
    int failures = 0, retried = 0;
    for (const Job& f : jobs) {
      if (!failed(f.state)) continue;
      ++failures;
      retried += std::any_of(jobs.begin(), jobs.end(), [&](const Job& j) {
        return &j != &f && !f.name.empty() && j.user == f.user && j.name == f.name && j.start >= f.end && j.start <= f.end + 86400;
      });
    }
    return failures > 0 ? static_cast<double>(retried) / failures : 0.0;
  };
  std::mt19937 rng(31);
  std::uniform_int_distribution<int> small(0, 3), hour(0, 60), len(0, 30), state(0, 3);
  const char* names[] = {"", "train", "eval", "sweep"};
  const JobState states[] = {JobState::completed, JobState::failed, JobState::timeout, JobState::cancelled};
  for (int round = 0; round < 300; ++round) {
    std::vector<Job> jobs;
    for (int i = 0; i < 1 + round % 50; ++i) {
      const double start = hour(rng), end = start + (len(rng) < 5 ? 0 : len(rng));  // zero-length jobs too
      jobs.push_back(job(names[small(rng)], small(rng) < 2 ? "ann" : "bo", "t", start - 1, start, end, 1,
                         states[state(rng)]));
    }
    REQUIRE(summarise_demand(jobs).retry_rate == reference(jobs));
  }
}

TEST_CASE("sample_quantile by selection equals interpolation in the sorted sample", "[demand][quantile]") {
  // The definition: sort, then interpolate linearly between the order statistics around
  // q x (n - 1); an infinite value at the upper one makes the quantile infinite.
  auto reference = [](std::vector<double> v, double q) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    const double pos = q * static_cast<double>(v.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos)), hi = std::min(v.size() - 1, lo + 1);
    if (pos == static_cast<double>(lo)) return v[lo];
    return std::isinf(v[hi]) ? v[hi] : v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
  };
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> value(0, 12), kind(0, 9);
  for (int round = 0; round < 400; ++round) {
    std::vector<double> v;
    for (int i = 0; i < round % 40; ++i)  // repeated values and some infinities
      v.push_back(kind(rng) == 0 ? std::numeric_limits<double>::infinity() : value(rng) * 0.25);
    for (double q : {0.0, 0.05, 0.5, 0.95, 0.99, 1.0}) REQUIRE(sample_quantile(v, q) == reference(v, q));
  }
}
