// libFuzzer target: every quantity parser on the same text.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "gpuplan/units.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)gpuplan::parse_count(text);
  (void)gpuplan::parse_bytes(text, gpuplan::BareGUnit::gib);
  (void)gpuplan::parse_seconds(text);
  (void)gpuplan::parse_fraction(text);
  (void)gpuplan::parse_money(text);
  (void)gpuplan::parse_int(text, 1, std::int64_t{1} << 40);
  return 0;
}
