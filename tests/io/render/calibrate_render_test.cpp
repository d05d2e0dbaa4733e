// calibrate's report on a fixed value: the runs table and JSON, the constants, the notes, and
// the error band's spelling estimate shares.
#include <catch2/catch.hpp>

#include "io/render/calibrate_render.hpp"

using namespace gpuplan;
using namespace gpuplan::io;

namespace {

RunEstimate memory_estimate(double measured, double estimate) {
  RunEstimate e;
  e.memory = MemoryMeasure::reserved;
  e.memory_measured = measured;
  e.memory_estimate = estimate;
  return e;
}

}  // namespace

TEST_CASE("error bands: JSON fields or null, and their words") {
  CHECK(band_json(std::nullopt).is_null());
  const ErrorBand b{-0.122, 0.214, 18, 17, 0.9};
  const nlohmann::json j = band_json(b);
  CHECK(j["low"] == -0.122);
  CHECK(j["high"] == 0.214);
  CHECK(j["cases"] == 18);
  CHECK(j["within"] == 17);
  CHECK(band_text(b) == "17 of 18 measured cases within -12.2%..+21.4%");
}

TEST_CASE("calibrate: each run before, after and left out, a CPU run skipped, constants moved") {
  MeasuredRun gpu_run, cpu_run;
  gpu_run.id = "a100-lora";
  gpu_run.gpu = Gpu{};
  gpu_run.gpu->id = "a100-80gb";
  cpu_run.id = "laptop";
  const double gib = 1024.0 * 1024 * 1024;
  // Measured 20 GiB; the defaults said 22 (+10%), the fitted profile 20.5 (+2.5%), left out 21 (+5%).
  CalibrationReport r;
  r.runs = {{&gpu_run, memory_estimate(20 * gib, 22 * gib), memory_estimate(20 * gib, 20.5 * gib), memory_estimate(20 * gib, 21 * gib)},
            {&cpu_run, {}, {}, {}}};
  r.constants = {{"fragmentation", 0.10, 0.12, 4}, {"bandwidth_efficiency", 0.8, std::nullopt, 0}};
  r.underfit = {{"step_overhead_ms", 2, 5}};
  r.memory_band = ErrorBand{-0.05, 0.05, 4, 4, 0.9};
  r.written_to = "profile.yaml";

  const nlohmann::json j = calibration_json(r);
  CHECK(j["runs"][0]["gpu"] == "a100-80gb");
  CHECK(j["runs"][0]["memory"]["measure"] == "reserved");
  CHECK(j["runs"][0]["memory"]["error_before"].get<double>() == Approx(0.10));
  CHECK(j["runs"][0]["memory"]["error_after"].get<double>() == Approx(0.025));
  CHECK(j["runs"][0]["memory"]["error_leave_one_out"].get<double>() == Approx(0.05));
  CHECK_FALSE(j["runs"][0].contains("throughput"));
  CHECK(j["runs"][1]["gpu"].is_null());
  CHECK(j["runs"][1]["skipped"] == "CPU run: the models are for GPUs, so only its record is checked");
  CHECK(j["constants"][1]["fitted"].is_null());
  CHECK(j["underfit"][0]["needed"] == 5);
  CHECK(j["error_bars"]["throughput"].is_null());
  CHECK(j["profile"] == "profile.yaml");

  const std::vector<Table> t = calibration_tables(r);
  REQUIRE(t.size() == 2);
  REQUIRE(t[0].rows.size() == 1);  // the CPU run measures nothing a GPU model predicts
  CHECK(t[0].rows[0] == std::vector<std::string>{"a100-lora", "memory (reserved)", "20.00 GiB", "22.00 GiB", "+10.0%", "20.50 GiB",
                                                 "+2.5%", "+5.0%"});
  CHECK(t[0].csv_rows[0][1] == "memory_bytes_reserved");
  // 0.10 -> 0.12 moved +20.0%; a constant kept at its default shows no move.
  CHECK(t[1].rows[0] == std::vector<std::string>{"fragmentation", "0.100", "0.120", "4", "+20.0%"});
  CHECK(t[1].rows[1] == std::vector<std::string>{"bandwidth_efficiency", "0.800", "(default)", "0", "-"});

  const std::vector<std::string> notes = calibration_notes(r);
  REQUIRE(notes.size() == 4);
  CHECK(notes[0] == "step_overhead_ms: kept at its default (2 runs, a fit needs 5)");
  CHECK(notes[2] == "memory error bars: 4 of 4 measured cases within -5.0%..+5.0%");
  CHECK(notes[3] == "profile written to profile.yaml (load it with --profile profile.yaml)");
  r.written_to.clear();
  CHECK_FALSE(calibration_json(r).contains("profile"));
}
