#pragma once
// calibrate's report: each measured run before and after calibration (and left out of the
// fit), the constants fitted, what too few runs measured, and the error bars; plus the error
// band's spelling that estimate's notes share.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "gpuplan/calibrate.hpp"
#include "io/render/render.hpp"

namespace gpuplan::io {

// {"low", "high", "cases", "within", "coverage"}, or null when there is no band.
nlohmann::json band_json(const std::optional<ErrorBand>& b);
// "17 of 18 measured cases within -12.2%..+21.4%"
std::string band_text(const ErrorBand& b);

struct CalibratedRun {
  const MeasuredRun* run = nullptr;
  RunEstimate before, after, left_out;  // default constants, the fitted profile, fitted without this run
};
struct CalibrationReport {
  std::vector<CalibratedRun> runs;
  std::vector<ConstantFit> constants;
  std::vector<Underfit> underfit;
  std::optional<ErrorBand> memory_band, throughput_band;
  std::string written_to;  // the profile file; "" when none was written
};
nlohmann::json calibration_json(const CalibrationReport& r);
// The runs table, then the constants table.
std::vector<Table> calibration_tables(const CalibrationReport& r);
std::vector<std::string> calibration_notes(const CalibrationReport& r);

}  // namespace gpuplan::io
