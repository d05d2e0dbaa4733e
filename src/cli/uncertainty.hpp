#pragma once
// Error bars on estimates: how far the models landed from measured runs. By default the shipped
// measured cases (data/measured/) under the default constants; with --profile, the team's own
// runs under the calibrated constants (leave-one-out, stored in the profile). The words and the
// JSON are io/render/error_bars'.
#include "cli/common.hpp"
#include "io/render/error_bars.hpp"

namespace gpuplan::cli {

// The bands and their basis for this invocation; throughput bands come from training runs, or
// from decode runs when `decode` is set. No bands (a warning) when the measured cases do not load.
io::ErrorBars model_bands(const Context& ctx, bool decode);

}  // namespace gpuplan::cli
