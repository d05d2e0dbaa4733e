#pragma once
// Model sources from files: a Hugging Face config.json, and safetensors headers.
#include <cstdint>
#include <map>
#include <string>

#include "gpuplan/model.hpp"

namespace gpuplan::io {

// Reads config.json (llama, mistral, mixtral, qwen2, gemma, gemma2, phi3, gpt2, falcon).
ModelArch read_hf_config(const std::string& path);
ModelArch parse_hf_config(const std::string& text, const std::string& path);

struct WeightCount {
  double total = 0;
  std::map<std::string, double> by_dtype;  // "BF16" -> count
  int files = 0;
  int tensors = 0;
};

// Header-only read of a .safetensors file or a model.safetensors.index.json (and its shards).
inline constexpr std::uint64_t kMaxSafetensorsHeader = 100ull * 1000 * 1000;
WeightCount read_safetensors(const std::string& path);
// For tests and fuzzing: parse a file's bytes (the header and its claims about the data).
WeightCount parse_safetensors(const std::string& bytes, std::uint64_t file_size, const std::string& path);

}  // namespace gpuplan::io
