#pragma once
// The cost dashboard's alerts in words: the core gives each (gpuplan/spend.hpp's SpendAlert) as a
// kind, a subject and numbers; report's notes, HTML and JSON print this sentence.
#include <string>

#include "gpuplan/spend.hpp"

namespace gpuplan::io {

// The alert's numbers in words; money in `currency` (the report's) with two decimals, ungrouped.
std::string alert_message(const SpendAlert& a, const std::string& currency);

}  // namespace gpuplan::io
