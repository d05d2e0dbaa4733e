#include <cstdio>
#include <memory>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "gpuplan/error.hpp"
#include "io/catalogs/shipped_data.hpp"
#include "io/catalogs/skypilot_csv.hpp"
#include "io/catalogs/yaml_catalog.hpp"
#include "io/render/catalog_render.hpp"
#include "io/text/files.hpp"

namespace gpuplan::cli {

namespace {

// One file's counts and problems; a valid file joins `known`, so a later sheet may name its GPUs.
io::CatalogFileCheck check_file(const Context& ctx, const std::string& f, Catalog& known) {
  io::CatalogFileCheck c{f, 0, 0, 0, 0, {}};
  Catalog parsed;
  try {
    const bool csv_name = f.size() > 4 && f.compare(f.size() - 4, 4, ".csv") == 0;
    const std::string text = csv_name ? std::string() : io::read_file(f);  // .csv streams from disk
    const bool csv = csv_name || io::looks_like_skypilot_csv(text);
    if (csv) {
      io::SkypilotCsvLoad load = csv_name ? io::parse_skypilot_csv_file(f, known) : io::parse_skypilot_csv(text, f, known);
      c.problems = std::move(load.errors);
      parsed = std::move(load.catalog);
      if (!load.unmapped.empty()) {
        std::string names;
        for (const auto& u : load.unmapped) names += (names.empty() ? "" : ", ") + u;
        ctx.warn(f + ": rows left out, accelerator not in the GPU catalog: " + names);
      }
    } else {
      io::CatalogLoad load = io::parse_catalog_yaml(text, f, known);
      c.problems = std::move(load.errors);
      parsed = std::move(load.catalog);
    }
  } catch (const InputError& e) {
    c.problems.push_back(e);
  }
  c.gpus = parsed.gpus.size();
  c.models = parsed.models.size();
  c.providers = parsed.providers.size();
  c.offers = parsed.offer_count();
  if (c.problems.empty()) known.merge(std::move(parsed));
  return c;
}

}  // namespace

void setup_catalog(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand("catalog", "Check catalog files");
  cmd->footer("Example:\n  gpuplan catalog validate my-gpus.yaml my-prices.yaml");
  cmd->require_subcommand(1);
  auto files = std::make_shared<std::vector<std::string>>();
  auto* validate = cmd->add_subcommand("validate", "Report every problem in catalog files, with file and line");
  validate->add_option("files", *files, "Catalog YAML files or SkyPilot vms.csv price sheets")->required();
  add_common_options(*validate, ctx, kCatalogs);
  validate->footer("Example: gpuplan catalog validate my-gpus.yaml my-prices.yaml\nExit 0 when all files are valid, 2 otherwise.");
  on_parsed(*validate, ctx, [&ctx, files] {
    Catalog known = ctx.catalog();  // shipped data plus --catalog files: a sheet may name their GPUs
    std::vector<io::CatalogFileCheck> checks;
    for (const auto& f : *files) checks.push_back(check_file(ctx, f, known));
    ctx.print_report({io::catalog_check_json(checks), {io::catalog_check_table(checks)}, {}, {}});
    bool valid = true;
    for (const auto& c : checks)
      for (const auto& e : c.problems) {
        std::fprintf(stderr, "gpuplan: error: %s\n", e.what());
        valid = false;
      }
    return valid ? 0 : 2;
  });
}

}  // namespace gpuplan::cli
