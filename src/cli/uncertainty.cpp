#include "cli/uncertainty.hpp"

#include "cli/format_values.hpp"
#include "cli/run_inputs.hpp"
#include "cli/shipped_bands.hpp"
#include "io/render/calibrate_render.hpp"

namespace gpuplan::cli {

ModelBands model_bands(const Context& ctx, bool decode) {
  ModelBands b;
  if (const Profile* p = ctx.profile()) {
    b.basis = "profile " + ctx.options.profile + " (" + std::to_string(p->runs) + " runs, leave-one-out)";
    b.memory = error_band(p->memory_errors);
    b.throughput = error_band(p->throughput_errors);
    return b;
  }
  b.basis = "shipped measured cases (data/measured/)";
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

void add_error_bars(const Context& ctx, Report& r, double per_gpu_bytes, const Workload& w) {
  const ModelBands b = model_bands(ctx, w.method == Method::inference);
  nlohmann::json j = {{"basis", b.basis}, {"memory", io::band_json(b.memory)}, {"throughput", io::band_json(b.throughput)}};
  if (b.memory) {
    const ValueRange v = likely_range(per_gpu_bytes, *b.memory);
    j["memory"]["likely_range_bytes"] = {static_cast<std::int64_t>(v.low), static_cast<std::int64_t>(v.high)};
    r.notes.push_back("memory " + num(per_gpu_bytes / (1024.0 * 1024 * 1024), 1) + " GiB per GPU; " + io::band_text(*b.memory) +
                      " (" + b.basis + "): likely " + num(v.low / (1024.0 * 1024 * 1024), 1) + "-" +
                      num(v.high / (1024.0 * 1024 * 1024), 1) + " GiB");
  }
  const nlohmann::json& time = r.json.contains("time") ? r.json["time"] : nlohmann::json();
  if (b.throughput && time.is_object() && time.contains("tokens_per_second")) {
    const double tps = time["tokens_per_second"].get<double>();
    const ValueRange v = likely_range(tps, *b.throughput);
    j["throughput"]["likely_range_tokens_per_second"] = {v.low, v.high};
    r.notes.push_back("speed " + num(tps, 0) + " tokens/s; " + io::band_text(*b.throughput) + ": likely " + num(v.low, 0) + "-" +
                      num(v.high, 0) + " tokens/s");
  }
  r.json["error_bars"] = j;
}

}  // namespace gpuplan::cli
