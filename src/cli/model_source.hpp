#pragma once
// Where a command's model comes from: --model NAME, --model-config, --safetensors or --params.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "gpuplan/catalog.hpp"

namespace gpuplan::cli {

struct ModelSourceOptions {
  std::string model;
  std::string model_config;
  std::string safetensors;
  std::string params;
};

struct ResolvedModel {
  ModelArch arch;
  std::vector<std::string> assumptions;  // printed when the architecture is guessed
  std::string source;                    // "catalog", "config.json", "safetensors", "params"
};

void add_model_source_options(CLI::App& cmd, ModelSourceOptions& o, bool with_model_flag);
class Context;  // cli/common.hpp
// --model is looked up in ctx's catalog (loaded only then).
ResolvedModel resolve_model(const Context& ctx, const ModelSourceOptions& o);

const Gpu& resolve_gpu(const Catalog& catalog, const std::string& name);

}  // namespace gpuplan::cli
