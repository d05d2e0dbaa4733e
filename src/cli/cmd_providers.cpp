#include <memory>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "gpuplan/error.hpp"
#include "io/catalogs/catalog_json.hpp"
#include "io/render/catalog_render.hpp"

namespace gpuplan::cli {

namespace {

// Where a provider's prices were read: the price cache, a --catalog file, or the shipped data.
std::string sheet_origin(const Provider& p, const std::vector<std::string>& catalog_flags) {
  if (!p.cached_at.empty()) return "cache";
  for (const auto& f : catalog_flags)
    if (p.where.path == f) return "--catalog";
  return "shipped";
}

}  // namespace

void setup_providers(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand("providers", "List providers or show one price sheet");
  cmd->footer("Examples:\n  gpuplan providers list\n  gpuplan providers show digitalocean --format markdown");
  cmd->require_subcommand(1);
  auto* list = cmd->add_subcommand("list", "List every provider");
  add_common_options(*list, ctx, kCatalogs);
  on_parsed(*list, ctx, [&ctx] {
    const std::string today = today_utc();
    std::vector<io::ProviderListing> rows;
    for (const auto& p : ctx.catalog().providers) rows.push_back({&p, prices_age_days(p, today), sheet_origin(p, ctx.options.catalogs)});
    Report r;
    r.json["providers"] = io::providers_json(rows);
    r.tables.push_back(io::providers_table(rows));
    r.notes = io::providers_notes(rows);
    ctx.print_report(r);
    return 0;
  });
  auto name = std::make_shared<std::string>();
  auto* show = cmd->add_subcommand("show", "Show a provider's offers");
  show->add_option("name", *name, "Provider id")->required();
  add_common_options(*show, ctx, kCatalogs);
  on_parsed(*show, ctx, [&ctx, name] {
    auto hit = ctx.catalog().find_provider(*name);
    if (!hit.found) throw InputError(SourceLocation{}, "provider", lookup_failure("provider", *name, hit));
    const Provider& p = *hit.found;
    // Only what the format prints: a SkyPilot sheet's provider may hold a million offers.
    const Format format = ctx.format();
    Report r;
    if (format == Format::json) r.json["provider"] = io::to_json(p);
    const io::OfferRows rows = format == Format::csv ? io::OfferRows::csv : format == Format::json ? io::OfferRows::none : io::OfferRows::display;
    r.tables.push_back(io::provider_offers_table(p, rows));
    r.notes = io::provider_notes(p);
    ctx.print_report(r);
    return 0;
  });
}

}  // namespace gpuplan::cli
