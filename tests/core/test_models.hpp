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


// google-bert/bert-large-uncased as AutoModelForSequenceClassification (encoder, no LM head).
inline ModelArch bert_large() {
  ModelArch m;
  m.id = "bert-large-uncased";
  m.layers = 24;
  m.hidden_size = 1024;
  m.intermediate_size = 4096;
  m.attention_heads = 16;
  m.kv_heads = 16;
  m.head_dim = 64;
  m.vocab_size = 30522;
  m.learned_positions = 512;
  m.mlp = MlpKind::plain;
  m.norm = NormKind::layernorm;
  m.qkv_bias = m.o_bias = m.mlp_bias = true;
  m.tied_embeddings = true;
  m.causal_lm = false;
  m.max_context = 512;
  return m;
}

}  // namespace gpuplan::testing
