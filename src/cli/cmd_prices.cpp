// `gpuplan prices update`: refresh the price cache from SkyPilot's hosted catalog or a mirror.
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <optional>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "io/catalogs/shipped_data.hpp"
#include "io/fetch/price_update.hpp"
#include "io/render/prices_render.hpp"

namespace gpuplan::cli {
namespace {

struct PricesFlags {
  std::vector<std::string> providers;
  std::string from = io::kSkypilotCatalogBase;
  double timeout_s = 120;
  double connect_timeout_s = 15;
  std::uint64_t max_bytes = io::kMaxPriceSheetBytes;
};

// The fetcher's answers as the report value: counts only for a fresh sheet, a reason only for a failure.
io::PricesUpdateView update_view(const std::vector<io::ProviderUpdate>& updates, const std::string& cache) {
  io::PricesUpdateView v{cache, {}};
  for (const auto& u : updates) {
    const bool ok = u.outcome != io::ProviderUpdate::Outcome::failed;
    const bool fresh = u.outcome == io::ProviderUpdate::Outcome::updated;
    v.rows.push_back({u.provider, u.outcome, u.source, fresh ? std::optional(u.offers) : std::nullopt,
                      fresh ? std::optional(u.bytes) : std::nullopt, ok ? std::optional(u.checked_at) : std::nullopt,
                      ok ? std::nullopt : std::optional(u.reason)});
  }
  return v;
}

int run_update(const Context& ctx, const PricesFlags& f) {
  io::PriceUpdateOptions o;
  o.providers = f.providers;
  o.from = f.from;
  o.total_timeout_ms = static_cast<long>(f.timeout_s * 1000);
  o.connect_timeout_ms = static_cast<long>(f.connect_timeout_s * 1000);
  o.max_bytes = f.max_bytes;
  o.progress = !ctx.options.quiet && ::isatty(STDERR_FILENO) != 0;
  const std::string cache = io::price_cache_dir();
  const auto updates = io::update_prices(o, io::load_shipped_catalog(), cache);
  const io::PricesUpdateView view = update_view(updates, cache);
  Report r;
  r.json = io::prices_update_json(view);
  r.tables.push_back(io::prices_update_table(view));
  r.notes = io::prices_update_notes(view);
  ctx.print_report(r);
  // Errors, not warnings: -q does not hide them. The previous cache is kept; the exit says so.
  const std::vector<std::string> errors = io::prices_update_errors(view);
  for (const auto& e : errors) std::fprintf(stderr, "gpuplan: error: %s\n", e.c_str());
  return errors.empty() ? 0 : 1;
}

}  // namespace

void setup_prices(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand("prices", "Refresh the price sheets every command prices with");
  cmd->footer(
      "Examples:\n  gpuplan prices update\n  gpuplan prices update --provider runpod --provider lambda\n"
      "  gpuplan prices update --from https://mirror.example.com/skypilot-catalog/\n"
      "  gpuplan prices update --from ./skypilot-catalog   # a local copy: catalogs/v8/<cloud>/vms.csv\n\n"
      "Exit status: 0 every provider updated or unchanged; 1 one failed (its previous cache is kept); 2 bad flags.");
  cmd->require_subcommand(1);
  auto f = std::make_shared<PricesFlags>();
  auto* update = cmd->add_subcommand("update", "Download current price sheets (SkyPilot's catalogs/v8/<cloud>/vms.csv) into the cache");
  update->add_option("--provider", f->providers, "Only this provider, by SkyPilot's cloud name (repeatable; default: aws gcp lambda "
                                                 "runpod oci nebius vast cudo jarvislabs)");
  update->add_option("--from", f->from, "Base URL of a mirror, or a folder with the same catalogs/v8/<cloud>/vms.csv layout")
      ->capture_default_str();
  update->add_option("--timeout", f->timeout_s, "Give up on one download after this many seconds")
      ->check(CLI::Range(0.1, 3600.0))->capture_default_str();
  update->add_option("--connect-timeout", f->connect_timeout_s, "Give up connecting after this many seconds")
      ->check(CLI::Range(0.1, 600.0))->capture_default_str();
  update->add_option("--max-bytes", f->max_bytes, "Refuse a sheet larger than this (at most the default)")->capture_default_str();
  add_common_options(*update, ctx, kOutputOnly);
  on_parsed(*update, ctx, [&ctx, f] { return run_update(ctx, *f); });
}

}  // namespace gpuplan::cli
