// libFuzzer target: the catalog YAML loader must report, never crash, hang or throw anything
// but its own errors.
#include <cstddef>
#include <cstdint>
#include <string>

#include "io/catalogs/yaml_catalog.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  (void)gpuplan::io::parse_catalog_yaml(text, "fuzz.yaml", gpuplan::Catalog{});
  return 0;
}
