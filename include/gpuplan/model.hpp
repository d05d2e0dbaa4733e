#pragma once
// A transformer's architecture and the parameter counts that follow from it.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace gpuplan {

enum class MlpKind { gated, plain };     // gated: gate+up+down (SwiGLU/GeGLU); plain: up+down
enum class NormKind { rmsnorm, layernorm };

struct ModelArch {
  std::string id;                  // catalog id, e.g. "llama-3.1-8b"
  std::string name;                // display name
  std::string hf_id;               // Hugging Face repo id, "" if none
  std::vector<std::string> aliases;
  std::string family;              // llama, qwen2, gemma2, gpt2, falcon, ...
  int layers = 0;
  int hidden_size = 0;
  int intermediate_size = 0;       // per expert for MoE
  int attention_heads = 0;
  int kv_heads = 0;                // == attention_heads for MHA, 1 for MQA
  int head_dim = 0;
  int vocab_size = 0;
  bool tied_embeddings = false;
  MlpKind mlp = MlpKind::gated;
  NormKind norm = NormKind::rmsnorm;
  int norms_per_layer = 2;
  bool qkv_bias = false;
  bool o_bias = false;
  bool mlp_bias = false;
  int learned_positions = 0;       // rows of a learned position embedding (GPT-2: 1024)
  int experts = 0;                 // 0 = dense
  bool causal_lm = true;           // false: an encoder with a small classification head (no vocab logits)
  int experts_per_token = 0;
  std::int64_t max_context = 0;    // tokens
  std::int64_t published_params = 0;  // the figure the catalog cites; 0 when unknown
  bool published_params_exact = false;
  bool params_only = false;        // built from --params: the architecture is assumed
  // Features of current open models; 0/false = absent (docs/catalog-format.md, `models:`).
  bool qk_norm = false;            // RMSNorm over each head's q and k (Qwen3, Gemma 3): 2 x head_dim per layer
  int first_dense_layers = 0;      // MoE models whose first layers are dense (DeepSeek-V3: 3)
  int dense_intermediate_size = 0; // MLP width of those dense layers
  int shared_experts = 0;          // experts every token passes through besides the routed ones
  bool router_bias = false;        // a per-expert bias on the gate (DeepSeek-V3 e_score_correction_bias)
  // Multi-head latent attention (DeepSeek-V2/V3): q and kv go through low-rank projections, and
  // the KV cache holds kv_lora_rank + qk_rope_head_dim values per token and layer, for all heads.
  int q_lora_rank = 0, kv_lora_rank = 0, qk_nope_head_dim = 0, qk_rope_head_dim = 0, v_head_dim = 0;
  int sliding_window = 0;          // local layers attend to the last this-many tokens; 0 = none
  int global_every = 0;            // with a window: every Nth layer is global (Gemma 3: 6); 0 = all local
  bool mla() const { return kv_lora_rank > 0; }
};

// Parameter counts by where they sit. Doubles: counts of 10^12 are exact in a double
// and the memory math is in doubles anyway.
struct ParamCounts {
  double embedding = 0;       // token (+ learned position) embeddings
  double attention = 0;       // q, k, v, o weights and biases, all layers
  double mlp = 0;             // all experts' MLP weights and biases, all layers
  double router = 0;          // MoE gates
  double norms = 0;           // per-layer and final norms
  double lm_head = 0;         // 0 when tied
  double total() const { return embedding + attention + mlp + router + norms + lm_head; }
  // Parameters in the per-layer linear projections (what LoRA targets and QLoRA quantises).
  double linear_weights = 0;
  // Parameters a token actually touches (MoE: only experts_per_token experts).
  double active = 0;
  // MLP weights and biases of the routed experts, all MoE layers: what expert parallelism
  // splits and what a decode step reads only where tokens route. Dense first layers and shared
  // experts are not in it (every token uses them).
  double routed_experts = 0;
};

ParamCounts count_params(const ModelArch& m);

// KV-cache values (not bytes) one sequence of `context` tokens holds over all layers: 2 x kv
// heads x head_dim per token and layer; sliding-window layers keep at most the window; MLA keeps
// its compressed latent plus the rope key.
double kv_cache_values(const ModelArch& m, double context);

// Layers whose MLP is a mixture of experts (all but the first dense ones; 0 for a dense model).
int moe_layers(const ModelArch& m);

// Multiply-adds one token makes in attention against `context` earlier tokens, all layers:
// heads x (query-key width + value width) per attended token. Sliding-window layers attend to
// at most the window; MLA's query-key width is qk_nope + qk_rope and its value width v_head_dim.
double attention_macs_per_token(const ModelArch& m, double context);

// Limits on an architecture's products that readers enforce, so that widths fit the int
// fields of LinearShape and counts stay far inside a double's exact range.
inline constexpr std::int64_t kMaxModelWidth = std::int64_t{1} << 20;   // heads x head_dim, hidden, ...
inline constexpr double kMaxModelParams = 1e15;
// The first problem with `m`'s shape ("attention_heads x head_dim = ... exceeds ..."), or ""
// when it is usable. Readers turn a problem into an error at the file's field.
std::string arch_problem(const ModelArch& m);

// Per-layer projection shapes, used for LoRA adapter sizes and Adafactor's factored states.
struct LinearShape {
  int in = 0;
  int out = 0;
};
struct LayerShapes {
  LinearShape q, k, v, o, gate, up, down;  // gate is {0,0} for plain MLPs
};
LayerShapes layer_shapes(const ModelArch& m);

// A model assumed from a bare parameter count: a Llama-style dense decoder whose width and
// depth follow the published Llama/Qwen scaling ladder. What was assumed is kept as values for
// the renderer to list (io/render/assumed_model_text).
struct AssumedModel {
  ModelArch arch;
  std::string shape_of;     // the published model whose width, heads and vocabulary it takes
  int shape_layers = 0;     // that model's depth (arch.layers differs between the ladder's rungs)
  double asked_params = 0;  // the count given
  double total_params = 0;  // what the assumed architecture holds
  // The MLP width reached the count (within 0.1%); false: no assumed architecture is that small.
  bool matches() const { return std::fabs(total_params - asked_params) <= 1e-3 * asked_params; }
};
AssumedModel model_from_param_count(double params);

}  // namespace gpuplan
