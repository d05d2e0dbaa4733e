// libFuzzer target over inputs that span files, which the single-file targets cannot reach:
// a safetensors index with its shards (self-reference, cycles, fan-out, shared shards) and a
// catalog with a --catalog overlay on top (ids resolved across files, overrides).
// The input is split at "\n%%FILE%%\n" lines: the first byte picks the mode, then the parts.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gpuplan/error.hpp"
#include "io/catalogs/yaml_catalog.hpp"
#include "io/model_files/hf_config.hpp"

namespace {

std::vector<std::string> split(const std::string& s) {
  static const std::string kSep = "\n%%FILE%%\n";
  std::vector<std::string> parts;
  std::size_t at = 0;
  while (parts.size() < 8) {
    const auto next = s.find(kSep, at);
    parts.push_back(s.substr(at, next == std::string::npos ? std::string::npos : next - at));
    if (next == std::string::npos) break;
    at = next + kSep.size();
  }
  return parts;
}

// Index in part 0; parts 1.. are written as shard names the index may mention.
void index_and_shards(const std::vector<std::string>& parts) {
  static const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("gpuplan_fuzz_multi_" + std::to_string(::getpid()));
  static const bool made = [] {
    std::filesystem::create_directories(dir);
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    });
    return true;
  }();
  (void)made;
  static const char* kNames[] = {"model.safetensors.index.json", "model-00001.safetensors", "model-00002.safetensors",
                                 "other.index.json", "model-00003.safetensors", "a.safetensors", "b.safetensors", "c.json"};
  for (std::size_t i = 0; i < 8; ++i) {
    std::ofstream out(dir / kNames[i], std::ios::binary | std::ios::trunc);
    if (i < parts.size()) out << parts[i];
  }
  try {
    (void)gpuplan::io::read_safetensors((dir / kNames[0]).string());
  } catch (const gpuplan::InputError&) {
  }
}

void catalog_overlay(const std::vector<std::string>& parts) {
  gpuplan::Catalog known;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    auto load = gpuplan::io::parse_catalog_yaml(parts[i], "part" + std::to_string(i) + ".yaml", known);
    if (load.errors.empty()) known.merge(std::move(load.catalog));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::string rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] & 1) index_and_shards(split(rest));
  else catalog_overlay(split(rest));
  return 0;
}
