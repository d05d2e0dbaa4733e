#include <cstdio>
#include <memory>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "gpuplan/error.hpp"
#include "io/catalogs/shipped_data.hpp"
#include "io/catalogs/skypilot_csv.hpp"
#include "io/catalogs/yaml_catalog.hpp"
#include "io/text/files.hpp"

namespace gpuplan::cli {

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
    std::vector<InputError> problems;
    Report r;
    r.json["files"] = nlohmann::json::array();
    io::Table t;
    t.columns = {"file", "gpus", "models", "providers", "offers", "problems"};
    for (const auto& f : *files) {
      std::vector<InputError> mine;
      Catalog parsed;
      try {
        const bool csv_name = f.size() > 4 && f.compare(f.size() - 4, 4, ".csv") == 0;
        const std::string text = csv_name ? std::string() : io::read_file(f);  // .csv streams from disk
        const bool csv = csv_name || io::looks_like_skypilot_csv(text);
        if (csv) {
          io::SkypilotCsvLoad load = csv_name ? io::parse_skypilot_csv_file(f, known) : io::parse_skypilot_csv(text, f, known);
          mine = std::move(load.errors);
          parsed = std::move(load.catalog);
          if (!load.unmapped.empty()) {
            std::string names;
            for (const auto& u : load.unmapped) names += (names.empty() ? "" : ", ") + u;
            ctx.warn(f + ": rows left out, accelerator not in the GPU catalog: " + names);
          }
        } else {
          io::CatalogLoad load = io::parse_catalog_yaml(text, f, known);
          mine = std::move(load.errors);
          parsed = std::move(load.catalog);
        }
      } catch (const InputError& e) {
        mine.push_back(e);
      }
      nlohmann::json fj = {{"path", f}, {"valid", mine.empty()}, {"problems", nlohmann::json::array()}};
      for (const auto& e : mine)
        fj["problems"].push_back({{"line", e.where().line}, {"column", e.where().column}, {"field", e.field()}, {"message", e.problem()}});
      r.json["files"].push_back(fj);
      t.rows.push_back({f, std::to_string(parsed.gpus.size()), std::to_string(parsed.models.size()),
                        std::to_string(parsed.providers.size()), std::to_string(parsed.offer_count()), std::to_string(mine.size())});
      if (mine.empty()) known.merge(std::move(parsed));
      for (auto& e : mine) problems.push_back(std::move(e));
    }
    r.json["valid"] = problems.empty();
    r.tables.push_back(t);
    ctx.print_report(r);
    for (const auto& e : problems) std::fprintf(stderr, "gpuplan: error: %s\n", e.what());
    return problems.empty() ? 0 : 2;
  });
}

}  // namespace gpuplan::cli
