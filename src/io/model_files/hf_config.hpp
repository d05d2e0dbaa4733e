#pragma once
// Model sources from files: a Hugging Face config.json, and safetensors headers.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/model.hpp"

namespace gpuplan::io {

// Reads config.json (llama, mistral, mixtral, qwen2, gemma, gemma2, phi3, gpt2, falcon).
ModelArch read_hf_config(const std::string& path);
ModelArch parse_hf_config(const std::string& text, const std::string& path);

// Shapes of the tensors whose Hugging Face names say what they are, gathered while a header
// streams past, so that the architecture can be inferred (safetensors_arch.cpp). Layer and
// expert numbers in a name are replaced by '*'; the first tensor of each such name is kept.
struct TensorShapes {
  std::map<std::string, std::vector<std::uint64_t>> by_name;  // "model.layers.*.self_attn.q_proj.weight" -> shape
  int layers = 0;    // 1 + the largest layer number seen
  int experts = 0;   // 1 + the largest expert number seen
};

struct WeightCount {
  double total = 0;
  std::map<std::string, double> by_dtype;  // "BF16" -> count
  int files = 0;
  long tensors = 0;
  TensorShapes shapes;
};

// Header-only read of a .safetensors file or a model.safetensors.index.json (and its shards).
inline constexpr std::uint64_t kMaxSafetensorsHeader = 100ull * 1000 * 1000;
// More parameters than any model trained (and than --params accepts) is a corrupt header.
inline constexpr double kMaxSafetensorsParams = 1e13;
// An index names at most this many shards (the largest published checkpoints have ~200).
inline constexpr std::size_t kMaxSafetensorsShards = 10000;
WeightCount read_safetensors(const std::string& path);
// For tests and fuzzing: parse a file's bytes (the header and its claims about the data).
WeightCount parse_safetensors(const std::string& bytes, std::uint64_t file_size, const std::string& path);
// For tests and fuzzing: an index's text, with its shards read from `dir`.
WeightCount parse_safetensors_index(const std::string& text, const std::string& path);

// The architecture the tensor names and shapes imply (Llama/Mistral/Qwen2/Mixtral naming), and
// what was inferred or assumed, in words. nullopt when the names are not recognised.
struct InferredModel {
  ModelArch arch;
  std::vector<std::string> notes;
};
std::optional<InferredModel> infer_architecture(const WeightCount& w);

}  // namespace gpuplan::io
