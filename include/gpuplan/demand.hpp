#pragma once
// Measured demand from a scheduler's job history (seed 001: "measure demand first"): GPU-hours
// per week, GPUs busy over time (a sweep line over job starts and ends), the baseline a fleet
// would keep busy (a time-weighted percentile of concurrent GPUs), peak, variability, queue
// time, failure and retry rates, and the same split by user, team and partition. Pure: times
// are seconds since 1970-01-01 UTC, read in src/io/job_log.cpp.
#include <optional>
#include <string>
#include <vector>

namespace gpuplan {

enum class JobState { completed, failed, cancelled, timeout, out_of_memory, node_fail, preempted, running, other };
const char* to_string(JobState s);
// The job ended because something went wrong (not cancelled by a person, not finished).
bool failed(JobState s);

struct Job {
  std::string id, name, user, team, partition;
  std::optional<double> submit;  // seconds; absent when the log has none
  double start = 0, end = 0;     // seconds; a running job ends at the log's cut-off
  int gpus = 0;
  JobState state = JobState::completed;
};

// GPUs busy from `t` until the next step's t (the last step is back to zero, or the cut-off).
struct ConcurrencyStep {
  double t = 0;
  int gpus = 0;
};
std::vector<ConcurrencyStep> concurrency(const std::vector<Job>& jobs);

// The q-quantile of a sample, linear between order statistics (queue-time percentiles here and in
// the fleet replay); 0 for an empty sample.
double sample_quantile(std::vector<double> v, double q);

// The time-weighted q-quantile of concurrent GPUs over [steps.front().t, steps.back().t].
double concurrency_quantile(const std::vector<ConcurrencyStep>& steps, double q);

struct GroupDemand {
  std::string key;
  int jobs = 0;
  int failed = 0;
  double gpu_hours = 0;
  double share = 0;  // of all GPU-hours
};

struct DemandSummary {
  double start = 0, end = 0;       // first start .. last end
  double span_hours = 0;
  int jobs = 0;                    // GPU jobs counted
  double gpu_hours = 0;
  double gpu_hours_per_week = 0;
  // The log's length in 730-hour months (span_hours / kHoursPerMonth) and its GPU-hours per such
  // month: the one "per month" demand, replay, buy-vs-rent and advise report for a log.
  double months = 0;
  double gpu_hours_per_month = 0;
  double mean_gpus = 0;            // gpu_hours / span
  double baseline_gpus = 0;        // concurrency at baseline_quantile (time-weighted)
  double baseline_quantile = 0.5;
  double p95_gpus = 0;
  int peak_gpus = 0;
  double variability = 0;          // coefficient of variation of concurrent GPUs over time
  std::optional<double> queue_p50_hours, queue_p95_hours, queue_mean_hours;  // submit -> start
  int finished_jobs = 0;           // not running
  int failed_jobs = 0;
  double failure_rate = 0;         // failed / finished
  // Share of failed jobs the same user resubmitted under the same name (a retry), starting
  // after the failure within a day.
  double retry_rate = 0;
  std::vector<GroupDemand> by_user, by_team, by_partition;  // most GPU-hours first
  long first_day = 0;              // days since 1970-01-01 of daily_gpu_hours[0]
  std::vector<double> daily_gpu_hours;  // per UTC day, first to last day touched
  std::vector<ConcurrencyStep> steps;
};
DemandSummary summarise_demand(const std::vector<Job>& jobs, double baseline_quantile = 0.5);

// Concurrency over consecutive buckets of `seconds` from `from`: the time-weighted mean and the
// peak of GPUs busy in each (the terminal chart of `gpuplan demand`).
struct ConcurrencyBucket {
  double start = 0;
  double mean_gpus = 0;
  int peak_gpus = 0;
};
// Where the bucket of `seconds` holding time t starts: a week (or whole weeks) on a Monday
// 00:00 UTC, as ISO 8601 weeks do; shorter buckets on multiples of their length from midnight UTC.
double bucket_start(double t, double seconds);
std::vector<ConcurrencyBucket> concurrency_buckets(const std::vector<ConcurrencyStep>& steps, double from, double to,
                                                   double seconds);

}  // namespace gpuplan
