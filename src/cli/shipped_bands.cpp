#include "cli/shipped_bands.hpp"

#include <cstdlib>

#include "cli/common.hpp"
#include "cli/run_inputs.hpp"

namespace gpuplan::cli {

namespace {

const ShippedBands*& registered() {
  static const ShippedBands* bands = nullptr;
  return bands;
}

std::vector<double> shipped_errors(const std::vector<MeasuredRun>& runs, bool memory, bool decode) {
  std::vector<double> out;
  for (const MeasuredRun& run : runs) {
    if (!memory && (run.workload.method == Method::inference) != decode) continue;
    const RunEstimate e = estimate_run(run, Profile{});
    if (auto x = memory ? e.memory_error() : e.throughput_error()) out.push_back(*x);
  }
  return out;
}

}  // namespace

void compute_shipped_bands(ShippedBands& b) {
  b.memory = error_band(shipped_errors(shipped_memory_cases(), true, false));
  b.train_throughput = error_band(shipped_errors(shipped_throughput_cases(), false, false));
  b.decode_throughput = error_band(shipped_errors(shipped_throughput_cases(), false, true));
}

const ShippedBands* precomputed_shipped_bands() {
  const char* dir = std::getenv("GPUPLAN_DATA_DIR");
  const bool shipped_catalog = (dir == nullptr || *dir == '\0') && globals().catalogs.empty();
  return shipped_catalog ? registered() : nullptr;
}

void register_shipped_bands(const ShippedBands* bands) { registered() = bands; }

}  // namespace gpuplan::cli
