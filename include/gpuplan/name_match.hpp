#pragma once
// Matching the names people type ("RTX 4090", "h100") to catalog ids, and "did you mean".
#include <string>
#include <string_view>
#include <vector>

namespace gpuplan {

// Lowercase, with spaces, '-', '_' and '/' removed: "GeForce RTX-4090" -> "geforcertx4090".
std::string normalise_name(std::string_view name);

// normalise_name(name) == normalised, without building the string: a lookup compares every
// catalog entry, and `check` looks up a model and a GPU for each of thousands of specs.
bool normalises_to(std::string_view name, std::string_view normalised);

// Levenshtein distance, capped: returns max_distance+1 as soon as it is certain to exceed it.
int edit_distance(std::string_view a, std::string_view b, int max_distance);

// The base model a fine-tuned variant's name points to: the organisation prefix, a leading
// "Meta-", and variant words (Instruct, Chat, it, Base, hf, pt, with a release tag such as
// -2507 after them) are dropped, lowercased: "meta-llama/Meta-Llama-3.1-8B-Instruct" -> "llama-3.1-8b".
std::string base_model_name(std::string_view name);

// The candidate closest to `typed` (after normalisation) within a distance that scales with
// its length, or "" when none is close enough.
std::string closest_name(std::string_view typed, const std::vector<std::string>& candidates);

}  // namespace gpuplan
