#pragma once
// The physical range of numeric flags, checked where a flag's text becomes a quantity. A value
// that parses but is absurd (--mfu 1e-320, --power-price 1e308, --output-tokens 1e-320) made
// inf or NaN tok/s and costs, and flipped verdicts with exit 0. One table, so the settings table
// (#27) can take its rows over as its per-setting ranges.
#include <string>
#include <string_view>

namespace gpuplan::cli {

struct FlagRange {
  std::string_view flag;
  double min, max;
  bool percent;  // shown as 0.1% to 100% rather than 0.001 to 1
  std::string_view unit;
};

inline constexpr FlagRange kFlagRanges[] = {
    {"--mfu", 0.001, 1.0, true, ""},  // below 0.1% no real training run is measured
    {"--prompt-tokens", 1, 1e7, false, "tokens"},  // the longest context windows are ~1e7
    {"--output-tokens", 1e-3, 1e7, false, "tokens"},  // a mean: below one token is allowed, 1e-320 is not
    {"--max-output-tokens", 1, 1e7, false, "tokens"},
    {"--shared-prefix-tokens", 0, 1e7, false, "tokens"},
    {"--power-price", 0, 1e4, false, "per kWh in the display currency"},  // 1e4: room for IDR, VND
};

// `value` when it lies in `flag`'s row of kFlagRanges (or the flag has none); otherwise exits 2
// through bad_flag, naming the flag and the allowed range.
double in_flag_range(std::string_view flag, double value);

}  // namespace gpuplan::cli
