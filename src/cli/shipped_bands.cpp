#include "cli/shipped_bands.hpp"

#include <cstdlib>

#include "cli/common.hpp"
#include "cli/run_inputs.hpp"
#include "io/catalogs/catalog_json.hpp"
#include "io/catalogs/shipped_data.hpp"

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

// The cases look up only GPUs and models: the same ones (wherever they were read from) give the
// same bands. Compared in their JSON form, the form the embedded catalog was normalised through.
nlohmann::json gpus_and_models(const Catalog& c) {
  Catalog only;
  only.gpus = c.gpus;
  only.models = c.models;
  for (Gpu& g : only.gpus) g.where = {};
  return io::to_json(only);
}

}  // namespace

void compute_shipped_bands(const Context& ctx, ShippedBands& b) {
  b.memory = error_band(shipped_errors(shipped_memory_cases(ctx), true, false));
  const std::vector<MeasuredRun> throughput = shipped_throughput_cases(ctx);
  b.train_throughput = error_band(shipped_errors(throughput, false, false));
  b.decode_throughput = error_band(shipped_errors(throughput, false, true));
}

const ShippedBands* precomputed_shipped_bands(const Context& ctx) {
  const ShippedBands* pre = registered();
  if (!pre) return nullptr;
  const char* dir = std::getenv("GPUPLAN_DATA_DIR");
  if ((dir == nullptr || *dir == '\0') && ctx.options.catalogs.empty()) return pre;  // the shipped catalog itself
  return gpus_and_models(ctx.catalog()) == gpus_and_models(io::embedded_catalog()) ? pre : nullptr;
}

void register_shipped_bands(const ShippedBands* bands) { registered() = bands; }

}  // namespace gpuplan::cli
