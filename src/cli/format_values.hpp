#pragma once
// The commands' spellings of numbers: see io/render/format.hpp (one place for every renderer).
#include "io/render/format.hpp"

namespace gpuplan::cli {
using io::num;
using io::opt_num;
}  // namespace gpuplan::cli
