#pragma once
// Measured-run records turned into the core's MeasuredRun: the model resolved, the settings
// read through estimate's own flag definitions, the GPU found in the catalog.
#include <string>
#include <vector>

#include "cli/common.hpp"
#include "gpuplan/calibrate.hpp"
#include "io/usage/run_records.hpp"

namespace gpuplan::cli {

// Throws InputError at the record's line, naming the field, for anything estimate would refuse.
// The record's model and GPU are looked up in ctx's catalog; ctx's profile is not applied.
MeasuredRun to_measured_run(const Context& ctx, const io::RunRecord& r);
std::vector<MeasuredRun> to_measured_runs(const Context& ctx, const std::vector<io::RunRecord>& records);

// The shipped measured cases (data/measured/*.jsonl, compiled in; GPUPLAN_DATA_DIR reads them
// from disk): the default error bars and the README's leave-one-out table.
// Read anew on each call: their GPUs and models come from ctx's catalog.
std::vector<MeasuredRun> shipped_memory_cases(const Context& ctx);
std::vector<MeasuredRun> shipped_throughput_cases(const Context& ctx);

}  // namespace gpuplan::cli
