#pragma once
// The words of the core's price warnings (gpuplan/offer_search.hpp), the same in every command
// that prices offers: on stderr, in JSON "warnings", and in the notes of those that print them.
#include <string>
#include <vector>

#include "gpuplan/offer_search.hpp"

namespace gpuplan::io {

// "runpod: prices dated 2026-10-01, 65 days old (over --stale-after 30); check them before deciding"
std::string price_warning_text(const PriceWarning& w);
std::vector<std::string> price_warning_texts(const std::vector<PriceWarning>& ws);

}  // namespace gpuplan::io
