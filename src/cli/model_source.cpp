#include "cli/model_source.hpp"

#include <cmath>
#include <filesystem>

#include "cli/common.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/units.hpp"
#include "io/model_files/hf_config.hpp"
#include "io/render/assumed_model_text.hpp"

namespace gpuplan::cli {

void add_model_source_options(CLI::App& cmd, ModelSourceOptions& o, bool with_model_flag) {
  if (with_model_flag) cmd.add_option("-m,--model", o.model, "Model id, alias or Hugging Face id from the catalog");
  cmd.add_option("--model-config", o.model_config, "A Hugging Face config.json");
  cmd.add_option("--safetensors", o.safetensors, "A .safetensors file or model.safetensors.index.json (header only)");
  cmd.add_option("--params", o.params, "A bare parameter count such as 7B (architecture assumed)");
}

ResolvedModel resolve_model(const Context& ctx, const ModelSourceOptions& o) {
  const int given = !o.model.empty() + !o.model_config.empty() + !o.safetensors.empty() + !o.params.empty();
  if (given == 0) throw InputError(SourceLocation{}, "model", "give one of --model, --model-config, --safetensors or --params");
  if (given > 1) throw InputError(SourceLocation{}, "model", "--model, --model-config, --safetensors and --params are mutually exclusive");
  ResolvedModel out;
  if (!o.model.empty()) {
    auto hit = ctx.catalog().find_model(o.model);
    if (!hit.found) throw InputError(SourceLocation{}, "model", lookup_failure("model", o.model, hit));
    out.arch = *hit.found;
    out.source = "catalog";
    return out;
  }
  if (!o.model_config.empty()) {
    out.arch = io::read_hf_config(o.model_config);
    out.source = "config.json";
    return out;
  }
  double count = 0;
  if (!o.safetensors.empty()) {
    const io::WeightCount w = io::read_safetensors(o.safetensors);
    if (w.total < 1) throw InputError(SourceLocation{o.safetensors, 0, 0}, "", "no tensors in the safetensors header");
    count = w.total;
    out.source = "safetensors";
    std::string dtypes;
    for (const auto& [d, n] : w.by_dtype) dtypes += (dtypes.empty() ? "" : ", ") + d + " " + format_count(n);
    out.assumptions.push_back("parameter count " + format_count(count) + " read from " + std::to_string(w.tensors) +
                              " tensors in " + std::to_string(w.files) + " file(s) (" + dtypes + ")");
    // Shapes first: a header says layers, widths and heads, which a bare count cannot. An
    // inferred architecture that does not account for the file's parameters (quantised packing,
    // a vision tower) is not trusted; the count is.
    if (auto inferred = io::infer_architecture(w)) {
      const double t = count_params(inferred->arch).total();
      if (std::fabs(t - count) <= 0.05 * count) {
        out.arch = inferred->arch;
        out.arch.name = std::filesystem::path(o.safetensors).filename().string() + " (architecture from tensor shapes)";
        for (auto& n : inferred->notes) out.assumptions.push_back(std::move(n));
        return out;
      }
      out.assumptions.push_back("tensor shapes imply " + format_count(t) + " parameters, not the file's " +
                                format_count(count) + ": architecture assumed from the count instead");
    }
  } else {
    auto p = parse_count(o.params);
    if (!p) bad_flag("--params", p.error);
    count = *p.value;
    if (count < 1e6 || count > 1e13) bad_flag("--params", "expected 1M to 10T parameters, got " + o.params);
    out.source = "params";
  }
  AssumedModel a = model_from_param_count(count);
  out.arch = a.arch;
  for (auto& s : io::assumed_model_lines(a)) out.assumptions.push_back(std::move(s));
  return out;
}

}  // namespace gpuplan::cli
