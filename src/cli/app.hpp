#pragma once
// The command table, parsing, and the mapping from outcomes to exit codes
// (0 success, 1 a check answered "no", 2 bad usage or bad input).

namespace gpuplan::cli {

// Runs one gpuplan invocation and returns its exit code; never throws.
int run(int argc, char** argv);

}  // namespace gpuplan::cli
