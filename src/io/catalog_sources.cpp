#include <cstdlib>

#include <nlohmann/json.hpp>

#include "io/catalog_json.hpp"
#include "io/shipped_data.hpp"
#include "io/yaml_catalog.hpp"

// Defined in the generated embedded_catalog.cpp, compiled into the same target.
extern "C" const char gpuplan_embedded_catalog_json[];
extern "C" const unsigned long gpuplan_embedded_catalog_json_size;

namespace gpuplan::io {

Catalog load_shipped_catalog() {
  if (const char* dir = std::getenv("GPUPLAN_DATA_DIR"); dir && *dir) return load_data_dir(dir);
  const auto j = nlohmann::json::parse(gpuplan_embedded_catalog_json,
                                       gpuplan_embedded_catalog_json + gpuplan_embedded_catalog_json_size);
  return catalog_from_json(j);
}

Catalog load_catalogs(const std::vector<std::string>& user_files) {
  Catalog c = load_shipped_catalog();
  for (const auto& f : user_files) c.merge(load_catalog_file(f, c));
  return c;
}

}  // namespace gpuplan::io
