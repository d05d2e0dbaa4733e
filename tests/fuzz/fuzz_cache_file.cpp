// libFuzzer target: the GPUPLAN_DATA_DIR catalog cache file. Whatever bytes sit in the cache
// (a torn write, another version's image, a forgery), reading it gives a catalog or nothing:
// never a crash, a read outside the bytes, or an allocation the bytes do not justify. The
// checksum would stop most inputs at the door, so the blob decoder is also fed directly.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "io/catalogs/catalog_blob.hpp"
#include "io/catalogs/shipped_data.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  (void)gpuplan::io::catalog_from_cache(bytes, "gpuplan data cache 2\n");
  try {
    (void)gpuplan::io::catalog_from_blob(bytes.data(), bytes.size());
  } catch (const std::logic_error&) {
  }
  return 0;
}
