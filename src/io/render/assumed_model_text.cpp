#include "io/render/assumed_model_text.hpp"

#include <cstdio>

namespace gpuplan::io {
namespace {

// Millions to four significant figures, as the assumed model's name spells its size.
std::string millions(double params) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4gM", params / 1e6);
  return buf;
}

}  // namespace

std::vector<std::string> assumed_model_lines(const AssumedModel& x) {
  const ModelArch& a = x.arch;
  const std::string want = millions(x.asked_params), got = millions(x.total_params);
  return {
      "dense Llama-style decoder (gated SwiGLU MLP, RMSNorm, RoPE, no biases)",
      "depth " + std::to_string(a.layers) + ", hidden " + std::to_string(a.hidden_size) + ", " + std::to_string(a.attention_heads) +
          " heads, " + std::to_string(a.kv_heads) + " KV heads, vocabulary " + std::to_string(a.vocab_size) +
          (a.tied_embeddings ? " (tied embeddings)" : " (untied)") + ", as " + x.shape_of +
          (a.layers != x.shape_layers ? " at depth " + std::to_string(a.layers) + " instead of " + std::to_string(x.shape_layers) : ""),
      x.matches() ? "intermediate size " + std::to_string(a.intermediate_size) + " chosen so the total is " + got + " (asked: " + want + ")"
                  : "no assumed architecture reaches " + want + ": the smallest has " + got + " parameters",
      "activation and KV-cache memory depend on these guesses; give --model or --model-config for real figures",
  };
}

}  // namespace gpuplan::io
