#include <memory>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "gpuplan/error.hpp"
#include "io/catalogs/catalog_json.hpp"
#include "io/render/catalog_render.hpp"

namespace gpuplan::cli {
const Gpu& resolve_gpu(const Catalog& catalog, const std::string& name) {
  auto hit = catalog.find_gpu(name);
  if (!hit.found) throw InputError(SourceLocation{}, "gpu", lookup_failure("GPU", name, hit));
  return *hit.found;
}

void setup_gpus(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand("gpus", "List or show the GPUs in the loaded catalogs");
  cmd->footer("Examples:\n  gpuplan gpus list --format csv\n  gpuplan gpus show \"RTX 4090\"\n  gpuplan gpus show h100 --format json");
  cmd->require_subcommand(1);
  auto* list = cmd->add_subcommand("list", "List every GPU");
  add_common_options(*list, ctx, kCatalogs);
  on_parsed(*list, ctx, [&ctx] {
    Report r;
    std::vector<const Gpu*> all;
    r.json["gpus"] = nlohmann::json::array();
    for (const auto& g : ctx.catalog().gpus) {
      all.push_back(&g);
      r.json["gpus"].push_back(io::to_json(g));
    }
    r.tables.push_back(io::gpus_table(all));
    ctx.print_report(r);
    return 0;
  });
  auto name = std::make_shared<std::string>();
  auto* show = cmd->add_subcommand("show", "Show one GPU (id or alias, e.g. 'H100' or 'RTX 4090')");
  show->add_option("name", *name, "GPU id or alias")->required();
  add_common_options(*show, ctx, kCatalogs);
  on_parsed(*show, ctx, [&ctx, name] {
    const Gpu& g = resolve_gpu(ctx.catalog(), *name);
    Report r;
    r.json["gpu"] = io::to_json(g);
    r.tables.push_back(io::gpus_table({&g}));
    r.tables.push_back(io::gpu_detail_table(g));
    ctx.print_report(r);
    return 0;
  });
}

}  // namespace gpuplan::cli
