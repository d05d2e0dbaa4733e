#include "gpuplan/demand.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <map>
#include <unordered_map>
#include <utility>

#include "gpuplan/units.hpp"

namespace gpuplan {

namespace {

constexpr double kHour = 3600, kDay = 86400, kWeek = 7 * kDay;

std::vector<GroupDemand> by_key(const std::vector<Job>& jobs, const std::string Job::*key, double total) {
  std::map<std::string, GroupDemand> m;
  for (const Job& j : jobs) {
    GroupDemand& g = m[(j.*key).empty() ? "(none)" : j.*key];
    g.key = (j.*key).empty() ? "(none)" : j.*key;
    ++g.jobs;
    g.failed += failed(j.state);
    g.gpu_hours += j.gpus * (j.end - j.start) / kHour;
  }
  std::vector<GroupDemand> out;
  for (auto& [k, g] : m) {
    g.share = total > 0 ? g.gpu_hours / total : 0;
    out.push_back(g);
  }
  std::stable_sort(out.begin(), out.end(), [](const GroupDemand& a, const GroupDemand& b) { return a.gpu_hours > b.gpu_hours; });
  return out;
}

// A failure is retried when the same user starts a job of the same name after it ended, within a
// day. Jobs are grouped by (user, name) with their starts sorted, so each failure is two binary
// searches; a failure does not retry itself (a zero-length job starts when it ends).
double retry_share(const std::vector<Job>& jobs) {
  struct Start {
    double t;
    std::size_t job;
    bool operator<(const Start& o) const { return t < o.t || (t == o.t && job < o.job); }
  };
  std::unordered_map<std::string, std::size_t> slot;  // user '\0' name -> index in `starts`
  std::vector<std::vector<Start>> starts;
  std::vector<std::size_t> job_slot(jobs.size(), SIZE_MAX);
  std::string key;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (jobs[i].name.empty()) continue;  // an unnamed job neither retries nor is retried
    key.assign(jobs[i].user).push_back('\0');
    key += jobs[i].name;
    const auto [it, added] = slot.try_emplace(key, starts.size());
    if (added) starts.emplace_back();
    starts[it->second].push_back({jobs[i].start, i});
    job_slot[i] = it->second;
  }
  for (auto& s : starts) std::sort(s.begin(), s.end());
  int failures = 0, retried = 0;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const Job& f = jobs[i];
    if (!failed(f.state)) continue;
    ++failures;
    if (f.name.empty() || std::isnan(f.end)) continue;
    const auto& s = starts[job_slot[i]];
    const auto lo = std::lower_bound(s.begin(), s.end(), f.end, [](const Start& a, double t) { return a.t < t; });
    const auto hi = std::upper_bound(lo, s.end(), f.end + kDay, [](double t, const Start& a) { return t < a.t; });
    const bool self = f.start >= f.end && f.start <= f.end + kDay;
    retried += (hi - lo) > (self ? 1 : 0);
  }
  return failures > 0 ? static_cast<double>(retried) / failures : 0;
}

// GPU-hours per UTC day, splitting each job at midnights.
std::vector<double> daily(const std::vector<Job>& jobs, long first_day, long last_day) {
  std::vector<double> out(static_cast<std::size_t>(last_day - first_day + 1), 0.0);
  for (const Job& j : jobs)
    for (long d = static_cast<long>(std::floor(j.start / kDay)); d * kDay < j.end; ++d) {
      const double a = std::max(j.start, d * kDay), b = std::min(j.end, (d + 1) * kDay);
      out[static_cast<std::size_t>(d - first_day)] += j.gpus * (b - a) / kHour;
    }
  return out;
}

// Time-weighted mean and standard deviation of concurrent GPUs over the steps' span.
std::pair<double, double> concurrency_moments(const std::vector<ConcurrencyStep>& s) {
  double span = 0, sum = 0, sq = 0;
  for (std::size_t i = 0; i + 1 < s.size(); ++i) {
    const double dt = s[i + 1].t - s[i].t;
    span += dt;
    sum += s[i].gpus * dt;
    sq += static_cast<double>(s[i].gpus) * s[i].gpus * dt;
  }
  if (span <= 0) return {0, 0};
  const double mean = sum / span;
  return {mean, std::sqrt(std::max(0.0, sq / span - mean * mean))};
}

}  // namespace

const char* to_string(JobState s) {
  switch (s) {
    case JobState::completed: return "COMPLETED";
    case JobState::failed: return "FAILED";
    case JobState::cancelled: return "CANCELLED";
    case JobState::timeout: return "TIMEOUT";
    case JobState::out_of_memory: return "OUT_OF_MEMORY";
    case JobState::node_fail: return "NODE_FAIL";
    case JobState::preempted: return "PREEMPTED";
    case JobState::running: return "RUNNING";
    case JobState::other: return "OTHER";
  }
  return "OTHER";
}

bool failed(JobState s) {
  return s == JobState::failed || s == JobState::timeout || s == JobState::out_of_memory || s == JobState::node_fail;
}

std::vector<ConcurrencyStep> concurrency(const std::vector<Job>& jobs) {
  std::vector<std::pair<double, int>> events;
  for (const Job& j : jobs)
    if (j.gpus > 0 && j.end > j.start) events.push_back({j.start, j.gpus}), events.push_back({j.end, -j.gpus});
  std::sort(events.begin(), events.end());
  std::vector<ConcurrencyStep> out;
  int level = 0;
  for (std::size_t i = 0; i < events.size();) {
    const double t = events[i].first;
    for (; i < events.size() && events[i].first == t; ++i) level += events[i].second;  // ends and starts at one instant net out
    if (out.empty() || out.back().gpus != level) out.push_back({t, level});
  }
  return out;
}

double sample_quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  const double pos = std::clamp(q, 0.0, 1.0) * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  // The lo-th and (lo+1)-th order statistics by selection, not a full sort: a replay sweep takes
  // two quantiles per team for each of hundreds of fleets.
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(lo), v.end());
  const double a = v[lo];
  if (pos == static_cast<double>(lo)) return a;
  const double b = *std::min_element(v.begin() + static_cast<std::ptrdiff_t>(lo) + 1, v.end());
  // An infinite wait (a job that never runs) makes every quantile it touches infinite.
  return std::isinf(b) ? b : a + (b - a) * (pos - static_cast<double>(lo));
}

namespace {

// The steps as (level, time at it), sorted, and their total time: what every quantile reads.
struct LevelSpans {
  std::vector<std::pair<int, double>> spans;
  double total = 0;
};

LevelSpans level_spans(const std::vector<ConcurrencyStep>& s) {
  LevelSpans l;
  l.spans.reserve(s.size());
  for (std::size_t i = 0; i + 1 < s.size(); ++i) {
    l.spans.push_back({s[i].gpus, s[i + 1].t - s[i].t});
    l.total += s[i + 1].t - s[i].t;
  }
  if (l.total > 0) std::sort(l.spans.begin(), l.spans.end());
  return l;
}

double quantile_of(const LevelSpans& l, const std::vector<ConcurrencyStep>& s, double q) {
  if (l.total <= 0) return s.empty() ? 0 : s.front().gpus;
  double seen = 0;
  for (const auto& [level, dt] : l.spans) {
    seen += dt;
    if (seen >= std::clamp(q, 0.0, 1.0) * l.total - 1e-9) return level;
  }
  return l.spans.back().first;
}

}  // namespace

double concurrency_quantile(const std::vector<ConcurrencyStep>& s, double q) { return quantile_of(level_spans(s), s, q); }

DemandSummary summarise_demand(const std::vector<Job>& all, double baseline_q) {
  DemandSummary d;
  d.baseline_quantile = baseline_q;
  // The jobs that used a GPU and ran; copied only when some are left out (a million-job log is
  // usually all of them).
  auto counts = [](const Job& j) { return j.gpus > 0 && j.end >= j.start; };
  std::vector<Job> kept;
  if (!std::all_of(all.begin(), all.end(), counts)) std::copy_if(all.begin(), all.end(), std::back_inserter(kept), counts);
  const std::vector<Job>& jobs = kept.empty() ? all : kept;
  if (jobs.empty() || !counts(jobs.front())) return d;
  d.jobs = static_cast<int>(jobs.size());
  d.start = std::min_element(jobs.begin(), jobs.end(), [](const Job& a, const Job& b) { return a.start < b.start; })->start;
  d.end = std::max_element(jobs.begin(), jobs.end(), [](const Job& a, const Job& b) { return a.end < b.end; })->end;
  d.span_hours = (d.end - d.start) / kHour;
  for (const Job& j : jobs) d.gpu_hours += j.gpus * (j.end - j.start) / kHour;
  d.gpu_hours_per_week = d.span_hours > 0 ? d.gpu_hours / (d.span_hours * kHour / kWeek) : 0;
  d.months = d.span_hours / kHoursPerMonth;
  d.gpu_hours_per_month = d.months > 0 ? d.gpu_hours / d.months : 0;
  d.mean_gpus = d.span_hours > 0 ? d.gpu_hours / d.span_hours : 0;
  d.steps = concurrency(jobs);
  const LevelSpans spans = level_spans(d.steps);  // sorted once for both quantiles
  d.baseline_gpus = quantile_of(spans, d.steps, baseline_q);
  d.p95_gpus = quantile_of(spans, d.steps, 0.95);
  for (const auto& s : d.steps) d.peak_gpus = std::max(d.peak_gpus, s.gpus);
  const auto [mean, sd] = concurrency_moments(d.steps);
  d.variability = mean > 0 ? sd / mean : 0;
  std::vector<double> waits;
  for (const Job& j : jobs)
    if (j.submit && j.start >= *j.submit) waits.push_back((j.start - *j.submit) / kHour);
  if (!waits.empty()) {
    d.queue_p50_hours = sample_quantile(waits, 0.5);
    d.queue_p95_hours = sample_quantile(waits, 0.95);
    double sum = 0;
    for (double w : waits) sum += w;
    d.queue_mean_hours = sum / static_cast<double>(waits.size());
  }
  for (const Job& j : jobs) {
    if (j.state == JobState::running) continue;
    ++d.finished_jobs;
    d.failed_jobs += failed(j.state);
  }
  d.failure_rate = d.finished_jobs > 0 ? static_cast<double>(d.failed_jobs) / d.finished_jobs : 0;
  d.retry_rate = retry_share(jobs);
  d.by_user = by_key(jobs, &Job::user, d.gpu_hours);
  d.by_team = by_key(jobs, &Job::team, d.gpu_hours);
  d.by_partition = by_key(jobs, &Job::partition, d.gpu_hours);
  d.first_day = static_cast<long>(std::floor(d.start / kDay));
  d.daily_gpu_hours = daily(jobs, d.first_day, std::max(d.first_day, static_cast<long>(std::ceil(d.end / kDay)) - 1));
  return d;
}

std::vector<ConcurrencyBucket> concurrency_buckets(const std::vector<ConcurrencyStep>& steps, double from, double to,
                                                   double seconds) {
  std::vector<ConcurrencyBucket> out;
  if (!(seconds > 0) || !(to > from)) return out;
  std::size_t first = 0;  // steps before it end by the bucket's start (steps are in time order)
  for (double b = from; b < to; b += seconds) {
    ConcurrencyBucket k;
    k.start = b;
    const double e = std::min(to, b + seconds);
    double area = 0;
    while (first + 1 < steps.size() && steps[first + 1].t <= b) ++first;
    for (std::size_t i = first; i < steps.size() && steps[i].t < e; ++i) {
      const double s0 = std::max(b, steps[i].t), s1 = std::min(e, i + 1 < steps.size() ? steps[i + 1].t : to);
      if (s1 <= s0) continue;
      area += steps[i].gpus * (s1 - s0);
      k.peak_gpus = std::max(k.peak_gpus, steps[i].gpus);
    }
    k.mean_gpus = area / (e - b);
    out.push_back(k);
  }
  return out;
}

double bucket_start(double t, double seconds) {
  if (!(seconds > 0)) return t;
  // 1970-01-01 was a Thursday: ISO weeks start 4 days later, on Monday 1970-01-05.
  const double origin = std::fmod(seconds, kWeek) == 0 ? 4 * kDay : 0;
  return std::floor((t - origin) / seconds) * seconds + origin;
}

}  // namespace gpuplan
