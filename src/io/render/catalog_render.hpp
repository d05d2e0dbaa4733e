#pragma once
// The catalogs' own listings: `gpus list|show`, `models list|show` and `providers list|show`.
// Each is a pure function of catalog values (and, for providers, what the command found out
// about each sheet: its age and where it was read from).
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "gpuplan/catalog.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/model.hpp"
#include "io/render/render.hpp"

namespace gpuplan::io {

// One row per GPU: memory, bandwidth, peaks, power, links and list price.
Table gpus_table(const std::vector<const Gpu*>& gpus);
// One GPU field by field, every peak precision spelled out ("unsupported" where it has none).
Table gpu_detail_table(const Gpu& g);

// One row per model: parameters (exact counts in CSV), shape, vocabulary and context.
Table models_table(const std::vector<const ModelArch*>& models);
// Where a model's parameters are: embeddings, attention, MLP, router, norms and head.
Table model_parts_table(const ModelArch& m);

// A loaded price sheet as `providers list` shows it.
struct ProviderListing {
  const Provider* provider = nullptr;
  std::optional<long> age_days;  // of its prices, as of today; none when undated
  std::string origin;            // "cache" | "--catalog" | "shipped"
};
nlohmann::json providers_json(const std::vector<ProviderListing>& rows);
Table providers_table(const std::vector<ProviderListing>& rows);
// Each cached sheet's source and fetch time, and how to list the shipped ones only.
std::vector<std::string> providers_notes(const std::vector<ProviderListing>& rows);

// A sheet's offers: only the rows the format prints (a SkyPilot sheet may hold a million).
enum class OfferRows { display, csv, none };
Table provider_offers_table(const Provider& p, OfferRows rows);
// Where the sheet came from (and when `prices update` fetched it).
std::vector<std::string> provider_notes(const Provider& p);

// `catalog validate`: what each file held (as far as it parsed) and every problem in it.
struct CatalogFileCheck {
  std::string path;
  std::size_t gpus = 0, models = 0, providers = 0, offers = 0;
  std::vector<InputError> problems;
};
// {"files": [{path, valid, problems: [{line, column, field, message}]}], "valid": all valid}
nlohmann::json catalog_check_json(const std::vector<CatalogFileCheck>& files);
Table catalog_check_table(const std::vector<CatalogFileCheck>& files);

}  // namespace gpuplan::io
