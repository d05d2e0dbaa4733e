#pragma once
// estimate's error bars as a value and its renderers: how far the models landed from measured
// runs (the shipped cases, or the team's own runs in a --profile), and the range this estimate's
// memory and speed likely fall in.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "gpuplan/calibrate.hpp"

namespace gpuplan::io {

enum class BandBasis { shipped_cases, profile };

struct ErrorBars {
  BandBasis basis = BandBasis::shipped_cases;
  std::string profile;   // the --profile file, when basis is profile
  int profile_runs = 0;  // the runs it was calibrated on
  std::optional<ErrorBand> memory, throughput;
  double per_gpu_bytes = 0;                 // the estimate the memory band is applied to
  std::optional<double> tokens_per_second;  // and the throughput band, when the estimate has a time
};

// "profile team.yaml (12 runs, leave-one-out)" or "shipped measured cases (data/measured/)"
std::string band_basis_text(const ErrorBars& b);
// JSON "error_bars": the basis, each band and, where a band and its estimate exist, the likely range.
nlohmann::json error_bars_json(const ErrorBars& b);
// A note per band that has an estimate to apply to.
std::vector<std::string> error_bars_notes(const ErrorBars& b);

}  // namespace gpuplan::io
