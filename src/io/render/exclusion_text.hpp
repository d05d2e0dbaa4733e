#pragma once
// Why an offer cannot run a job, in words: the core decides the code (gpuplan/evaluate.hpp's
// Exclusion) and its numbers; estimate, compare and check print this sentence.
#include <string>

#include "gpuplan/evaluate.hpp"

namespace gpuplan::io {

// "does not fit: needs 154 GiB per GPU on 1 GPU (ddp), h100-sxm has 79 GiB usable", "no spot price", ...
std::string exclusion_text(const OfferEvaluation& e, const Gpu& gpu, Pricing pricing);

}  // namespace gpuplan::io
