#pragma once
// The price cache `gpuplan prices update` fills and every pricing command reads:
// <cache>/prices/<provider>/vms.csv (a SkyPilot price sheet) beside meta.json (where and when it
// was fetched, the server's validators). <cache> is $XDG_CACHE_HOME/gpuplan, else ~/.cache/gpuplan.
// A file there is trusted only when it is a regular file (not a link), owned by this user, not
// writable by group or others, and within the size cap; anything else is passed over, with a
// warning, and the shipped sheet is used.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/catalog.hpp"

namespace gpuplan::io {

// A cached sheet larger than this is neither written nor read (AWS's vms.csv, the largest, is
// a few MiB). `prices update --max-bytes` may only lower it.
inline constexpr std::uint64_t kMaxPriceSheetBytes = 64ull * 1024 * 1024;
// meta.json is a few hundred bytes.
inline constexpr std::uint64_t kMaxPriceMetaBytes = 64 * 1024;

struct PriceSheetMeta {
  std::string provider;        // gpuplan's provider id (the folder name)
  std::string source;          // the URL or folder it was fetched from
  std::string fetched_at;      // UTC "YYYY-MM-DDTHH:MM:SSZ": when these bytes were downloaded
  std::string checked_at;      // when the source last confirmed them (a 304 moves this only)
  std::string etag;            // the server's validators, for the next conditional request
  std::string last_modified;
  std::uint64_t bytes = 0;     // the sheet's size: a sheet of another size is not this meta's
};

// What asking a provider's source did to its cached sheet: a new sheet written, the source said
// the cached one is current (HTTP 304, or the same bytes), or nothing written.
enum class PriceUpdateOutcome { updated, unchanged, failed };
const char* to_string(PriceUpdateOutcome o);  // "updated" | "unchanged" | "failed"

// A provider id usable as a cache folder: [a-z0-9.-], not starting with '.', at most 64 characters.
bool is_price_provider_name(const std::string& name);

// <default_cache_dir()>/prices; "" when neither XDG_CACHE_HOME nor HOME is an absolute path.
std::string price_cache_dir();

// Why `path` may not be trusted as a cache file (not regular, a link, another owner, group- or
// world-writable, over max_bytes), or nullopt when it may. A missing file gives "missing".
std::optional<std::string> untrusted_cache_file(const std::string& path, std::uint64_t max_bytes);

// The provider's meta.json, or nullopt with `why` set (missing, untrusted, malformed).
std::optional<PriceSheetMeta> read_price_meta(const std::string& provider_dir, std::string* why);
// Replaces the provider's meta.json atomically.
void write_price_meta(const std::string& provider_dir, const PriceSheetMeta& meta);

// A cached sheet in force: what commands report as the prices' provenance.
struct CachedPrices {
  std::string provider;
  std::string source;
  std::string checked_at;
  std::string sheet_path;
};

// Merges every trusted cached sheet under `cache_dir` into `c` (each replaces the provider of the
// same id), stamping the provider with its source, the date it was last checked as prices_as_of,
// and cached_at. Sheets passed over (untrusted, meta missing or not matching, no longer parsing)
// add a line to `notices`. Returns what was merged.
std::vector<CachedPrices> merge_cached_prices(Catalog& c, const std::string& cache_dir, std::vector<std::string>* notices);

// UTC now as "YYYY-MM-DDTHH:MM:SSZ".
std::string utc_timestamp_now();

}  // namespace gpuplan::io
