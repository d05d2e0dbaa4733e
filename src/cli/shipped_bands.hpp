#pragma once
// The error bands of the shipped measured cases (data/measured/) under the default constants.
// They depend only on the shipped data and the models, so the build computes them once
// (tools/bandsc.cpp) and the gpuplan executable links the result: pricing 50 measured runs on
// every `estimate` cost five times the estimate itself. Programs built without the generated
// file (the tests, bandsc itself) compute them live, as does any run whose catalog's GPUs or
// models differ from the shipped ones (GPUPLAN_DATA_DIR, --catalog): the cases look those up.
#include <optional>

#include "cli/common.hpp"

#include "gpuplan/calibrate.hpp"

namespace gpuplan::cli {

struct ShippedBands {
  std::optional<ErrorBand> memory, train_throughput, decode_throughput;
};

// Prices every shipped case now, memory first; throws InputErrors when the cases do not load
// (what was computed before then stays in `out`).
void compute_shipped_bands(const Context& ctx, ShippedBands& out);

// The build's copy when this program links one and ctx reads the shipped catalog, else null.
const ShippedBands* precomputed_shipped_bands(const Context& ctx);

// Called by the generated file's static initializer.
void register_shipped_bands(const ShippedBands* bands);

}  // namespace gpuplan::cli
