#include "io/render/demand_render.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "gpuplan/budget.hpp"

namespace gpuplan::io {

namespace {

using nlohmann::json;

std::string num(double v, int decimals) { return fmt::format("{:.{}f}", v, decimals); }
std::string pct(double share) { return num(100 * share, 1) + "%"; }
json opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json groups_json(const std::vector<GroupDemand>& g) {
  json out = json::array();
  for (const auto& x : g)
    out.push_back({{"key", x.key}, {"jobs", x.jobs}, {"failed_jobs", x.failed}, {"gpu_hours", x.gpu_hours}, {"share", x.share}});
  return out;
}

std::string when(double seconds, double bucket) {
  const long day = static_cast<long>(std::floor(seconds / 86400));
  if (bucket >= 86400) return civil_date(day);
  const long s = static_cast<long>(seconds) - day * 86400;
  return civil_date(day) + fmt::format(" {:02}:{:02}", s / 3600, s % 3600 / 60);
}

Table summary_table(const JobLog& log, const DemandSummary& d) {
  Table t;
  t.title = "Demand from " + log.format + " (" + std::to_string(d.jobs) + " GPU jobs, " + civil_date(d.first_day) + " to " +
            civil_date(d.first_day + static_cast<long>(d.daily_gpu_hours.size()) - 1) + ")";
  t.columns = {"measure", "value"};
  auto row = [&](const std::string& k, const std::string& v) { t.rows.push_back({k, v}); };
  row("GPU-hours", num(d.gpu_hours, 1));
  row("GPU-hours per week", num(d.gpu_hours_per_week, 1));
  row("GPU-hours per month (730 h)", num(d.gpu_hours_per_month, 1));
  row("mean GPUs busy", num(d.mean_gpus, 2));
  row("baseline (p" + num(100 * d.baseline_quantile, 0) + " of GPUs busy)", num(d.baseline_gpus, 0));
  row("p95 GPUs busy", num(d.p95_gpus, 0));
  row("peak GPUs busy", std::to_string(d.peak_gpus));
  row("variability (CV of GPUs busy)", num(d.variability, 2) + (d.variability > 0.5 ? " (bursty)" : " (steady)"));
  row("queue time p50 / p95", d.queue_p50_hours ? num(*d.queue_p50_hours, 2) + " h / " + num(*d.queue_p95_hours, 2) + " h"
                                                : "- (no submit times)");
  row("failure rate", pct(d.failure_rate) + " (" + std::to_string(d.failed_jobs) + " of " + std::to_string(d.finished_jobs) + " finished)");
  row("failures retried", pct(d.retry_rate));
  return t;
}

Table group_table(const std::string& title, const std::vector<GroupDemand>& g, std::size_t top) {
  Table t;
  t.title = title;
  t.columns = {"name", "jobs", "failed", "GPU-hours", "share", ""};
  t.align = {Align::left, Align::right, Align::right, Align::right, Align::right, Align::left};
  for (std::size_t i = 0; i < std::min(top, g.size()); ++i)
    t.rows.push_back({g[i].key, std::to_string(g[i].jobs), std::to_string(g[i].failed), num(g[i].gpu_hours, 1), pct(g[i].share),
                      bar(g[i].share, 20)});
  return t;
}

Table chart_table(const DemandSummary& d, const std::vector<ConcurrencyBucket>& chart, double bucket) {
  Table t;
  const double h = bucket / 3600;
  const std::string per = h >= 672 ? "4 weeks" : h >= 168 ? "week" : h >= 24 ? "day" : h > 1 ? num(h, 0) + " hours" : "hour";
  t.title = "GPUs busy per " + per + " (bar: mean against the peak of " + std::to_string(d.peak_gpus) + ")";
  t.columns = {"from", "mean", "peak", ""};
  t.align = {Align::left, Align::right, Align::right, Align::left};
  const double top = std::max(1, d.peak_gpus);
  // A bucket the log covers only in part (before its first start or after its last end) is
  // marked: its mean counts the uncovered time as idle.
  for (const auto& b : chart) {
    const bool partial = b.start < d.start || b.start + bucket > d.end;
    t.rows.push_back({when(b.start, bucket) + (partial ? " (partial)" : ""), num(b.mean_gpus, 1), std::to_string(b.peak_gpus),
                      bar(b.mean_gpus / top, 30)});
  }
  return t;
}

}  // namespace

std::string civil_date(long days) { return add_days("1970-01-01", static_cast<int>(days)); }

json demand_json(const JobLog& log, const DemandSummary& d, const std::vector<ConcurrencyBucket>& chart) {
  json c = json::array();
  for (const auto& b : chart) c.push_back({{"start", when(b.start, 1)}, {"mean_gpus", b.mean_gpus}, {"peak_gpus", b.peak_gpus}});
  json daily = json::array();
  for (std::size_t i = 0; i < d.daily_gpu_hours.size(); ++i)
    daily.push_back({{"day", civil_date(d.first_day + static_cast<long>(i))}, {"gpu_hours", d.daily_gpu_hours[i]}});
  return {{"format", log.format}, {"jobs", d.jobs}, {"steps_skipped", log.steps_skipped}, {"pending_skipped", log.pending_skipped},
          {"running", log.running}, {"gpu_hours", d.gpu_hours}, {"gpu_hours_per_week", d.gpu_hours_per_week},
          {"gpu_hours_per_month", d.gpu_hours_per_month}, {"months", d.months},
          {"span_hours", d.span_hours}, {"mean_gpus", d.mean_gpus}, {"baseline_gpus", d.baseline_gpus},
          {"baseline_quantile", d.baseline_quantile}, {"p95_gpus", d.p95_gpus}, {"peak_gpus", d.peak_gpus},
          {"variability", d.variability}, {"queue_p50_hours", opt(d.queue_p50_hours)}, {"queue_p95_hours", opt(d.queue_p95_hours)},
          {"queue_mean_hours", opt(d.queue_mean_hours)}, {"finished_jobs", d.finished_jobs}, {"failed_jobs", d.failed_jobs},
          {"failure_rate", d.failure_rate}, {"retry_rate", d.retry_rate}, {"by_user", groups_json(d.by_user)},
          {"by_team", groups_json(d.by_team)}, {"by_partition", groups_json(d.by_partition)}, {"daily", daily},
          {"concurrency", c}};
}

Table demand_daily_table(const DemandSummary& d) {
  Table t;
  t.title = "GPU-hours per day";
  t.columns = {"day", "gpu_hours"};
  for (std::size_t i = 0; i < d.daily_gpu_hours.size(); ++i)
    t.rows.push_back({civil_date(d.first_day + static_cast<long>(i)), num(d.daily_gpu_hours[i], 3)});
  return t;
}

std::vector<Table> demand_tables(const JobLog& log, const DemandSummary& d, const std::vector<ConcurrencyBucket>& chart,
                                 double bucket_seconds, std::size_t top) {
  return {summary_table(log, d), chart_table(d, chart, bucket_seconds), group_table("By team (account)", d.by_team, top),
          group_table("By user", d.by_user, top), group_table("By partition", d.by_partition, top)};
}

std::vector<std::string> demand_notes(const JobLog& log, const DemandSummary& d, const std::string& file) {
  std::vector<std::string> notes;
  if (log.steps_skipped || log.pending_skipped)
    notes.push_back(std::to_string(log.steps_skipped) + " job step line(s) and " + std::to_string(log.pending_skipped) +
                    " job(s) that never started are left out (the allocation line carries a job's GPUs)");
  if (log.running)
    notes.push_back(std::to_string(log.running) + " running job(s) (End Unknown) are counted up to the log's last time, " +
                    civil_date(static_cast<long>(std::floor(log.cutoff / 86400))));
  notes.push_back("times are read as UTC; the baseline is the GPUs busy at least " + std::to_string(static_cast<int>(100 - 100 * d.baseline_quantile)) +
                  "% of the time: what an owned fleet of that size keeps busy (buy-vs-rent --demand " + file + " prices it)");
  return notes;
}

}  // namespace gpuplan::io
