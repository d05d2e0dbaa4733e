#include "io/shipped_data.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "io/files.hpp"
#include "io/yaml_catalog.hpp"

namespace gpuplan::io {
namespace fs = std::filesystem;

namespace {

// The .yaml files under a data directory. The walk is bounded and never throws: pointed at
// "/" it used to die with "internal error: filesystem error" somewhere in /proc.
std::vector<std::string> catalog_files(const std::string& dir) {
  constexpr int kMaxDepth = 4;
  constexpr int kMaxEntries = 10000;
  std::vector<std::string> files;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
  int seen = 0;
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (++seen > kMaxEntries)
      throw InputError({dir, 0, 0}, "", "more than " + std::to_string(kMaxEntries) +
                                            " entries: not a gpuplan data directory (GPUPLAN_DATA_DIR should name a copy of data/)");
    if (it.depth() >= kMaxDepth) it.disable_recursion_pending();
    std::error_code type_ec;
    if (it->is_regular_file(type_ec) && it->path().extension() == ".yaml") files.push_back(it->path().string());
  }
  if (ec) throw InputError({dir, 0, 0}, "", "cannot read the data directory: " + ec.message());
  if (files.empty())
    throw InputError({dir, 0, 0}, "", "no .yaml catalog files in the data directory (GPUPLAN_DATA_DIR should name a copy of data/)");
  return files;
}

}  // namespace

Catalog load_data_dir(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw InputError({dir, 0, 0}, "", "data directory not found");
  std::vector<std::string> files = catalog_files(dir);
  // GPUs before the price sheets that name them; otherwise a stable alphabetical order.
  auto rank = [&](const std::string& p) {
    const std::string rel = fs::relative(p, dir).string();
    if (rel.rfind("gpus", 0) == 0) return 0;
    if (rel.rfind("models", 0) == 0) return 1;
    if (rel.rfind("providers", 0) == 0) return 2;
    return 3;
  };
  std::sort(files.begin(), files.end(), [&](const std::string& a, const std::string& b) {
    return rank(a) != rank(b) ? rank(a) < rank(b) : a < b;
  });
  Catalog all;
  std::vector<InputError> errors;
  for (const auto& f : files) {
    try {
      CatalogLoad load = parse_catalog_yaml(read_file(f), f, all);
      for (auto& e : load.errors) errors.push_back(std::move(e));
      // Inside the shipped data an id must be unique across files, not just overridden.
      for (const auto& g : load.catalog.gpus)
        for (const auto& x : all.gpus)
          if (x.id == g.id) errors.emplace_back(g.where, "id", "GPU id '" + g.id + "' also defined at " + x.where.path + ":" + std::to_string(x.where.line));
      all.merge(std::move(load.catalog));
    } catch (const InputError& e) {
      errors.push_back(e);
    }
  }
  if (!errors.empty()) throw InputErrors(std::move(errors));
  return all;
}

}  // namespace gpuplan::io
