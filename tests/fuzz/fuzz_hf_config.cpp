// libFuzzer target: Hugging Face config.json reader.
#include <cstddef>
#include <cstdint>
#include <string>

#include "gpuplan/error.hpp"
#include "io/model_files/hf_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const gpuplan::ModelArch m = gpuplan::io::parse_hf_config(text, "config.json");
    (void)gpuplan::count_params(m);
  } catch (const gpuplan::InputError&) {
  }
  return 0;
}
