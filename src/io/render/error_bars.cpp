#include "io/render/error_bars.hpp"

#include <cstdint>

#include "io/render/calibrate_render.hpp"
#include "io/render/format.hpp"

namespace gpuplan::io {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

}  // namespace

std::string band_basis_text(const ErrorBars& b) {
  switch (b.basis) {
    case BandBasis::profile: return "profile " + b.profile + " (" + std::to_string(b.profile_runs) + " runs, leave-one-out)";
    case BandBasis::shipped_cases: return "shipped measured cases (data/measured/)";
  }
  return {};
}

nlohmann::json error_bars_json(const ErrorBars& b) {
  nlohmann::json j = {{"basis", band_basis_text(b)}, {"memory", band_json(b.memory)}, {"throughput", band_json(b.throughput)}};
  if (b.memory) {
    const ValueRange v = likely_range(b.per_gpu_bytes, *b.memory);
    j["memory"]["likely_range_bytes"] = {static_cast<std::int64_t>(v.low), static_cast<std::int64_t>(v.high)};
  }
  if (b.throughput && b.tokens_per_second) {
    const ValueRange v = likely_range(*b.tokens_per_second, *b.throughput);
    j["throughput"]["likely_range_tokens_per_second"] = {v.low, v.high};
  }
  return j;
}

std::vector<std::string> error_bars_notes(const ErrorBars& b) {
  std::vector<std::string> out;
  if (b.memory) {
    const ValueRange v = likely_range(b.per_gpu_bytes, *b.memory);
    out.push_back("memory " + num(b.per_gpu_bytes / kGiB, 1) + " GiB per GPU; " + band_text(*b.memory) + " (" + band_basis_text(b) +
                  "): likely " + num(v.low / kGiB, 1) + "-" + num(v.high / kGiB, 1) + " GiB");
  }
  if (b.throughput && b.tokens_per_second) {
    const ValueRange v = likely_range(*b.tokens_per_second, *b.throughput);
    out.push_back("speed " + num(*b.tokens_per_second, 0) + " tokens/s; " + band_text(*b.throughput) + ": likely " + num(v.low, 0) + "-" +
                  num(v.high, 0) + " tokens/s");
  }
  return out;
}

}  // namespace gpuplan::io
