#include <memory>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/format_values.hpp"
#include "gpuplan/error.hpp"
#include "io/catalogs/catalog_json.hpp"

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
    Report r;
    io::Table t;
    t.columns = {"id", "name", "currency", "offers", "prices_as_of", "age_days", "from", "billing_s", "tax_rate"};
    t.csv_columns = t.columns;
    t.align = {io::Align::left, io::Align::left, io::Align::left, io::Align::right, io::Align::left, io::Align::right,
               io::Align::left, io::Align::right, io::Align::right};
    r.json["providers"] = nlohmann::json::array();
    const std::string today = today_utc();
    for (const auto& p : ctx.catalog().providers) {
      const auto age = prices_age_days(p, today);
      nlohmann::json j = io::terms_json(p);
      j["offer_count"] = p.offers.size();
      j["prices_age_days"] = age ? nlohmann::json(*age) : nlohmann::json();
      j["prices_from"] = sheet_origin(p, ctx.options.catalogs);
      j["prices_cached_at"] = p.cached_at.empty() ? nlohmann::json() : nlohmann::json(p.cached_at);
      r.json["providers"].push_back(j);
      t.rows.push_back({p.id, p.name, p.currency, std::to_string(p.offers.size()), p.prices_as_of, age ? std::to_string(*age) : "-",
                        sheet_origin(p, ctx.options.catalogs), std::to_string(p.billing_increment_seconds), opt_num(p.tax_rate, 2)});
      t.csv_rows.push_back(t.rows.back());
      t.csv_rows.back()[5] = age ? std::to_string(*age) : "";
      t.csv_rows.back().back() = io::raw(p.tax_rate);  // empty when the sheet states none
      if (!p.cached_at.empty()) r.notes.push_back(p.id + ": fetched from " + p.source + " at " + p.cached_at);
    }
    if (!r.notes.empty()) r.notes.push_back("from cache = `gpuplan prices update`; --offline lists the shipped sheets only");
    r.tables.push_back(t);
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
    io::Table t;
    t.title = p.name + " — prices per GPU-hour in " + p.currency + ", as of " + p.prices_as_of;
    t.columns = {"offer", "gpu", "gpus", "region", "on_demand", "spot", "reserved_1y", "reserved_3y"};
    t.droppable = {7, 6};  // few sheets list reserved terms; --wide shows them
    t.csv_columns = {"offer", "gpu", "gpus", "region", "on_demand_" + p.currency, "spot_" + p.currency, "reserved_1y_" + p.currency,
                     "reserved_3y_" + p.currency};
    t.align = {io::Align::left, io::Align::left, io::Align::right, io::Align::left, io::Align::right, io::Align::right,
               io::Align::right, io::Align::right};
    for (const auto& o : p.offers) {
      if (format == Format::csv)
        t.csv_rows.push_back({o.id, o.gpu, std::to_string(o.gpus), o.region, io::raw(o.price(Pricing::on_demand)),
                              io::raw(o.price(Pricing::spot)), io::raw(o.price(Pricing::reserved_1y)),
                              io::raw(o.price(Pricing::reserved_3y))});
      else if (format != Format::json)
        t.rows.push_back({o.id, o.gpu, std::to_string(o.gpus), o.region, opt_num(o.price(Pricing::on_demand), 4),
                          opt_num(o.price(Pricing::spot), 4), opt_num(o.price(Pricing::reserved_1y), 4),
                          opt_num(o.price(Pricing::reserved_3y), 4)});
    }
    r.tables.push_back(std::move(t));
    r.notes.push_back("source: " + p.source + (p.cached_at.empty() ? "" : " (`gpuplan prices update`, fetched " + p.cached_at + ")"));
    ctx.print_report(r);
    return 0;
  });
}

}  // namespace gpuplan::cli
