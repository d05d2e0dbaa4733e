// gpuplan demand: measure demand from a scheduler's job history (Slurm sacct --parsable2 or a
// CSV of jobs): GPU-hours per week, GPUs busy over time, baseline, peak, variability, queue
// time, failures and retries, by team, user and partition. The math is summarise_demand
// (src/core/demand.cpp); reading src/io/usage/job_log.cpp; rendering src/io/render/demand_render.cpp.
#include <cmath>
#include <memory>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "gpuplan/demand.hpp"
#include "gpuplan/units.hpp"
#include "io/render/demand_render.hpp"
#include "io/usage/job_log.hpp"

namespace gpuplan::cli {
namespace {

struct DemandFlags {
  std::string file, baseline = "50%";
  int top = 10;
};

// The finest bucket that keeps the chart within about a screen (31 rows).
double bucket_for(double span_hours) {
  for (double h : {1.0, 2.0, 4.0, 6.0, 12.0, 24.0, 168.0})
    if (span_hours / h <= 31) return h * 3600;
  return 4 * 168 * 3600.0;
}

int run_demand(const Context& ctx, const DemandFlags& f) {
  const auto q = parse_fraction(f.baseline);
  if (!q) bad_flag("--baseline-percentile", q.error);
  if (*q.value < 0 || *q.value > 1) bad_flag("--baseline-percentile", "expected 0% to 100%, got \"" + f.baseline + "\"");
  if (f.top < 1) bad_flag("--top", "expected 1 or more");
  const io::JobLog log = io::load_job_log(f.file);
  const DemandSummary d = summarise_demand(log.jobs, *q.value);
  if (d.jobs == 0) throw InputError(SourceLocation{f.file, 0, 0}, "", "no job that used a GPU and ran (check AllocTRES/gpus)");
  const double bucket = bucket_for(d.span_hours);
  const double from = bucket_start(d.start, bucket);  // weeks start on Monday (ISO)
  const auto chart = concurrency_buckets(d.steps, from, d.end, bucket);
  Report r;
  if (ctx.json_output()) {
    r.json = io::demand_json(log, d, chart);
  } else {
    r.csv = io::demand_daily_table(d);
    for (auto& t : io::demand_tables(log, d, chart, bucket, static_cast<std::size_t>(f.top))) r.tables.push_back(std::move(t));
  }
  r.notes = io::demand_notes(log, d, f.file);
  ctx.print_report(std::move(r));
  return 0;
}

}  // namespace

void setup_demand(CLI::App& app, Context& ctx) {
  auto f = std::make_shared<DemandFlags>();
  auto* cmd = app.add_subcommand("demand", "Measure GPU demand from scheduler logs: GPU-hours, concurrency, baseline, peak, queue, failures");
  cmd->footer(R"(Examples:
  sacct --parsable2 --allusers --starttime 2026-01-01 --format JobID,JobName,Partition,Account,User,Submit,Start,End,Elapsed,AllocTRES,State > jobs.txt
  gpuplan demand jobs.txt
  gpuplan demand jobs.csv --baseline-percentile 30% --format json
  gpuplan buy-vs-rent --gpu h100-sxm --demand jobs.txt --gpu-price 25000

A CSV of jobs has a header with start, end and gpus (times as 2026-03-01T10:00:00, UTC), and
optionally submit, user, team, partition, state, id and name.)");
  cmd->add_option("file", f->file, "sacct --parsable2 output or a CSV of jobs")->required();
  cmd->add_option("--baseline-percentile", f->baseline, "Baseline = this percentile of GPUs busy over time")->capture_default_str();
  cmd->add_option("--top", f->top, "Rows per team/user/partition table")->capture_default_str();
  add_common_options(*cmd, ctx, kOutputOnly);
  on_parsed(*cmd, ctx, [&ctx, f] { return run_demand(ctx, *f); });
}

}  // namespace gpuplan::cli
