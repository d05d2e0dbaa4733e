#include "io/catalogs/shipped_data.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string_view>

#include "io/catalogs/catalog_blob.hpp"
#include "io/catalogs/yaml_catalog.hpp"
#include "io/text/files.hpp"

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

// The data directory's catalog files in load order: GPUs before the price sheets that name
// them; otherwise a stable alphabetical order.
std::vector<std::string> ordered_catalog_files(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw InputError({dir, 0, 0}, "", "data directory not found");
  std::vector<std::string> files = catalog_files(dir);
  // The walk names every file dir/...: the relative path is lexical (fs::relative resolved
  // each path's links with a readlink per component, per comparison: a quarter of a cached run).
  auto rank = [&](const std::string& p) {
    const std::string rel = fs::path(p).lexically_relative(dir).string();
    if (rel.rfind("gpus", 0) == 0) return 0;
    if (rel.rfind("models", 0) == 0) return 1;
    if (rel.rfind("providers", 0) == 0) return 2;
    return 3;
  };
  std::vector<std::pair<int, std::string>> ranked;
  for (auto& f : files) ranked.emplace_back(rank(f), std::move(f));
  std::sort(ranked.begin(), ranked.end());
  files.clear();
  for (auto& [r, f] : ranked) files.push_back(std::move(f));
  return files;
}

Catalog load_files(const std::vector<std::string>& files) {
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

std::uint64_t fnv1a(std::string_view s, std::uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

// What a cached catalog was built from: each file's path, size and content (a checksum of it:
// stat data alone is public and easily matched by a forged cache), and the program that parsed
// them (a rebuilt gpuplan may read the YAML differently).
std::string cache_key(const std::vector<std::string>& files) {
  std::string key = "gpuplan data cache 2\n";
  struct stat exe {};
  if (::stat("/proc/self/exe", &exe) != 0) return "";
  key += std::to_string(exe.st_size) + ' ' + std::to_string(exe.st_mtim.tv_sec) + '.' + std::to_string(exe.st_mtim.tv_nsec) + ' ' +
         std::to_string(exe.st_ino) + '\n';
  for (const auto& f : files) {
    std::string text;
    try {
      text = read_file(f);
    } catch (const InputError&) {
      return "";  // load_files reports it
    }
    char sum[48];
    std::snprintf(sum, sizeof sum, " %zu %016llx\n", text.size(), static_cast<unsigned long long>(fnv1a(text)));
    key += f + '\0' + sum;
  }
  return key;
}

void put_u64(std::string& out, std::uint64_t v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); }

bool get_u64(std::string_view& in, std::uint64_t& v) {
  if (in.size() < sizeof v) return false;
  std::memcpy(&v, in.data(), sizeof v);
  in.remove_prefix(sizeof v);
  return true;
}

constexpr std::string_view kCacheMagic = "gpuplan-catalog-cache\n";

// A cache file's bytes, or nullopt unless it is a regular file (not a FIFO, which would block,
// nor a link to /dev/zero, which never ends) owned by this user, writable by no one else (another
// user could otherwise plant prices) and no larger than kMaxCacheBytes.
std::optional<std::string> read_cache_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  struct stat st {};
  const bool trusted = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::geteuid() && (st.st_mode & 022) == 0 &&
                       st.st_size >= 0 && static_cast<std::uint64_t>(st.st_size) <= kMaxCacheBytes;
  std::optional<std::string> out;
  if (trusted) {
    std::string bytes(static_cast<std::size_t>(st.st_size), '\0');
    std::size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    if (done == bytes.size()) out = std::move(bytes);
  }
  ::close(fd);
  return out;
}

void write_cache(const std::string& path, const std::string& key, const Catalog& c) {
  std::string out(kCacheMagic);
  put_u64(out, key.size());
  out += key;
  const std::string blob = catalog_to_blob(c);
  put_u64(out, blob.size());
  out += blob;
  put_u64(out, fnv1a(out));
  std::error_code ec;
  const fs::path dir = fs::path(path).parent_path();
  if (!fs::exists(dir, ec) && fs::create_directories(dir, ec)) ::chmod(dir.c_str(), 0700);
  try {
    write_file_atomic(path, out);
    ::chmod(path.c_str(), 0600);  // the reader trusts only a file no one else can write
  } catch (const InputError&) {
    // A cache that cannot be written (read-only home, full disk) only costs the next run time.
  }
}

}  // namespace

std::optional<Catalog> catalog_from_cache(std::string_view v, const std::string& key) {
  std::uint64_t sum = 0, key_size = 0, blob_size = 0;
  if (v.size() < kCacheMagic.size() + 8 || v.substr(0, kCacheMagic.size()) != kCacheMagic) return std::nullopt;
  std::string_view tail = v.substr(v.size() - 8);
  if (!get_u64(tail, sum) || sum != fnv1a(v.substr(0, v.size() - 8))) return std::nullopt;
  v = v.substr(kCacheMagic.size(), v.size() - 8 - kCacheMagic.size());
  if (!get_u64(v, key_size) || key_size > v.size() || v.substr(0, key_size) != key) return std::nullopt;
  v.remove_prefix(key_size);
  if (!get_u64(v, blob_size) || blob_size != v.size()) return std::nullopt;
  try {
    return catalog_from_blob(v.data(), v.size());
  } catch (const std::logic_error&) {
    return std::nullopt;
  }
}

Catalog load_data_dir(const std::string& dir) { return load_files(ordered_catalog_files(dir)); }

std::string default_cache_dir() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && *xdg == '/') return (fs::path(xdg) / "gpuplan").string();
  const char* home = std::getenv("HOME");
  if (home && *home == '/') return (fs::path(home) / ".cache" / "gpuplan").string();
  return "";
}

Catalog load_data_dir_cached(const std::string& dir, const std::string& cache_dir, bool* from_cache) {
  if (from_cache) *from_cache = false;
  const std::vector<std::string> files = ordered_catalog_files(dir);
  const std::string key = cache_dir.empty() ? "" : cache_key(files);
  if (key.empty()) return load_files(files);
  std::error_code ec;
  const std::string canonical = fs::weakly_canonical(dir, ec).string();
  char name[64];
  std::snprintf(name, sizeof name, "catalog-%016llx.bin", static_cast<unsigned long long>(fnv1a(ec ? dir : canonical)));
  const std::string path = (fs::path(cache_dir) / name).string();
  if (const auto bytes = read_cache_file(path))
    if (auto cached = catalog_from_cache(*bytes, key)) {
      if (from_cache) *from_cache = true;
      return std::move(*cached);
    }
  Catalog c = load_files(files);  // throws on a bad file: nothing is cached then
  write_cache(path, key, c);
  return c;
}

}  // namespace gpuplan::io
