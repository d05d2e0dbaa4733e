#pragma once
// Where the catalogs come from: the data compiled into the binary, a data directory on disk
// (GPUPLAN_DATA_DIR, for editing shipped data without rebuilding), and user --catalog files.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpuplan/catalog.hpp"

namespace gpuplan::io {

// Every *.yaml under `dir` (gpus first, then models, providers and fx), every problem collected.
Catalog load_data_dir(const std::string& dir);

// load_data_dir through a cache in `cache_dir` (none when empty): a catalog parsed before is
// reused while every file keeps its path and content and the program is the same; any change,
// or a cache file that is corrupt, from another version, not a regular file, not owned by this
// user, writable by group or others, or over kMaxCacheBytes, parses the YAML again and rewrites
// the cache (atomically, mode 0600). `from_cache` says which happened.
Catalog load_data_dir_cached(const std::string& dir, const std::string& cache_dir, bool* from_cache = nullptr);

// The largest cache file read (the shipped catalogs' image is well under 1 MiB).
inline constexpr std::uint64_t kMaxCacheBytes = 16ull * 1024 * 1024;

// The catalog a cache file's bytes hold for `key`; nullopt when they are for other files,
// truncated, corrupt (checksum) or from another image format. Never reads outside `bytes`.
std::optional<Catalog> catalog_from_cache(std::string_view bytes, const std::string& key);

// $XDG_CACHE_HOME/gpuplan, else ~/.cache/gpuplan; "" when neither is an absolute path.
std::string default_cache_dir();

// The catalogs embedded at build time, whatever GPUPLAN_DATA_DIR says.
Catalog embedded_catalog();

// GPUPLAN_DATA_DIR when set (through the cache), else the catalogs embedded at build time.
Catalog load_shipped_catalog();

// The shipped catalog merged with each user file in order (later files override by id). A file
// named *.csv, or whose first line is a SkyPilot vms.csv header, is read as a SkyPilot price sheet;
// anything else as catalog YAML. Throws InputErrors naming file and line. When `notices` is given,
// what a SkyPilot sheet left out (unmapped accelerator names, unpriced rows) is appended to it.
Catalog load_catalogs(const std::vector<std::string>& user_files, std::vector<std::string>* notices = nullptr);

// load_catalogs with the sheets `gpuplan prices update` cached under `price_cache` (none when
// "") merged over the shipped ones first, so a --catalog file still has the last word. Cached
// sheets passed over are reported in `notices`; those used are listed in `cached`.
struct CachedPrices;
Catalog load_catalogs_with_cache(const std::vector<std::string>& user_files, const std::string& price_cache,
                                 std::vector<std::string>* notices, std::vector<CachedPrices>* cached);

}  // namespace gpuplan::io
