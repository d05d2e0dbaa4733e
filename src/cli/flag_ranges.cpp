#include "cli/flag_ranges.hpp"

#include <cmath>
#include <cstdio>

#include "cli/common.hpp"

namespace gpuplan::cli {

double in_flag_range(std::string_view flag, double value) {
  for (const FlagRange& r : kFlagRanges) {
    if (r.flag != flag) continue;
    if (std::isfinite(value) && value >= r.min && value <= r.max) return value;
    char range[128];
    if (r.percent) std::snprintf(range, sizeof range, "%g%% to %g%%", r.min * 100, r.max * 100);
    else std::snprintf(range, sizeof range, "%g to %g%s%.*s", r.min, r.max, r.unit.empty() ? "" : " ", static_cast<int>(r.unit.size()), r.unit.data());
    char got[40];
    std::snprintf(got, sizeof got, "%g", r.percent ? value * 100 : value);
    bad_flag(std::string(flag), std::string("expected ") + range + ", got " + got + (r.percent ? "%" : ""));
  }
  return value;
}

}  // namespace gpuplan::cli
