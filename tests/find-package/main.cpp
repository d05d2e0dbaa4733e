#include <cstdio>

#include "gpuplan/memory.hpp"

int main() {
  gpuplan::ModelArch m;
  m.layers = 32;
  m.hidden_size = 4096;
  m.intermediate_size = 14336;
  m.attention_heads = 32;
  m.kv_heads = 8;
  m.head_dim = 128;
  m.vocab_size = 128256;
  const double total = gpuplan::count_params(m).total();
  std::printf("%.0f\n", total);
  return total == 8030261248.0 ? 0 : 1;
}
