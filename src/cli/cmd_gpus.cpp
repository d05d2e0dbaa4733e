#include <memory>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/format_values.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/units.hpp"
#include "io/catalogs/catalog_json.hpp"

namespace gpuplan::cli {
namespace {

io::Table gpu_table(const std::vector<const Gpu*>& gpus) {
  io::Table t;
  t.columns = {"id", "name", "form", "memory_gib", "bandwidth_gbps", "bf16_tflops", "fp8_tflops", "tdp_w", "interconnect", "price_usd"};
  t.csv_columns = {"id", "name", "form", "memory_gib", "bandwidth_gbps", "bf16_tflops", "fp8_tflops", "tdp_w", "interconnect",
                   "interconnect_gbps", "price_usd"};
  t.droppable = {1, 2, 8};  // the id is what a user types; --wide adds the name, form and links
  t.align = {io::Align::left, io::Align::left, io::Align::left, io::Align::right, io::Align::right, io::Align::right,
             io::Align::right, io::Align::right, io::Align::left, io::Align::right};
  for (const Gpu* g : gpus) {
    auto tf = [&](PeakPrecision p) { return g->tflops(p) > 0 ? num(g->tflops(p), 1) : std::string("-"); };
    t.rows.push_back({g->id, g->name, to_string(g->form), num(static_cast<double>(g->memory_bytes) / kGiB, 0),
                      num(g->memory_bandwidth_gbps, 0), tf(PeakPrecision::bf16), tf(PeakPrecision::fp8),
                      num(g->tdp_watts, 0), g->interconnect_kind + " " + num(g->interconnect_gbps, 0) + " GB/s",
                      g->price_usd ? num(*g->price_usd, 0) : "-"});
    t.csv_rows.push_back({g->id, g->name, to_string(g->form), io::raw(static_cast<double>(g->memory_bytes) / kGiB), io::raw(g->memory_bandwidth_gbps),
                          io::raw(g->tflops(PeakPrecision::bf16)), g->tflops(PeakPrecision::fp8) > 0 ? io::raw(g->tflops(PeakPrecision::fp8)) : "",
                          io::raw(g->tdp_watts), g->interconnect_kind, io::raw(g->interconnect_gbps), io::raw(g->price_usd)});
  }
  return t;
}

}  // namespace

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
    r.tables.push_back(gpu_table(all));
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
    io::Table t = gpu_table({&g});
    io::Table detail;
    detail.title = g.name + " (" + g.id + ")";
    detail.columns = {"field", "value"};
    detail.rows.push_back({"memory", format_gib(static_cast<double>(g.memory_bytes), 0)});
    detail.rows.push_back({"memory bandwidth", num(g.memory_bandwidth_gbps, 0) + " GB/s"});
    for (int p = 0; p < kPeakPrecisionCount; ++p) {
      const auto prec = static_cast<PeakPrecision>(p);
      detail.rows.push_back({std::string(to_string(prec)) + " dense peak",
                             g.tflops(prec) > 0 ? num(g.tflops(prec), 1) + (prec == PeakPrecision::int8 ? " TOPS" : " TFLOPS")
                                                : "unsupported"});
    }
    detail.rows.push_back({"TDP", num(g.tdp_watts, 0) + " W"});
    detail.rows.push_back({"interconnect", g.interconnect_kind + ", " + num(g.interconnect_gbps, 0) + " GB/s per GPU each way"});
    detail.rows.push_back({"ECC", g.ecc ? "yes" : "no"});
    detail.rows.push_back({"list price", g.price_usd ? "$" + num(*g.price_usd, 0) : "no public figure"});
    std::string aliases;
    for (const auto& a : g.aliases) aliases += (aliases.empty() ? "" : ", ") + a;
    detail.rows.push_back({"aliases", aliases.empty() ? "-" : aliases});
    r.tables.push_back(t);
    r.tables.push_back(detail);
    ctx.print_report(r);
    return 0;
  });
}

}  // namespace gpuplan::cli
