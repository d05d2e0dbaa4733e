#include <cstdio>

#include "gpuplan/memory.hpp"
#include "io/catalogs/shipped_data.hpp"
#include "io/emit/emit.hpp"

// Uses each exported library through its installed headers: core (parameter count), data
// (the embedded catalogs) and io (an emitter).
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
  const gpuplan::Catalog c = gpuplan::io::load_shipped_catalog();
  std::printf("%zu GPUs\n", c.gpus.size());
  const std::string quoted = gpuplan::io::shell_quote("a b");
  return total == 8030261248.0 && !c.gpus.empty() && quoted == "'a b'" ? 0 : 1;
}
