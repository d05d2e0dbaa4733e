#pragma once
// The commands' spellings of numbers: see io/format.hpp (one place for every renderer).
#include "io/format.hpp"

namespace gpuplan::cli {
using io::num;
using io::opt_num;
}  // namespace gpuplan::cli
