#pragma once
// Counted nouns in messages, spelled in one place: "1 GPU", "8 GPUs".
#include <string>
#include <string_view>

namespace gpuplan {

// The count and the noun, plural (a regular English "s") unless the count is exactly one.
inline std::string count_of(long long n, std::string_view noun) {
  std::string out = std::to_string(n);
  out += ' ';
  out += noun;
  if (n != 1) out += 's';
  return out;
}

}  // namespace gpuplan
