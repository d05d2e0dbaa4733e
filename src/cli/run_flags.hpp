#pragma once
// The run and bill flags `estimate`, `compare` and `plan` share: how much work, which pricing,
// tax, currency, spot terms, deadline and budget.
#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "gpuplan/catalog.hpp"
#include "gpuplan/offer_eval.hpp"

namespace gpuplan::cli {

struct RunFlags {
  std::string tokens, dataset_tokens, epochs, steps, mean_sample_tokens, packing = "on";
  int grad_accum = 1;
  std::string mfu, pricing = "on-demand", tax, currency = "USD", deadline, budget;
  std::string tax_basis = "inclusive";
  bool input_tax_credit = false;
  int stale_after = kStalePriceDays;
  std::vector<std::string> fx;
  std::string preemptions_per_hour, checkpoint_every, restart_time = "10m", idle = "0%", startup;
  std::string checkpoint_write_speed = "1GB", dataset_size = "0GB";
  int keep_checkpoints = 1, max_restarts = 100, nodes = 0;
  bool no_egress = false;
};

void add_run_options(CLI::App& cmd, RunFlags& f);

// The checked run: work, bill terms, currency. Exits 2 naming the flag on a bad value.
struct RunSettings {
  RunSpec spec;
  std::string currency;              // what money is shown in
  FxTable fx;                        // catalog rates plus --fx overrides
  std::optional<double> budget;      // in `currency`
  int stale_after_days = kStalePriceDays;  // sheets older than this are flagged
  std::string today;                 // YYYY-MM-DD (UTC), for the sheets' age
  bool has_work() const { return spec.tokens || spec.steps; }
};
RunSettings build_run_settings(const RunFlags& f, const Workload& w);

// Converts from a sheet's currency to the display currency; exits 2 when no rate is known.
double to_display(double amount, const std::string& from, const RunSettings& s, const SourceLocation& where);

}  // namespace gpuplan::cli
