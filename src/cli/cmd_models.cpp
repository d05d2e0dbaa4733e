#include <memory>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/format_values.hpp"
#include "cli/model_source.hpp"
#include "gpuplan/units.hpp"
#include "io/catalogs/catalog_json.hpp"

namespace gpuplan::cli {
namespace {

io::Table model_table(const std::vector<const ModelArch*>& models) {
  io::Table t;
  t.columns = {"id", "name", "family", "params", "active", "layers", "hidden", "heads", "kv_heads", "vocab", "context"};
  t.csv_columns = t.columns;  // params and active as exact counts, not "8.03B"
  t.droppable = {1, 2};        // the id is what a user types; --wide adds the name and family
  t.align = {io::Align::left, io::Align::left, io::Align::left, io::Align::right, io::Align::right, io::Align::right,
             io::Align::right, io::Align::right, io::Align::right, io::Align::right, io::Align::right};
  for (const ModelArch* m : models) {
    const ParamCounts pc = count_params(*m);
    t.rows.push_back({m->id, m->name, m->family, format_count(pc.total()), format_count(pc.active),
                      std::to_string(m->layers), std::to_string(m->hidden_size), std::to_string(m->attention_heads),
                      std::to_string(m->kv_heads), std::to_string(m->vocab_size), std::to_string(m->max_context)});
    t.csv_rows.push_back(t.rows.back());
    t.csv_rows.back()[3] = std::to_string(static_cast<long long>(pc.total()));
    t.csv_rows.back()[4] = std::to_string(static_cast<long long>(pc.active));
  }
  return t;
}

}  // namespace

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
    r.tables.push_back(model_table(all));
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
    const ParamCounts pc = count_params(m);
    Report r;
    r.json["model"] = io::to_json(m);
    r.json["assumptions"] = rm.assumptions;
    r.tables.push_back(model_table({&m}));
    io::Table parts;
    parts.title = "Parameters of " + m.name;
    parts.columns = {"part", "params", "share"};
    parts.align = {io::Align::left, io::Align::right, io::Align::right};
    auto row = [&](const char* n, double v) {
      parts.rows.push_back({n, format_count(v), num(100.0 * v / pc.total(), 1) + "%"});
    };
    row("embeddings", pc.embedding);
    row("attention", pc.attention);
    row("mlp", pc.mlp);
    if (pc.router > 0) row("router", pc.router);
    row("norms", pc.norms);
    row("lm_head", pc.lm_head);
    parts.rows.push_back({"total", std::to_string(static_cast<long long>(pc.total())), "100.0%"});
    r.tables.push_back(parts);
    for (const auto& a : rm.assumptions) r.notes.push_back("assumed: " + a);
    ctx.print_report(r);
    return 0;
  });
}

}  // namespace gpuplan::cli
