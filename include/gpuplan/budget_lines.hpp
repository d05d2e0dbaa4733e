#pragma once
// The spec keys whose lines check_budget's rules cite: a rule's result points at the line that
// set its key (ExperimentCheck::lines). check keeps only these per spec (80,000 specs).
#include <string_view>

namespace gpuplan {

bool rules_cite_key(std::string_view key);

}  // namespace gpuplan
