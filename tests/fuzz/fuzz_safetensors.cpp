// libFuzzer target: safetensors header reader (the input is the whole file).
#include <cstddef>
#include <cstdint>
#include <string>

#include "gpuplan/error.hpp"
#include "io/model_files/hf_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  try {
    (void)gpuplan::io::parse_safetensors(bytes, bytes.size(), "model.safetensors");
  } catch (const gpuplan::InputError&) {
  }
  return 0;
}
