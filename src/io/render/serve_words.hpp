#pragma once
// serve's reasons in words: why a replica or a fleet falls short of its targets, and why an
// offer cannot serve at all, from the core's codes and numbers (gpuplan/serving.hpp).
#include <string>

#include "gpuplan/serving.hpp"

namespace gpuplan::io {

// "TPOT at batch 1 is 9 ms, over the 5 ms target"; "" for ServingLimit::none.
std::string shortfall_text(const ServingShortfall& s);
// The excluded table's and JSON's why: "no spot price", "needs 8 GPUs per replica; the instance has 1".
std::string exclusion_text(const ServingExclusion& e);

}  // namespace gpuplan::io
