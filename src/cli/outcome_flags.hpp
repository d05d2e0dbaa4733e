#pragma once
// `ledger add`'s measured-outcome flags: validation metrics with their direction, GPU
// utilization, samples or images, inference requests and checkpoint restore time.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "gpuplan/budget.hpp"

namespace gpuplan::cli {

struct OutcomeFlags {
  std::string family, utilization, samples, requests, restore_time;
  std::vector<std::string> metrics;  // NAME=VALUE:lower|higher
};

void add_outcome_options(CLI::App& cmd, OutcomeFlags& f);
// Sets r's outcome fields from the flags; exits 2 naming the flag on a bad value.
void apply_outcome_flags(const OutcomeFlags& f, LedgerRecord& r);

}  // namespace gpuplan::cli
