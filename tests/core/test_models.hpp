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

// meta-llama/Llama-3.2-3B config.json (tied embeddings).
inline ModelArch llama32_3b() {
  ModelArch m = llama31_8b();
  m.id = "llama-3.2-3b";
  m.layers = 28;
  m.hidden_size = 3072;
  m.intermediate_size = 8192;
  m.attention_heads = 24;
  m.tied_embeddings = true;
  return m;
}

// meta-llama/Llama-3.1-70B config.json.
inline ModelArch llama31_70b() {
  ModelArch m = llama31_8b();
  m.id = "llama-3.1-70b";
  m.layers = 80;
  m.hidden_size = 8192;
  m.intermediate_size = 28672;
  m.attention_heads = 64;
  return m;
}

// meta-llama/Llama-3.1-405B config.json.
inline ModelArch llama31_405b() {
  ModelArch m = llama31_8b();
  m.id = "llama-3.1-405b";
  m.layers = 126;
  m.hidden_size = 16384;
  m.intermediate_size = 53248;
  m.attention_heads = 128;
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
