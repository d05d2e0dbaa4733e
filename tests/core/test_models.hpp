#pragma once
// Architectures the core tests share, written out so a test never depends on data/.
#include "gpuplan/model.hpp"

namespace gpuplan::testing {

// meta-llama/Llama-3.1-8B config.json.
inline ModelArch llama31_8b() {
  ModelArch m;
  m.id = "llama-3.1-8b";
  m.layers = 32;
  m.hidden_size = 4096;
  m.intermediate_size = 14336;
  m.attention_heads = 32;
  m.kv_heads = 8;
  m.head_dim = 128;
  m.vocab_size = 128256;
  m.max_context = 131072;
  return m;
}

}  // namespace gpuplan::testing
