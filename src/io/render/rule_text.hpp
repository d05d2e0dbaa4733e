#pragma once
// The budget gate's words: each rule's verdict (gpuplan/budget.hpp's RuleResult, numbers and
// names) as the sentence check's table, CSV, JSON and annotations print.
#include <string>

#include "gpuplan/budget.hpp"

namespace gpuplan::io {

// The numbers of `r` in words; money in `currency` (the policy's) with two decimals, ungrouped,
// so a sentence reads the same in every format.
std::string rule_message(const RuleResult& r, const std::string& currency);

}  // namespace gpuplan::io
