#include <memory>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/model_source.hpp"
#include "io/catalogs/catalog_json.hpp"
#include "io/render/catalog_render.hpp"

namespace gpuplan::cli {

void setup_models(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand("models", "List or show model architectures");
  cmd->footer("Examples:\n  gpuplan models list\n  gpuplan models show meta-llama/Llama-3.1-8B\n  gpuplan models show --model-config ./config.json --format json");
  cmd->require_subcommand(1);
  auto* list = cmd->add_subcommand("list", "List every model in the loaded catalogs");
  add_common_options(*list, ctx, kCatalogs);
  on_parsed(*list, ctx, [&ctx] {
    Report r;
    std::vector<const ModelArch*> all;
    r.json["models"] = nlohmann::json::array();
    for (const auto& m : ctx.catalog().models) {
      all.push_back(&m);
      r.json["models"].push_back(io::to_json(m));
    }
    r.tables.push_back(io::models_table(all));
    ctx.print_report(r);
    return 0;
  });
  auto* show = cmd->add_subcommand("show", "Show one model's architecture and parameter breakdown");
  auto opts = std::make_shared<ModelSourceOptions>();
  show->add_option("name", opts->model, "Model id, alias or Hugging Face id");
  add_model_source_options(*show, *opts, /*with_model_flag=*/false);
  add_common_options(*show, ctx, kCatalogs);
  on_parsed(*show, ctx, [&ctx, opts] {
    const ResolvedModel rm = resolve_model(ctx, *opts);
    const ModelArch& m = rm.arch;
    Report r;
    r.json["model"] = io::to_json(m);
    r.json["assumptions"] = rm.assumptions;
    r.tables.push_back(io::models_table({&m}));
    r.tables.push_back(io::model_parts_table(m));
    for (const auto& a : rm.assumptions) r.notes.push_back("assumed: " + a);
    ctx.print_report(r);
    return 0;
  });
}

}  // namespace gpuplan::cli
