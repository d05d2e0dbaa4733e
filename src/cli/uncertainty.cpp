#include "cli/uncertainty.hpp"

#include "cli/shipped_bands.hpp"

namespace gpuplan::cli {

io::ErrorBars model_bands(const Context& ctx, bool decode) {
  io::ErrorBars b;
  if (const Profile* p = ctx.profile()) {
    b.basis = io::BandBasis::profile;
    b.profile = ctx.options.profile;
    b.profile_runs = p->runs;
    b.memory = error_band(p->memory_errors);
    b.throughput = error_band(p->throughput_errors);
    return b;
  }
  ShippedBands s;
  try {
    if (const ShippedBands* pre = precomputed_shipped_bands(ctx)) s = *pre;
    else compute_shipped_bands(ctx, s);
  } catch (const InputErrors& e) {
    // A GPUPLAN_DATA_DIR without data/measured/, or --catalog files that redefine the cases'
    // GPUs or models: the estimate stands, its bars do not.
    ctx.warn("no error bars: the measured cases did not load (" + e.errors().front().problem() + ")");
  } catch (const InputError& e) {
    ctx.warn("no error bars: the measured cases did not load (" + std::string(e.what()) + ")");
  }
  b.memory = s.memory;
  b.throughput = decode ? s.decode_throughput : s.train_throughput;
  return b;
}

}  // namespace gpuplan::cli
