#pragma once
// Job histories for `gpuplan demand` and `buy-vs-rent --demand`: Slurm `sacct --parsable2`
// output (a '|'-separated header with JobID) or a plain CSV of jobs (start, end, gpus, and
// optionally submit, user, team, partition, state, id, name), told apart by the header.
// Every problem is an InputError with file, line, column and field.
#include <string>
#include <vector>

#include "gpuplan/demand.hpp"

namespace gpuplan::io {

struct JobLog {
  std::string format;          // "sacct" | "csv"
  std::vector<Job> jobs;       // GPU and CPU jobs that ran (steps and pending jobs left out)
  int steps_skipped = 0;       // sacct step lines (123.batch, 123.0): the allocation line counts
  int pending_skipped = 0;     // never started
  int running = 0;             // End Unknown: counted up to the cut-off
  double cutoff = 0;           // the latest time in the log (seconds), where running jobs stop
};

// True when the text's first non-empty line is a job-log header (sacct or a CSV with start,end,gpus).
bool looks_like_job_log(const std::string& text);
// The same for a file, reading only up to its first non-empty line (a 300 MB log is not read
// whole to be told apart from a demand profile). Not for "-": standard input is read once.
bool file_looks_like_job_log(const std::string& path);
JobLog parse_job_log(const std::string& text, const std::string& path);
JobLog load_job_log(const std::string& path);

}  // namespace gpuplan::io
