#pragma once
// `gpuplan prices update`: fetch each provider's SkyPilot price sheet (catalogs/v8/<cloud>/vms.csv)
// from SkyPilot's hosted catalog, a mirror (another base URL) or a local copy (a folder with
// the same layout), check it with the loader every command uses, and only then put it in the
// price cache (io/catalogs/price_cache.hpp). A provider whose download fails in any way keeps its
// previous cached sheet, byte for byte.
#include <cstdint>
#include <string>
#include <vector>

#include "gpuplan/catalog.hpp"
#include "io/catalogs/price_cache.hpp"

namespace gpuplan::io {

// SkyPilot's hosted catalog (skypilot-org/skypilot-catalog on GitHub, the URL SkyPilot itself
// downloads from: sky/clouds/service_catalog/constants.py HOSTED_CATALOG_DIR_URL) and the schema
// folder whose vms.csv layout the SkyPilot reader understands.
inline constexpr const char* kSkypilotCatalogBase = "https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master/";
inline constexpr const char* kSkypilotSchemaDir = "catalogs/v8/";

// The providers updated when none is named: those with a catalogs/v8 sheet whose GPUs the
// shipped catalog knows. A provider's id is SkyPilot's folder name for the cloud, as
// `--catalog .../<cloud>/vms.csv` names it; it replaces the shipped sheet of the same id.
std::vector<std::string> default_price_providers();

struct PriceUpdateOptions {
  std::string from = kSkypilotCatalogBase;  // base URL (http/https) or a local folder
  std::vector<std::string> providers;       // empty: default_price_providers()
  long connect_timeout_ms = 15'000;
  long total_timeout_ms = 120'000;
  std::uint64_t max_bytes = kMaxPriceSheetBytes;
  bool progress = false;
};

struct ProviderUpdate {
  using Outcome = PriceUpdateOutcome;
  std::string provider;
  std::string source;  // the URL or file asked
  Outcome outcome = Outcome::failed;
  std::string reason;  // why it failed
  std::size_t offers = 0;
  std::uint64_t bytes = 0;
  std::string checked_at;
};

// Validates the options (throws InputError naming the flag: --from not a URL nor a folder, a
// provider name with characters a folder cannot have) and updates each provider in turn.
// `known` is the shipped catalog: the GPUs sheet rows resolve against and billing terms.
std::vector<ProviderUpdate> update_prices(const PriceUpdateOptions& options, const Catalog& known, const std::string& cache_dir);

}  // namespace gpuplan::io
