#pragma once
// `gpuplan demand`'s report: the summary, the split by user, team and partition, and a terminal
// chart of GPUs busy over time, as JSON and tables.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "gpuplan/demand.hpp"
#include "io/render/render.hpp"
#include "io/usage/job_log.hpp"

namespace gpuplan::io {

// "2026-03-01" for days since 1970-01-01.
std::string civil_date(long days);

nlohmann::json demand_json(const JobLog& log, const DemandSummary& d, const std::vector<ConcurrencyBucket>& chart);
// Summary, the concurrency chart, then by team, user and partition (the `top` largest each).
std::vector<Table> demand_tables(const JobLog& log, const DemandSummary& d, const std::vector<ConcurrencyBucket>& chart,
                                 double bucket_seconds, std::size_t top);

// GPU-hours per UTC day with raw numbers (`day,gpu_hours`): what --format csv prints.
Table demand_daily_table(const DemandSummary& d);

// What the reader must know: lines left out, running jobs cut at the log's end, how times and
// the baseline are read (`file` is the log, named in the buy-vs-rent command that prices it).
std::vector<std::string> demand_notes(const JobLog& log, const DemandSummary& d, const std::string& file);

}  // namespace gpuplan::io
