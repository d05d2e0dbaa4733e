#pragma once
// The shipped measured cases (data/measured/NAME.jsonl): run records in the same format teams
// write, compiled into the binary at build time. GPUPLAN_DATA_DIR reads them from disk instead.
#include <string>
#include <vector>

#include "io/usage/run_records.hpp"

namespace gpuplan::io {

// NAME is "memory" or "throughput".
std::vector<RunRecord> shipped_measured_runs(const std::string& name);

}  // namespace gpuplan::io
