#pragma once
// Catalog YAML files (docs/catalog-format.md) -> Catalog values, every problem reported with
// file, line, column and field.
#include <string>
#include <vector>

#include "gpuplan/catalog.hpp"
#include "gpuplan/error.hpp"

namespace gpuplan::io {

struct CatalogLoad {
  Catalog catalog;
  std::vector<InputError> errors;  // empty on success
};

// Parses one catalog document. GPU names in offers are resolved against `known_gpus` plus the
// file's own GPUs; pass the catalog loaded so far.
CatalogLoad parse_catalog_yaml(const std::string& text, const std::string& path, const Catalog& known);

// Reads and parses a file (size-capped); throws InputErrors when anything is wrong.
Catalog load_catalog_file(const std::string& path, const Catalog& known);

}  // namespace gpuplan::io
