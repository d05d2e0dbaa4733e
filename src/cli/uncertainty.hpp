#pragma once
// Error bars on estimates: how far the models landed from measured runs. By default the shipped
// measured cases (data/measured/) under the default constants; with --profile, the team's own
// runs under the calibrated constants (leave-one-out, stored in the profile).
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "cli/common.hpp"
#include "gpuplan/calibrate.hpp"

namespace gpuplan::cli {

struct ModelBands {
  std::optional<ErrorBand> memory, throughput;
  std::string basis;  // "shipped measured cases" or "profile FILE"
};
// Throughput bands come from training runs, or from decode runs when `decode` is set.
ModelBands model_bands(const Context& ctx, bool decode);

// estimate's error bars: JSON "error_bars" and a note under the tables, for the per-GPU memory
// total and (when r.json["time"] holds one) the tokens/s.
void add_error_bars(const Context& ctx, Report& r, double per_gpu_bytes, const Workload& w);

}  // namespace gpuplan::cli
