#pragma once
// Calibration: fit the memory and time models' free constants to a team's own measured runs,
// and error bars from how far estimates land from measurements. Pure: the runs arrive parsed
// (src/io/run_records), the profile leaves as a value (src/io/profile_yaml).
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/catalog.hpp"
#include "gpuplan/model.hpp"
#include "gpuplan/serving.hpp"
#include "gpuplan/step_time.hpp"
#include "gpuplan/workload.hpp"

namespace gpuplan {

// One measured run, with the settings it ran under. Memory figures are per GPU, in bytes;
// each is optional (a CPU run has none; a hand-typed record may give only one).
struct MeasuredRun {
  std::string id;
  ModelArch model;
  ParamCounts params;
  Workload workload;
  int grad_accum = 1;
  std::optional<Gpu> gpu;                   // none: a CPU run (nothing to compare on a GPU model)
  Links links;
  std::optional<double> allocated_bytes;    // torch.cuda.max_memory_allocated
  std::optional<double> reserved_bytes;     // torch.cuda.max_memory_reserved
  std::optional<double> device_bytes;       // the whole process on the card (nvidia-smi), context included
  std::optional<double> tokens_per_second;  // whole job: trained tokens/s, or decoded tokens/s (inference)
  // The run's own settings fixed these constants (a measured context, say): a profile does not
  // replace them, and they are not fitted from this run.
  bool context_given = false, fragmentation_given = false;
};

// The constants a profile carries. Unset = the model's default.
struct Profile {
  std::optional<double> cuda_context_bytes;     // MemoryConstants::overhead_bytes
  std::optional<double> fragmentation;          // MemoryConstants::fragmentation
  // Hardware FLOPs utilisation per GPU class and method, as bf16 (fp8 runs scale by the time
  // model's own fp8 factor). Index with hfu_index.
  std::array<double, kHfuSlots> hfu{};          // 0 = default
  std::array<int, kHfuSlots> hfu_runs{};
  // Every training run pooled: measured utilisation over the default's, for slots without
  // enough runs of their own.
  std::optional<double> hfu_scale;
  int hfu_scale_runs = 0;
  std::optional<double> bandwidth_efficiency;   // decode: share of memory bandwidth reached
  std::optional<double> step_overhead_seconds;  // decode: fixed time per forward pass
  int runs = 0;                                 // runs the profile was fitted to
  std::string source;                           // what it was fitted from (a file name)
  // Leave-one-out relative errors of the calibrated model on those runs (the error bars).
  std::vector<double> memory_errors, throughput_errors;
};

// The constants with a profile applied over the defaults.
MemoryConstants apply_profile(const Profile& p, MemoryConstants base);
TimeConstants apply_profile(const Profile& p, TimeConstants base);
ServingConstants apply_profile(const Profile& p, ServingConstants base);

// Which measurement of a run the memory model is compared with: the most complete one given.
enum class MemoryMeasure { none, allocated, reserved, device };
MemoryMeasure memory_measure(const MeasuredRun& r);
const char* to_string(MemoryMeasure m);

// A run estimated under a profile: the estimate of what it measured, and the relative error.
struct RunEstimate {
  MemoryMeasure memory = MemoryMeasure::none;
  double memory_measured = 0, memory_estimate = 0;
  bool has_throughput = false;
  double throughput_measured = 0, throughput_estimate = 0;
  std::optional<double> memory_error() const;      // (estimate - measured) / measured
  std::optional<double> throughput_error() const;
};
RunEstimate estimate_run(const MeasuredRun& r, const Profile& p);

// Fewest runs a constant is fitted from: the median of 3 ignores one wild run; a line
// (bandwidth efficiency and per-pass overhead together) needs 5 over two or more batch shapes.
inline constexpr int kMinRunsPerConstant = 3;
inline constexpr int kMinRunsForLine = 5;

// A constant some runs measure but too few to fit.
struct Underfit {
  std::string constant;
  int runs = 0;
  int needed = 0;
};

struct FitResult {
  Profile profile;
  std::vector<Underfit> underfit;  // left at the default
};

// Robust fit of every constant the runs measure: medians of per-run implied values (a wild run
// moves a median by one rank, not by its size), and a Theil-Sen line for decode time against
// bytes read. Constants with too few runs are listed in `underfit` and left unset.
FitResult fit_profile(const std::vector<MeasuredRun>& runs);

// One constant as calibrate reports it: its default, the fitted value (none: kept at the
// default) and how many runs measured it. Names carry the unit (cuda_context_gib).
struct ConstantFit {
  std::string name;
  double default_value = 0;
  std::optional<double> fitted;
  int runs = 0;  // 0 when not fitted
};
// Every constant the profile can carry, in a fixed order: memory, utilisation (pooled, then
// each fitted GPU class x method slot), decode. The run counts are the runs that measure it.
std::vector<ConstantFit> calibration_constants(const Profile& p, const std::vector<MeasuredRun>& runs);

// Each run estimated by a profile fitted to all the others (partial fits allowed).
std::vector<RunEstimate> leave_one_out(const std::vector<MeasuredRun>& runs);

// Empirical band of relative errors: the nearest-rank quantiles that hold `coverage` of them.
struct ErrorBand {
  double low = 0, high = 0;   // relative errors, e.g. -0.06 and +0.09
  int cases = 0;              // errors the band came from
  int within = 0;             // of them, how many lie inside [low, high]
  double coverage = 0.9;
};
std::optional<ErrorBand> error_band(std::vector<double> relative_errors, double coverage = 0.9);

// The range a true value likely lies in, given an estimate and its error band.
struct ValueRange {
  double low = 0, high = 0;
};
ValueRange likely_range(double estimate, const ErrorBand& b);

}  // namespace gpuplan
