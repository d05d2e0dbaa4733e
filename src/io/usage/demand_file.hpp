#pragma once
// Demand profiles for `buy-vs-rent --demand FILE`: GPU-hours (or average GPUs busy) per day or
// per week, as CSV or as a small YAML subset. Every problem is an InputError with file, line,
// column and field. Formats are in docs/json.md ("buy-vs-rent").
#include <string>
#include <vector>

#include "gpuplan/demand.hpp"

namespace gpuplan::io {

struct DemandProfile {
  std::string path;
  std::string period;                 // "day" | "week"
  double period_hours = 24;           // 24 or 168
  std::string start;                  // first period's date (YYYY-MM-DD), "" when not given
  std::vector<double> gpu_hours;      // per period, in order, no gaps
  bool from_jobs = false;             // summed from a job log (sacct or a CSV of jobs)
  int jobs = 0, jobs_peak_gpus = 0;   // from a job log: GPU jobs, and the most GPUs busy at once
};

inline constexpr std::size_t kMaxDemandPeriods = 2000;

// Reads a profile: a job log (io/usage/job_log.hpp) summed per UTC day; else CSV when the name ends
// in .csv or the first line has a comma, else YAML.
DemandProfile load_demand_profile(const std::string& path);
// The daily profile of a job log already summarised (replay summarises once and prices from it).
DemandProfile profile_of_jobs(const DemandSummary& d, const std::string& path);

// The parsers behind it (text already read).
DemandProfile parse_demand_csv(const std::string& text, const std::string& path);
DemandProfile parse_demand_yaml(const std::string& text, const std::string& path);

}  // namespace gpuplan::io
