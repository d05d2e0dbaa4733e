#include <cctype>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>

#include <sys/stat.h>


#include "io/catalogs/catalog_blob.hpp"
#include "io/catalogs/price_cache.hpp"
#include "io/catalogs/shipped_data.hpp"
#include "io/catalogs/skypilot_csv.hpp"
#include "io/catalogs/yaml_catalog.hpp"
#include "io/text/files.hpp"

// Defined in the generated embedded_catalog.cpp, compiled into the same target.
extern "C" const char gpuplan_embedded_catalog[];
extern "C" const unsigned long gpuplan_embedded_catalog_size;

namespace gpuplan::io {

Catalog embedded_catalog() { return catalog_from_blob(gpuplan_embedded_catalog, gpuplan_embedded_catalog_size); }

Catalog load_shipped_catalog() {
  if (const char* dir = std::getenv("GPUPLAN_DATA_DIR"); dir && *dir) return load_data_dir_cached(dir, default_cache_dir());
  return embedded_catalog();
}

namespace {

bool has_csv_extension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  for (char& ch : ext) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return ext == ".csv";
}

// "2026-11-30" from a file's modification time (UTC).
std::string mtime_date(const std::filesystem::path& p) {
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) return "unknown";
  std::tm tm{};
  gmtime_r(&st.st_mtime, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

}  // namespace

std::string skypilot_cache_sheet(const std::string& spec) {
  const std::string cloud = spec.substr(std::string("skypilot:").size());
  bool ok = !cloud.empty();
  for (char ch : cloud) ok = ok && (std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_');
  if (!ok) throw InputError({spec, 0, 0}, "", "expected skypilot:<cloud>, e.g. skypilot:gcp");
  const char* home = std::getenv("HOME");
  const std::filesystem::path root = std::filesystem::path(home && *home ? home : ".") / ".sky" / "catalogs";
  // SkyPilot keeps one folder per catalog schema version (v5, v6, ... v8): take the newest that has the cloud.
  std::error_code ec;
  std::string best;
  int best_version = -1;
  for (const auto& d : std::filesystem::directory_iterator(root, ec)) {
    const std::string name = d.path().filename().string();
    if (name.size() < 2 || name[0] != 'v' || name.find_first_not_of("0123456789", 1) != std::string::npos || name.size() > 6) continue;
    const int v = std::stoi(name.substr(1));
    const auto sheet = d.path() / cloud / "vms.csv";
    if (v > best_version && std::filesystem::is_regular_file(sheet, ec)) {
      best_version = v;
      best = sheet.string();
    }
  }
  if (best.empty())
    throw InputError({spec, 0, 0}, "", "no " + (root / "v*" / cloud / "vms.csv").string() +
                                            " (SkyPilot writes it on first use, e.g. `sky show-gpus --cloud " + cloud + "`)");
  return best;
}

namespace {

Catalog merge_user_files(Catalog c, const std::vector<std::string>& user_files, std::vector<std::string>* notices) {
  for (const auto& spec : user_files) {
    const bool cache = spec.rfind("skypilot:", 0) == 0;
    const std::string f = cache ? skypilot_cache_sheet(spec) : spec;
    const bool csv = cache || has_csv_extension(f);
    const std::string text = csv ? std::string() : read_file(f);
    if (csv || looks_like_skypilot_csv(text)) {
      SkypilotCsvLoad load = csv ? parse_skypilot_csv_file(f, c) : parse_skypilot_csv(text, f, c);
      if (cache && !load.catalog.providers.empty()) {
        // A cached sheet is as fresh as SkyPilot's last download of it.
        load.catalog.providers[0].prices_as_of = mtime_date(f);
        load.catalog.providers[0].where.path = spec;  // what the user named (`--sheet skypilot:gcp`)
        if (notices) notices->push_back(f + ": SkyPilot's cached catalog, downloaded " + load.catalog.providers[0].prices_as_of + " (file date)");
      }
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

}  // namespace

Catalog load_catalogs(const std::vector<std::string>& user_files, std::vector<std::string>* notices) {
  return merge_user_files(load_shipped_catalog(), user_files, notices);
}

Catalog load_catalogs_with_cache(const std::vector<std::string>& user_files, const std::string& price_cache,
                                 std::vector<std::string>* notices, std::vector<CachedPrices>* cached) {
  Catalog c = load_shipped_catalog();
  auto used = merge_cached_prices(c, price_cache, notices);
  if (cached) *cached = std::move(used);
  return merge_user_files(std::move(c), user_files, notices);
}

}  // namespace gpuplan::io
