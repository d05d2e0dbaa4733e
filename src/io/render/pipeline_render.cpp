#include "io/render/pipeline_render.hpp"

#include <fmt/format.h>

namespace gpuplan::io {
namespace {

std::string num(double v, int decimals) { return fmt::format("{:.{}f}", v, decimals); }
std::string mb(double bytes_per_second) { return num(bytes_per_second / 1e6, bytes_per_second < 1e7 ? 2 : 0) + " MB/s"; }
nlohmann::json opt(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }
// The bound in the report's spelling (American, as the flags: --tokenize-rate), not the core's name.
const char* bound_name(PipelineBound b) {
  switch (b) {
    case PipelineBound::none: return "";
    case PipelineBound::storage: return "storage";
    case PipelineBound::tokenisation: return "tokenization";
  }
  return "";
}

}  // namespace

nlohmann::json pipeline_json(const PipelineFigures& f) {
  return {{"tokens_per_second", f.tokens_per_second},
          {"bytes_per_token", f.bytes_per_token},
          {"storage_bytes_per_second", f.storage_bytes_per_second},
          {"storage_limit_bytes_per_second", opt(f.storage_limit)},
          {"storage_limit_source", f.storage_limit ? nlohmann::json(f.storage_from_network ? "network" : "--storage-bandwidth")
                                                   : nlohmann::json(nullptr)},
          {"cpu_cores_needed", f.cpu_cores_needed},
          {"tokenize_limit_tokens_per_second", opt(f.tokenise_limit)},
          {"fed_tokens_per_second", f.fed_tokens_per_second},
          {"bound", f.bound == PipelineBound::none ? nlohmann::json(nullptr) : nlohmann::json(bound_name(f.bound))},
          {"slowdown", f.slowdown}};
}

std::string pipeline_bound_text(const PipelineFigures& f) {
  if (f.bound == PipelineBound::none) return "";
  return "the input pipeline (" + std::string(bound_name(f.bound)) + "), not the GPUs, bounds this run: " +
         num(f.fed_tokens_per_second, 0) + " tokens/s, " + num(f.slowdown, 2) + "x the GPU-bound step";
}

std::vector<std::string> pipeline_notes(const std::vector<PricedOffer>& offers) {
  for (const auto& p : offers)
    if (p.eval.pipeline) return pipeline_notes(p.offer->key(), *p.eval.pipeline);
  return {};
}

std::vector<std::string> pipeline_notes(const std::string& offer_key, const PipelineFigures& f) {
  const double gpu_speed = f.tokens_per_second;  // before any stretch
  std::string line = "input pipeline on " + offer_key + ": the GPUs consume " + num(gpu_speed, 0) + " tokens/s = " +
                     mb(f.storage_bytes_per_second) + " of " + (f.bytes_per_token == kRawTextBytesPerToken ? "raw text" : "token ids");
  if (f.storage_limit) line += " (storage: " + mb(*f.storage_limit) + (f.storage_from_network ? ", the nodes' network" : ", --storage-bandwidth") + ")";
  if (f.cpu_cores_needed > 0)
    line += "; tokenising that takes " + num(f.cpu_cores_needed, 1) + " CPU cores" +
            (f.tokenise_limit ? " (--cpu-cores sustain " + num(*f.tokenise_limit, 0) + " tokens/s)" : " (--cpu-cores checks it; --pretokenized if stored as ids)");
  std::vector<std::string> out{line};
  if (f.bound != PipelineBound::none)
    out.push_back("warning: " + pipeline_bound_text(f) +
                  "; the wall time and cost shown include it (fix the data pipeline before buying compute: a faster GPU would wait on it too)");
  return out;
}

}  // namespace gpuplan::io
