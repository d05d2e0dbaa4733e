#include "io/fetch/price_update.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "gpuplan/error.hpp"
#include "io/catalogs/skypilot_csv.hpp"
#include "io/fetch/http_fetch.hpp"
#include "io/text/files.hpp"

namespace gpuplan::io {
namespace fs = std::filesystem;

std::vector<std::string> default_price_providers() {
  // Checked against skypilot-org/skypilot-catalog's catalogs/v8 folder list; "do", "fluidstack"
  // and "paperspace" have no v8 sheet, and Azure's is named on request (--provider azure).
  return {"aws", "gcp", "lambda", "runpod", "oci", "nebius", "vast", "cudo", "jarvislabs"};
}

namespace {

bool is_web_url(const std::string& s) { return s.rfind("http://", 0) == 0 || s.rfind("https://", 0) == 0; }

// A fresh temporary beside the sheet it may replace (same file system, so rename() is atomic).
struct Temp {
  std::string path;
  int fd = -1;
  explicit Temp(const fs::path& dir) {
    std::string t = (dir / ".vms.csv.XXXXXX").string();
    fd = ::mkstemp(t.data());
    if (fd >= 0) path = t;
  }
  ~Temp() {
    if (fd >= 0) ::close(fd);
    if (!path.empty()) ::unlink(path.c_str());
  }
  Temp(const Temp&) = delete;
  Temp& operator=(const Temp&) = delete;
};

// Copies a local sheet into the temporary, refusing what is not a regular file or is too large.
std::string copy_local(const std::string& source, const PriceUpdateOptions& o, Temp& tmp, std::uint64_t& bytes) {
  std::error_code ec;
  const auto st = fs::status(source, ec);
  if (ec || !fs::exists(st)) return "no such file: " + source;
  if (!fs::is_regular_file(st)) return "not a regular file: " + source;
  if (fs::file_size(source, ec) > o.max_bytes)
    return "larger than the " + std::to_string(o.max_bytes) + "-byte limit (--max-bytes)";
  std::ifstream in(source, std::ios::binary);
  char buf[1 << 16];
  while (in) {
    in.read(buf, sizeof buf);
    const auto n = static_cast<std::size_t>(in.gcount());
    if ((bytes += n) > o.max_bytes) return "larger than the " + std::to_string(o.max_bytes) + "-byte limit (--max-bytes)";
    if (n && !write_all(tmp.fd, buf, n)) return std::string("writing the cache: ") + std::strerror(errno);
  }
  if (in.bad()) return "read error: " + source;
  return "";
}

// The previous sheet's validators, when it is trusted and came from the same source.
void conditional_on(const fs::path& dir, const std::string& source, HttpGet& get) {
  std::string why;
  const auto meta = read_price_meta(dir.string(), &why);
  const std::string sheet = (dir / "vms.csv").string();
  std::error_code ec;
  if (!meta || meta->source != source || untrusted_cache_file(sheet, kMaxPriceSheetBytes) ||
      fs::file_size(sheet, ec) != meta->bytes)
    return;
  get.etag = meta->etag;
  get.last_modified = meta->last_modified;
}

// Parses the downloaded bytes with the loader every command uses; "" when they make a sheet.
std::string validate(const std::string& temp, const std::string& source, const Catalog& known, std::size_t& offers) {
  std::ifstream in(temp, std::ios::binary);
  SkypilotCsvLoad load = parse_skypilot_csv(in, source, known);
  if (!load.errors.empty()) return std::string("not a valid price sheet: ") + load.errors.front().what();
  if (load.catalog.providers.empty()) return "not a usable price sheet: no row prices a GPU the catalog knows";
  offers = load.catalog.providers.front().offers.size();
  return "";
}

// Makes <cache>/<provider>, and refuses one that is a link or another user's.
std::string provider_dir(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return "cannot create " + dir.string() + ": " + ec.message();
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return dir.string() + " is not a folder";
  if (st.st_uid != ::geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)))
    return dir.string() + " is another user's or writable by others";
  return "";
}

std::string fetch(const std::string& source, const fs::path& dir, const PriceUpdateOptions& o, Temp& tmp,
                  ProviderUpdate& u, PriceSheetMeta& meta) {
  if (!is_web_url(source)) {
    meta.last_modified.clear();
    return copy_local(source, o, tmp, u.bytes);
  }
  HttpGet get;
  get.url = source;
  get.max_bytes = o.max_bytes;
  get.connect_timeout_ms = o.connect_timeout_ms;
  get.total_timeout_ms = o.total_timeout_ms;
  get.progress = o.progress;
  get.label = u.provider;
  get.body_fd = tmp.fd;
  conditional_on(dir, source, get);
  const HttpOutcome r = http_get(get);
  u.bytes = r.bytes;
  meta.etag = r.etag;
  meta.last_modified = r.last_modified;
  if (r.status == HttpOutcome::Status::not_modified) u.outcome = ProviderUpdate::Outcome::unchanged;
  return r.status == HttpOutcome::Status::failed ? r.error : "";
}

// The sheet is installed first and its meta second; a reader that finds them disagreeing on
// the size passes the sheet over (io/catalogs/price_cache.cpp), so no crash between the two misleads.
std::string install(Temp& tmp, const fs::path& dir, PriceSheetMeta& meta) {
  if (::fchmod(tmp.fd, 0644) != 0 || ::fsync(tmp.fd) != 0) return std::string("writing the cache: ") + std::strerror(errno);
  if (::rename(tmp.path.c_str(), (dir / "vms.csv").c_str()) != 0) return std::string("renaming into the cache: ") + std::strerror(errno);
  tmp.path.clear();
  write_price_meta(dir.string(), meta);
  return "";
}

void refresh_check_time(const fs::path& dir, const std::string& now) {
  std::string why;
  auto meta = read_price_meta(dir.string(), &why);
  if (!meta) return;
  meta->checked_at = now;
  write_price_meta(dir.string(), *meta);
}

ProviderUpdate update_one(const std::string& provider, const PriceUpdateOptions& o, const Catalog& known,
                          const fs::path& cache) {
  ProviderUpdate u;
  u.provider = provider;
  const std::string rel = std::string(kSkypilotSchemaDir) + provider + "/vms.csv";
  u.source = is_web_url(o.from) ? o.from + (o.from.back() == '/' ? "" : "/") + rel : (fs::path(o.from) / rel).string();
  const fs::path dir = cache / provider;
  if ((u.reason = provider_dir(dir)) != "") return u;
  Temp tmp(dir);
  if (tmp.fd < 0) return u.reason = "cannot create a temporary file in " + dir.string() + ": " + std::strerror(errno), u;
  PriceSheetMeta meta{provider, u.source, utc_timestamp_now(), "", "", "", 0};
  meta.checked_at = u.checked_at = meta.fetched_at;
  if ((u.reason = fetch(u.source, dir, o, tmp, u, meta)) != "") return u;
  if (u.outcome == ProviderUpdate::Outcome::unchanged) {
    refresh_check_time(dir, meta.checked_at);
    return u;
  }
  if ((u.reason = validate(tmp.path, u.source, known, u.offers)) != "") return u;
  meta.bytes = u.bytes;
  if ((u.reason = install(tmp, dir, meta)) != "") return u;
  u.outcome = ProviderUpdate::Outcome::updated;
  return u;
}

void check_options(const PriceUpdateOptions& o, const std::string& cache_dir) {
  if (cache_dir.empty())
    throw InputError({}, "prices", "no cache folder: set XDG_CACHE_HOME or HOME to an absolute path");
  if (!is_web_url(o.from)) {
    if (o.from.find("://") != std::string::npos)
      throw InputError({}, "--from", "expected an http:// or https:// base URL or a folder, got \"" + o.from + "\"");
    std::error_code ec;
    if (!fs::is_directory(o.from, ec))
      throw InputError({}, "--from", "\"" + o.from + "\" is neither an http(s) URL nor a folder");
  }
  for (const auto& p : o.providers)
    if (!is_price_provider_name(p))
      throw InputError({}, "--provider", "expected a SkyPilot cloud name such as runpod or gcp, got \"" + p + "\"");
  if (o.max_bytes == 0 || o.max_bytes > kMaxPriceSheetBytes)
    throw InputError({}, "--max-bytes", "expected 1 to " + std::to_string(kMaxPriceSheetBytes));
}

}  // namespace

std::vector<ProviderUpdate> update_prices(const PriceUpdateOptions& o, const Catalog& known, const std::string& cache_dir) {
  check_options(o, cache_dir);
  std::vector<ProviderUpdate> out;
  for (const auto& p : o.providers.empty() ? default_price_providers() : o.providers) {
    // One broken provider does not stop the others; each keeps its own previous sheet.
    try {
      out.push_back(update_one(p, o, known, cache_dir));
    } catch (const std::exception& e) {
      ProviderUpdate u;
      u.provider = p;
      u.reason = e.what();
      out.push_back(u);
    }
  }
  return out;
}

}  // namespace gpuplan::io
