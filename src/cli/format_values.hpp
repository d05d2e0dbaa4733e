#pragma once
// Small spellings shared by the commands' tables.
#include <cstdio>
#include <optional>
#include <string>

namespace gpuplan::cli {

inline std::string num(double v, int decimals = 1) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}
inline std::string opt_num(const std::optional<double>& v, int decimals = 2) { return v ? num(*v, decimals) : "-"; }

}  // namespace gpuplan::cli
