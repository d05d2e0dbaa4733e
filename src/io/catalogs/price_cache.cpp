#include "io/catalogs/price_cache.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "io/catalogs/shipped_data.hpp"
#include "io/catalogs/skypilot_csv.hpp"
#include "io/text/files.hpp"

namespace gpuplan::io {

const char* to_string(PriceUpdateOutcome o) {
  switch (o) {
    case PriceUpdateOutcome::updated: return "updated";
    case PriceUpdateOutcome::unchanged: return "unchanged";
    case PriceUpdateOutcome::failed: return "failed";
  }
  return "failed";
}
namespace fs = std::filesystem;

std::string price_cache_dir() {
  const std::string base = default_cache_dir();
  return base.empty() ? "" : (fs::path(base) / "prices").string();
}

std::string utc_timestamp_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::optional<std::string> untrusted_cache_file(const std::string& path, std::uint64_t max_bytes) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return std::string("missing");
  if (S_ISLNK(st.st_mode)) return std::string("a symbolic link");
  if (!S_ISREG(st.st_mode)) return std::string("not a regular file");
  if (st.st_uid != ::geteuid()) return "owned by uid " + std::to_string(st.st_uid) + ", not this user";
  if (st.st_mode & (S_IWGRP | S_IWOTH)) return std::string("writable by group or others");
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes)
    return std::to_string(st.st_size) + " bytes, over the " + std::to_string(max_bytes) + "-byte limit";
  return std::nullopt;
}

namespace {

bool is_timestamp(const std::string& s) {
  return s.size() == 20 && s[4] == '-' && s[7] == '-' && s[10] == 'T' && s[13] == ':' && s[16] == ':' && s[19] == 'Z' &&
         days_between(s.substr(0, 10), s.substr(0, 10)).has_value();
}

std::optional<PriceSheetMeta> meta_from_json(const std::string& text, std::string* why) {
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    *why = "meta.json is not a JSON object";
    return std::nullopt;
  }
  PriceSheetMeta m;
  auto str = [&](const char* key, std::string& out) {
    const auto it = j.find(key);
    if (it != j.end() && it->is_string()) out = it->get<std::string>();
  };
  str("provider", m.provider), str("source", m.source), str("fetched_at", m.fetched_at), str("checked_at", m.checked_at);
  str("etag", m.etag), str("last_modified", m.last_modified);
  const auto b = j.find("bytes");
  if (b != j.end() && b->is_number_unsigned()) m.bytes = b->get<std::uint64_t>();
  if (m.source.empty() || !is_timestamp(m.fetched_at) || !is_timestamp(m.checked_at)) {
    *why = "meta.json lacks source, fetched_at or checked_at";
    return std::nullopt;
  }
  return m;
}

}  // namespace

std::optional<PriceSheetMeta> read_price_meta(const std::string& provider_dir, std::string* why) {
  const std::string path = (fs::path(provider_dir) / "meta.json").string();
  if (const auto bad = untrusted_cache_file(path, kMaxPriceMetaBytes)) {
    *why = "meta.json: " + *bad;
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) {
    *why = "meta.json: cannot be read";
    return std::nullopt;
  }
  return meta_from_json(text.str(), why);
}

void write_price_meta(const std::string& provider_dir, const PriceSheetMeta& m) {
  const nlohmann::json j = {{"provider", m.provider},     {"source", m.source}, {"fetched_at", m.fetched_at},
                            {"checked_at", m.checked_at}, {"etag", m.etag},     {"last_modified", m.last_modified},
                            {"bytes", m.bytes}};
  write_file_atomic((fs::path(provider_dir) / "meta.json").string(), j.dump(2) + "\n");
}

namespace {

// The cached sheet of one provider folder, parsed against what is loaded so far; nullopt with a
// notice when it is passed over.
std::optional<Catalog> load_cached_sheet(const fs::path& dir, const Catalog& known, PriceSheetMeta& meta,
                                         std::vector<std::string>& why) {
  const std::string sheet = (dir / "vms.csv").string();
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(sheet, ec))) return std::nullopt;  // a provider never fetched successfully
  if (const auto bad = untrusted_cache_file(sheet, kMaxPriceSheetBytes)) {
    why.push_back(sheet + ": " + *bad);
    return std::nullopt;
  }
  std::string problem;
  const auto m = read_price_meta(dir.string(), &problem);
  if (!m) {
    why.push_back(dir.string() + ": " + problem);
    return std::nullopt;
  }
  meta = *m;
  if (meta.bytes != fs::file_size(sheet, ec) || ec) {
    why.push_back(sheet + ": its size does not match meta.json (an interrupted update?); run `gpuplan prices update`");
    return std::nullopt;
  }
  try {  // a cache that went bad must not stop every command: it falls back to the shipped sheet
    SkypilotCsvLoad load = parse_skypilot_csv_file(sheet, known);
    if (load.errors.empty() && !load.catalog.providers.empty()) return std::move(load.catalog);
    why.push_back(sheet + ": no longer reads as a price sheet" +
                  (load.errors.empty() ? std::string() : " (" + std::string(load.errors.front().what()) + ")"));
  } catch (const std::exception& e) {
    why.push_back(sheet + ": " + e.what());
  }
  return std::nullopt;
}

}  // namespace

bool is_price_provider_name(const std::string& name) {
  if (name.empty() || name.size() > 64 || name[0] == '.') return false;
  return std::all_of(name.begin(), name.end(), [](char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-' || ch == '.';
  });
}

std::vector<CachedPrices> merge_cached_prices(Catalog& c, const std::string& cache_dir, std::vector<std::string>* notices) {
  std::vector<CachedPrices> merged;
  if (cache_dir.empty()) return merged;
  std::vector<fs::path> dirs;
  std::error_code ec;
  for (const auto& d : fs::directory_iterator(cache_dir, ec))
    if (is_price_provider_name(d.path().filename().string()) && d.is_directory(ec) && !d.is_symlink(ec)) dirs.push_back(d.path());
  std::sort(dirs.begin(), dirs.end());  // a stable order whatever the file system's
  for (const auto& dir : dirs) {
    PriceSheetMeta meta;
    std::vector<std::string> why;
    auto sheet = load_cached_sheet(dir, c, meta, why);
    if (notices)
      for (auto& w : why) notices->push_back(w + "; using the shipped prices");
    if (!sheet) continue;
    Provider& p = sheet->providers.front();
    p.source = meta.source;
    p.prices_as_of = meta.checked_at.substr(0, 10);
    p.cached_at = meta.checked_at;
    merged.push_back({p.id, meta.source, meta.checked_at, (dir / "vms.csv").string()});
    c.merge(std::move(*sheet));
  }
  return merged;
}

}  // namespace gpuplan::io
