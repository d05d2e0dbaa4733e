#pragma once
// Catalog <-> JSON: the embedded form of the shipped data and the `show --format json` output.
#include <nlohmann/json.hpp>

#include "gpuplan/catalog.hpp"

namespace gpuplan::io {

nlohmann::json to_json(const Gpu& g);
nlohmann::json to_json(const ModelArch& m);
nlohmann::json to_json(const Provider& p);
// A provider's terms without its offers (`providers list`: a sheet may hold a million).
nlohmann::json terms_json(const Provider& p);
nlohmann::json to_json(const Offer& o);
nlohmann::json to_json(const Catalog& c);

// Reads what to_json(Catalog) wrote. The embedded blob was validated at build time, so a
// mismatch here is our bug and throws std::logic_error.
Catalog catalog_from_json(const nlohmann::json& j);

}  // namespace gpuplan::io
