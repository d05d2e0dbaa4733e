#include <cctype>
#include <cstdlib>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "io/catalog_json.hpp"
#include "io/files.hpp"
#include "io/shipped_data.hpp"
#include "io/skypilot_csv.hpp"
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

namespace {

bool has_csv_extension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  for (char& ch : ext) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return ext == ".csv";
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

}  // namespace

Catalog load_catalogs(const std::vector<std::string>& user_files, std::vector<std::string>* notices) {
  Catalog c = load_shipped_catalog();
  for (const auto& f : user_files) {
    const std::string text = read_file(f);
    if (has_csv_extension(f) || looks_like_skypilot_csv(text)) {
      SkypilotCsvLoad load = parse_skypilot_csv(text, f, c);
      if (!load.errors.empty()) throw InputErrors(std::move(load.errors));
      if (notices) {
        if (!load.unmapped.empty())
          notices->push_back(f + ": rows left out, accelerator not in the GPU catalog: " + joined(load.unmapped));
        for (const auto& s : load.skipped) notices->push_back(f + ": " + s);
      }
      c.merge(std::move(load.catalog));
      continue;
    }
    CatalogLoad load = parse_catalog_yaml(text, f, c);
    if (!load.errors.empty()) throw InputErrors(std::move(load.errors));
    c.merge(std::move(load.catalog));
  }
  return c;
}

}  // namespace gpuplan::io
