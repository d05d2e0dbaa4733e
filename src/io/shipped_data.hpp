#pragma once
// Where the catalogs come from: the data compiled into the binary, a data directory on disk
// (GPUPLAN_DATA_DIR, for editing shipped data without rebuilding), and user --catalog files.
#include <string>
#include <vector>

#include "gpuplan/catalog.hpp"

namespace gpuplan::io {

// Every *.yaml under `dir` (gpus first, then models, providers and fx), every problem collected.
Catalog load_data_dir(const std::string& dir);

// GPUPLAN_DATA_DIR when set, else the catalogs embedded at build time.
Catalog load_shipped_catalog();

// The shipped catalog merged with each user file in order (later files override by id).
Catalog load_catalogs(const std::vector<std::string>& user_files);

}  // namespace gpuplan::io
