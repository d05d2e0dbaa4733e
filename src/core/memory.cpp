#include "gpuplan/memory.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace gpuplan {
namespace {

bool training_method(Method m) { return m != Method::inference; }

double activation_bytes(Precision p) { return p == Precision::fp32 ? 4.0 : 2.0; }

double native_weight_bytes(Precision p) { return p == Precision::fp32 ? 4.0 : 2.0; }

double kv_bytes(KvDtype k, Precision p) {
  switch (k) {
    // fp8 compute keeps its KV cache in 16 bits unless asked (vLLM kv_cache_dtype "auto").
    case KvDtype::native: return p == Precision::fp32 ? 4.0 : 2.0;
    case KvDtype::fp16:
    case KvDtype::bf16: return 2;
    case KvDtype::fp8:
    case KvDtype::int8: return 1;
  }
  return 2;
}

// Optimizer state bytes per trainable parameter, all fp32 (except the 8-bit optimizers).
double optimizer_bytes_per_param(Optimizer o) {
  switch (o) {
    case Optimizer::adamw: return 8;
    // bitsandbytes: m and v at 1 byte each plus one fp32 absmax per 2048-value block per state.
    case Optimizer::adamw_8bit:
    case Optimizer::paged_adamw_8bit: return 2 + 2 * 4.0 / 2048;
    case Optimizer::sgd: return 0;
    case Optimizer::sgd_momentum: return 4;
    case Optimizer::lion: return 4;
    case Optimizer::adafactor: return 0;  // factored: computed from matrix shapes
  }
  return 8;
}

// Sums `per_matrix` over every LoRA-targeted projection of every layer (each expert's MLP too).
template <class PerMatrix>
double sum_over_lora_targets(const ModelArch& m, const Workload& w, PerMatrix per_matrix) {
  const LayerShapes s = layer_shapes(m);
  const double experts = m.experts > 0 ? m.experts : 1;
  double per_layer = 0;
  if (w.lora_targets & kLoraQ) per_layer += per_matrix(s.q);
  if (w.lora_targets & kLoraK) per_layer += per_matrix(s.k);
  if (w.lora_targets & kLoraV) per_layer += per_matrix(s.v);
  if (w.lora_targets & kLoraO) per_layer += per_matrix(s.o);
  if ((w.lora_targets & kLoraGate) && s.gate.in) per_layer += experts * per_matrix(s.gate);
  if (w.lora_targets & kLoraUp) per_layer += experts * per_matrix(s.up);
  if (w.lora_targets & kLoraDown) per_layer += experts * per_matrix(s.down);
  return per_layer * m.layers;
}

// Adafactor (no momentum, the Hugging Face default) keeps a row and a column statistic per
// matrix and a full second moment for vectors.
double adafactor_elems(const ModelArch& m, const Workload& w, const ParamCounts& pc) {
  const LayerShapes s = layer_shapes(m);
  auto fact = [](LinearShape l) { return static_cast<double>(l.in) + l.out; };
  const double experts = m.experts > 0 ? m.experts : 1;
  if (w.method == Method::lora || w.method == Method::qlora) {
    const double r = w.lora_rank;
    // Each adapter pair is an (in x r) and an (r x out) matrix.
    return sum_over_lora_targets(m, w, [&](LinearShape l) { return (r + l.in) + (l.out + r); });
  }
  const double per_layer = fact(s.q) + fact(s.k) + fact(s.v) + fact(s.o) +
                           experts * ((s.gate.in ? fact(s.gate) : 0) + fact(s.up) + fact(s.down));
  const int layers = w.method == Method::freeze ? std::min(w.trainable_layers, m.layers) : m.layers;
  double elems = per_layer * layers;
  // vectors (norms, biases) keep full statistics; small next to the matrices
  elems += (pc.norms / (m.layers * m.norms_per_layer + 1.0)) * (layers * m.norms_per_layer);
  if (w.method != Method::freeze) elems += (m.vocab_size + m.hidden_size) * (m.tied_embeddings ? 1.0 : 2.0);
  return elems;
}

double lora_adapter_params(const ModelArch& m, const Workload& w) {
  const double r = w.lora_rank;
  return sum_over_lora_targets(m, w, [&](LinearShape l) { return r * (static_cast<double>(l.in) + l.out); });
}

double per_layer_params(const ParamCounts& pc, const ModelArch& m) {
  return (pc.attention + pc.mlp + pc.router) / m.layers + pc.norms / (m.layers * m.norms_per_layer + 1.0) * m.norms_per_layer;
}

// Bytes autograd keeps per token for one transformer layer, from the layer's real shape.
// Baseline: Korthikanti et al. 2022 (arXiv:2205.05198) Sec. 4.1, re-derived for GQA, gated
// MLPs, no dropout, and Hugging Face's RMSNorm (which upcasts its input to fp32 and keeps it).
// A frozen linear layer needs its weight, not its input, for the input gradient, so inputs are
// counted only where a weight (or a LoRA adapter on it) is trained.
// What one norm keeps per token: Hugging Face's RMSNorm upcasts its input to fp32 and autograd
// keeps that copy; LayerNorm keeps its input. Transformer Engine's fused norms keep the 16-bit
// input and a 4-byte fp32 rsigma (and mean, for LayerNorm) per token.
double norm_input_bytes(const ModelArch& m, const Workload& w, double e) {
  const double h = m.hidden_size;
  // torchtitan's RMSNorm is Hugging Face's: _norm(x.float()).type_as(x).
  if (w.activations == ActivationProfile::megatron) return e * h + (m.norm == NormKind::rmsnorm ? 4.0 : 8.0);
  return m.norm == NormKind::rmsnorm ? 4.0 * h : e * h;
}

double layer_activation_bytes_per_token(const ModelArch& m, const Workload& w, double seq_len, bool trains_linears) {
  const double e = activation_bytes(w.precision);
  const double h = m.hidden_size;
  const double q = static_cast<double>(m.attention_heads) * m.head_dim;
  const double kv = static_cast<double>(m.kv_heads) * m.head_dim;
  const double i = m.intermediate_size;
  const double a = m.attention_heads;
  const bool lora = w.method == Method::lora || w.method == Method::qlora;
  auto saves_input = [&](unsigned target) { return trains_linears || (lora && (w.lora_targets & target)); };

  double bytes = 0;
  const bool megatron = w.activations == ActivationProfile::megatron;
  bytes += m.norms_per_layer * norm_input_bytes(m, w, e);
  // Linear inputs: qkv share one input, o takes the attention output, gate/up share one.
  if (saves_input(kLoraQ | kLoraK | kLoraV)) bytes += e * h;
  if (saves_input(kLoraGate | kLoraUp)) bytes += e * h;
  // Attention core. Flash/SDPA keep q, k, v, the output and fp32 log-sum-exp statistics;
  // eager also keeps the s x s probabilities in fp32 (softmax) and 16-bit (matmul input), and
  // under GQA the repeat_kv copies of k and v at full head count.
  // Megatron-Core runs attention in Transformer Engine's fused (flash / cuDNN) kernels.
  if (w.attention == Attention::eager && w.checkpointing != Checkpointing::selective && !megatron) {
    // fp32 softmax output, its cast to the activation dtype (none in fp32), and under dropout
    // a 1-byte mask plus the dropped copy that feeds the matmul with V.
    const double per_score = 4.0 + (e < 4 ? e : 0) + (w.dropout ? 1.0 + e : 0);
    bytes += e * 3 * q + e * q + a * seq_len * per_score;
  } else {
    bytes += e * (q + 2 * kv) + e * q + 4.0 * a;
  }
  // MLP: gated keeps gate output (act input), act output, up output and the product (down
  // input); plain keeps fc1 output (act input) and act output (down input).
  // Transformer Engine's fused SwiGLU keeps only its input, the fc1 output (gate and up).
  if (m.mlp == MlpKind::gated && megatron) bytes += e * i * 2 + (saves_input(kLoraDown) ? e * i : 0);
  else if (m.mlp == MlpKind::gated) bytes += e * i * 3 + (saves_input(kLoraDown) ? e * i : 0);
  else bytes += e * i + (saves_input(kLoraDown) ? e * i : 0);
  // Dropout after attention and after the MLP (and on the MLP hidden state in some models)
  // keeps 1-byte masks.
  if (w.dropout) bytes += 2.0 * h;
  // MoE: each token's activations go through experts_per_token experts.
  if (m.experts > 0) {
    const double mlp_part = (m.mlp == MlpKind::gated ? 4 : 2) * e * i;
    bytes += (m.experts_per_token - 1) * mlp_part + 4.0 * m.experts;  // + router logits
  }
  // LoRA dropout keeps a dropped copy of the input for each targeted projection, and every
  // adapter keeps its rank-r intermediate.
  if (lora) {
    const double r = w.lora_rank;
    const unsigned t = w.lora_targets;
    const int n_targets = __builtin_popcount(t);
    bytes += e * r * n_targets;
    if (w.lora_dropout) {
      if (t & kLoraQ) bytes += e * h;
      if (t & kLoraK) bytes += e * h;
      if (t & kLoraV) bytes += e * h;
      if (t & kLoraO) bytes += e * q;
      if (t & kLoraGate) bytes += e * h;
      if (t & kLoraUp) bytes += e * h;
      if (t & kLoraDown) bytes += e * i;
    }
  }
  return bytes;
}


// One decoder layer's matmuls in the order they run (q, k, v, o, then the dense MLP's gate, up
// and down, or fc1 and fc2), as output width and weights per token. An MoE layer's routed
// experts (grouped GEMMs) are left out: op_sac_* count them apart.
struct LayerMatmuls {
  std::array<LinearShape, 7> mm{};
  int count = 0;
};
LayerMatmuls layer_matmuls(const ModelArch& m) {
  const LayerShapes s = layer_shapes(m);
  LayerMatmuls l;
  for (LinearShape x : {s.q, s.k, s.v, s.o}) l.mm[static_cast<std::size_t>(l.count++)] = x;
  if (m.experts > 0) return l;
  if (s.gate.in) l.mm[static_cast<std::size_t>(l.count++)] = s.gate;
  l.mm[static_cast<std::size_t>(l.count++)] = s.up;
  l.mm[static_cast<std::size_t>(l.count++)] = s.down;
  return l;
}

}  // namespace

bool op_selective_checkpointing(const Workload& w) {
  return w.activations == ActivationProfile::torchtitan && w.checkpointing == Checkpointing::selective;
}

double op_sac_saved_bytes_per_token(const ModelArch& m, const Workload& w) {
  const double e = activation_bytes(w.precision);
  const double q = static_cast<double>(m.attention_heads) * m.head_dim;
  // The region's input, and the attention kernel's output with its fp32 log-sum-exp per head.
  double bytes = e * m.hidden_size + e * q + 4.0 * m.attention_heads;
  const LayerMatmuls l = layer_matmuls(m);
  for (int n = 0; n < l.count; n += 2) bytes += e * l.mm[static_cast<std::size_t>(n)].out;  // the 1st, 3rd, ...
  return bytes;
}

double op_sac_recomputed_weights(const ModelArch& m) {
  const LayerMatmuls l = layer_matmuls(m);
  double weights = 0;
  for (int n = 1; n < l.count; n += 2) weights += static_cast<double>(l.mm[static_cast<std::size_t>(n)].in) * l.mm[static_cast<std::size_t>(n)].out;
  if (m.experts > 0) {
    const LayerShapes s = layer_shapes(m);
    const double expert = static_cast<double>(s.gate.in) * s.gate.out + static_cast<double>(s.up.in) * s.up.out +
                          static_cast<double>(s.down.in) * s.down.out;
    weights += m.experts_per_token * expert;
  }
  return weights;
}

namespace {

}  // namespace

const char* to_string(MemComponent c) {
  switch (c) {
    case MemComponent::weights: return "weights";
    case MemComponent::adapters: return "adapters";
    case MemComponent::gradients: return "gradients";
    case MemComponent::optimizer: return "optimizer";
    case MemComponent::master_weights: return "master_weights";
    case MemComponent::activations: return "activations";
    case MemComponent::logits: return "logits";
    case MemComponent::kv_cache: return "kv_cache";
    case MemComponent::overhead: return "overhead";
    case MemComponent::fragmentation: return "fragmentation";
  }
  return "?";
}

double MemoryBreakdown::tensor_bytes() const {
  double sum = 0;
  for (int c = 0; c < kMemComponentCount; ++c) {
    if (c == static_cast<int>(MemComponent::overhead) || c == static_cast<int>(MemComponent::fragmentation)) continue;
    sum += bytes[static_cast<std::size_t>(c)];
  }
  return sum;
}

double MemoryBreakdown::per_gpu_bytes() const {
  double sum = 0;
  for (double b : bytes) sum += b;
  return sum;
}

double bytes_per_weight(WeightFormat f, bool double_quant) {
  switch (f) {
    case WeightFormat::native:
    case WeightFormat::bf16:
    case WeightFormat::fp16: return 2;
    case WeightFormat::fp32: return 4;
    case WeightFormat::fp8: return 1;
    case WeightFormat::int8: return 1;  // LLM.int8: plus one fp32 scale per row, negligible
    // NF4/FP4 (QLoRA, Dettmers et al. 2023): 4 bits plus one fp32 absmax per 64 weights
    // (0.5 bit/param); double quantisation stores 8-bit absmax plus an fp32 per 256 blocks.
    case WeightFormat::nf4:
    case WeightFormat::fp4: return 0.5 + (double_quant ? (1.0 / 64 + 4.0 / (64 * 256)) : 4.0 / 64);
    // GPTQ/AWQ int4, group size 128: an fp16 scale and a packed 4-bit zero per group.
    case WeightFormat::int4_gptq:
    case WeightFormat::int4_awq: return 0.5 + (2.0 + 0.5) / 128;
  }
  return 2;
}

double trainable_params(const ModelArch& m, const ParamCounts& pc, const Workload& w) {
  switch (w.method) {
    case Method::full:
    case Method::pretrain: return pc.total();
    case Method::inference: return 0;
    case Method::freeze: return per_layer_params(pc, m) * std::min(w.trainable_layers, m.layers);
    case Method::lora:
    case Method::qlora:
      return lora_adapter_params(m, w) + (w.train_embeddings ? pc.embedding + pc.lm_head : 0);
  }
  return 0;
}

// Share of the model's parameters on the busiest pipeline stage: its layers/p plus the
// embedding (first stage) or the LM head (last stage; a tied head keeps its own copy there).
// LoRA adapters live in the layers only.
double pipeline_stage_share(const ModelArch& m, const ParamCounts& pc, const Workload& w) {
  const int pp = std::max(1, w.pipeline_parallel);
  if (pp == 1 || pc.total() <= 0) return 1.0;
  if ((w.method == Method::lora || w.method == Method::qlora) && !w.train_embeddings) return 1.0 / pp;
  const double head = m.tied_embeddings ? pc.embedding : pc.lm_head;
  const double layers = pc.total() - pc.embedding - pc.lm_head;
  return (layers / pp + std::max(pc.embedding, head)) / pc.total();
}

// Activations of one micro-batch on the first pipeline stage, which holds the most: 1F1B keeps
// p micro-batches in flight there, each through layers/p layers (the whole model's worth), and
// interleaving v chunks per stage adds (p-1)/(p v) of it (Korthikanti et al. 2022, sec. 4.2.3).
// Without sequence parallelism the tensor-parallel group replicates what runs outside its
// GEMMs: the norms' inputs, dropout masks and, under full checkpointing, each layer's input.
double stage_activation_bytes(const ModelArch& m, const Workload& w, double tokens, int active_layers,
                              double per_layer) {
  const int tp = std::max(1, w.tensor_parallel);
  const int pp = std::max(1, w.pipeline_parallel);
  const double e = activation_bytes(w.precision);
  const int vp = std::max(1, w.virtual_pipeline);
  const double interleave = pp > 1 && vp > 1 ? 1.0 + (pp - 1.0) / (pp * vp) : 1.0;
  double replicated = m.norms_per_layer * norm_input_bytes(m, w, e) + (w.dropout ? 2.0 * m.hidden_size : 0.0);
  if (w.sequence_parallel || tp == 1) replicated = 0;
  double kept = 0, working = 0;
  const double whole_layer = (per_layer - replicated) / tp + replicated;
  if (op_selective_checkpointing(w)) {
    // torchtitan's op policy: each layer keeps its input (replicated across TP without sequence
    // parallelism) and its saved matmul and attention outputs (split by TP); backward holds the
    // rest of one layer again while it recomputes it.
    const double input = e * m.hidden_size;
    const double saved = std::min(per_layer, op_sac_saved_bytes_per_token(m, w));
    const double layer_kept = (saved - input) / tp + (w.sequence_parallel ? input / tp : input);
    kept = active_layers * interleave * layer_kept;
    working = std::max(0.0, whole_layer - layer_kept);
  } else if (w.checkpointing == Checkpointing::full) {
    // Each layer's input is kept; one layer at a time is recomputed in full for backward.
    const double input = e * m.hidden_size;
    kept = active_layers * interleave * (w.sequence_parallel ? input / tp : input);
    working = whole_layer;
  } else {
    kept = active_layers * interleave * whole_layer;
  }
  return tokens * (kept + working);
}

namespace {

// Weights on one GPU (by format, pipeline stage, tensor and FSDP/ZeRO-3 sharding); offloaded
// parameters are added to `cpu`.
double weight_bytes(const ModelArch& m, const ParamCounts& pc, const Workload& w, double stage, int shard, double& cpu) {
  const int tp = std::max(1, w.tensor_parallel);
  // Inference never shards weights by FSDP: a decode step needs every weight of its stage on
  // its tensor-parallel group each token (weights split by TP x PP only).
  const bool zero_params = training_method(w.method) && (w.sharding == Sharding::zero3 || w.sharding == Sharding::fsdp);
  double weights = 0;
  const double non_linear = pc.total() - pc.linear_weights;  // embeddings, lm_head, norms, biases
  if (w.method == Method::qlora) {
    const WeightFormat f = w.weight_format == WeightFormat::native ? WeightFormat::nf4 : w.weight_format;
    weights = pc.linear_weights * bytes_per_weight(f, w.double_quant) + non_linear * 2.0;  // 16-bit rest
  } else if (w.method == Method::inference && w.weight_format != WeightFormat::native) {
    weights = pc.linear_weights * bytes_per_weight(w.weight_format, w.double_quant) + non_linear * 2.0;
  } else if (w.autocast && training_method(w.method)) {
    // fp32 parameters plus the 16-bit copies autocast caches for the forward pass.
    weights = pc.total() * 4.0 + (w.precision == Precision::fp32 ? 0.0 : pc.linear_weights * 2.0);
  } else {
    weights = pc.total() * native_weight_bytes(w.precision);
  }
  weights *= stage / tp;
  if (zero_params) {
    // Each GPU keeps its shard plus the gathered parameters of about two layers (the one
    // computing and the one prefetched).
    // Layers are gathered in their stored format (NF4 stays NF4 until each linear runs).
    const double stored_bytes_per_param = weights / pc.total();
    const double layer = per_layer_params(pc, m) * stored_bytes_per_param;
    weights = weights / shard + 2 * layer;
    // torchtitan wraps each decoder layer and then the model itself (parallelize_llama.py at
    // 9dec370): the root unit's embeddings and output stay gathered from the first forward to the
    // last backward, since FSDP2 never reshards the root after forward.
    if (w.activations == ActivationProfile::torchtitan && std::max(1, w.pipeline_parallel) == 1)
      weights += (pc.embedding + pc.lm_head) * stored_bytes_per_param * (1.0 - 1.0 / shard) / tp;
  }
  if (w.offload == Offload::optimizer_params && zero_params) {
    cpu += pc.total() * native_weight_bytes(w.precision);
    weights = 2 * per_layer_params(pc, m) * native_weight_bytes(w.precision) / tp;
  }
  return weights;
}

// Logits and loss for `tokens` tokens: standard (fp32 upcast + log-softmax of all logits),
// chunked or fused cross-entropy.
double logits_bytes(const ModelArch& m, const Workload& w, double tokens, double e) {
  const double v = m.causal_lm ? m.vocab_size : 16.0;  // a classifier's handful of labels
  double logits = 0;
  switch (w.loss) {
    case Loss::standard: logits = tokens * v * (e + 8.0); break;  // logits + fp32 upcast + log-softmax
    // torchtune's CEWithChunkedOutputLoss: the 16-bit logits stay; the fp32 upcast and
    // softmax run one chunk at a time. Its README ablation (Llama 3.2 3B, 8192 tokens: -8.1
    // GiB from chunking) leaves about the 16-bit logits, not a further fp32 copy.
    case Loss::chunked: logits = tokens * v * e; break;
    case Loss::fused: {
      // Liger-style fused linear cross-entropy: fp32 logits for one chunk of
      // ceil(tokens / ceil(vocab/hidden)) tokens at a time.
      const double chunks = std::ceil(v / m.hidden_size);
      logits = std::ceil(tokens / chunks) * v * 8.0;
      break;
    }
  }
  return logits;
}

// Inference: KV cache, prefill workspace of one layer, last-token logits.
void inference_memory(const ModelArch& m, const Workload& w, MemoryBreakdown& r) {
  const int tp = std::max(1, w.tensor_parallel);
  const double seqs = static_cast<double>(w.micro_batch);
  const double ctx = static_cast<double>(w.seq_len);
  const double kv_dim = static_cast<double>(m.kv_heads) * m.head_dim;
  r[MemComponent::kv_cache] = kv_cache_bytes_per_gpu(m, w, ctx) * seqs;
  const double e = activation_bytes(w.precision);
  const double q = static_cast<double>(m.attention_heads) * m.head_dim;
  double work = seqs * ctx * e * (2.0 * m.hidden_size + q + 2 * kv_dim + 2.0 * m.intermediate_size);
  if (w.attention == Attention::eager) work += seqs * m.attention_heads * ctx * ctx * (4.0 + e);
  r[MemComponent::activations] = work / tp;
  r[MemComponent::logits] = seqs * m.vocab_size * (e + 4.0) / tp;
}

}  // namespace

int kv_cache_split(const ModelArch& m, int tp) {
  if (m.mla()) return 1;
  return std::max(1, std::min(std::max(1, tp), std::max(1, m.kv_heads)));
}

double kv_cache_element_bytes(const Workload& w) { return kv_bytes(w.kv_cache_dtype, w.precision); }

const char* kv_cache_dtype_name(const Workload& w) {
  if (w.kv_cache_dtype != KvDtype::native) return to_string(w.kv_cache_dtype);
  // native: the compute precision's 16-bit type (fp8 compute keeps a bf16 cache unless asked).
  if (w.precision == Precision::fp32) return "fp32";
  return w.precision == Precision::fp16 ? "fp16" : "bf16";
}

double kv_cache_bytes_per_gpu(const ModelArch& m, const Workload& w, double context) {
  const double stages = std::max(1, w.pipeline_parallel);
  return kv_cache_values(m, context) * kv_cache_element_bytes(w) / kv_cache_split(m, w.tensor_parallel) / stages;
}

MemoryBreakdown estimate_memory(const ModelArch& m, const ParamCounts& pc, const Workload& w) {
  MemoryBreakdown r;
  const int tp = std::max(1, w.tensor_parallel);
  const int dp = data_parallel(w);
  const int cp = std::max(1, w.context_parallel);
  // Expert parallelism keeps 1/ep of the experts' weights (and their states) on each GPU.
  const int ep = std::max(1, w.expert_parallel);
  const double experts_kept = m.experts > 0 && ep > 1 && pc.total() > 0 ? 1.0 - pc.mlp * (1.0 - 1.0 / ep) / pc.total() : 1.0;
  const double stage = pipeline_stage_share(m, pc, w) * experts_kept;
  r.data_parallel = dp;
  // ZeRO/FSDP shard over data x context parallel: CP ranks hold the same parameters, so Megatron's
  // distributed optimizer (its DP-with-CP group) and torchtitan's FSDP (the dp_shard x cp mesh)
  // split states, gradients and sharded weights across both.
  const int shard = dp * cp;
  r.params_total = pc.total();
  const double trainable = trainable_params(m, pc, w);
  r.params_trainable = trainable;
  const bool training = is_training(w.method);
  const bool lora = w.method == Method::lora || w.method == Method::qlora;
  const bool full_like = w.method == Method::full || w.method == Method::pretrain || w.method == Method::freeze;
  const bool mixed = w.precision != Precision::fp32 && !w.pure_bf16;
  const bool zero_grads = w.sharding == Sharding::zero2 || w.sharding == Sharding::zero3 || w.sharding == Sharding::fsdp;
  const bool zero_states = w.sharding != Sharding::ddp;

  double cpu = 0;
  r[MemComponent::weights] = weight_bytes(m, pc, w, stage, shard, cpu);

  if (training) {
    // --- adapters (LoRA weights, fp32: PEFT casts adapters up by default) ---------------------
    const double grad_bytes = (lora || w.autocast) ? 4.0 : (w.precision == Precision::fp32 ? 4.0 : 2.0);
    if (lora) r[MemComponent::adapters] = trainable * stage * 4.0 / tp;

    // --- gradients ------------------------------------------------------------------------------
    double grads = trainable * stage * grad_bytes / tp;
    if (zero_grads) grads /= shard;
    // Optimizer-in-backward frees each gradient once applied: about one layer's at a time.
    if (w.optimizer_in_backward) grads = std::min(grads, per_layer_params(pc, m) * grad_bytes / tp);
    // PyTorch DDP keeps bucket copies of all gradients (gradient_as_bucket_view=False default).
    if (w.sharding == Sharding::ddp && shard > 1) grads *= 2;
    // Offloading (ZeRO-Offload, FSDP CPUOffload) moves each reduced gradient shard to host
    // memory for the CPU optimizer step; about one layer's gradients stay on the GPU.
    if (w.offload != Offload::none && zero_grads) {
      const double one_layer = trainable * grad_bytes / tp / m.layers;
      cpu += grads * shard * tp * std::max(1, w.pipeline_parallel);
      grads = std::min(grads, one_layer);
    }
    r[MemComponent::gradients] = grads;

    // --- optimizer states and fp32 master weights ---------------------------------------------
    double states = w.optimizer == Optimizer::adafactor ? adafactor_elems(m, w, pc) * 4.0
                                                        : trainable * optimizer_bytes_per_param(w.optimizer);
    // torch.optim keeps moments in the parameter's dtype: pure 16-bit training (no fp32
    // master copy) halves AdamW, momentum SGD and Lion states. The 8-bit optimizers are
    // 8-bit either way, and LoRA adapters stay fp32.
    const bool moments_16bit = full_like && w.pure_bf16 && w.precision != Precision::fp32;
    if (moments_16bit && (w.optimizer == Optimizer::adamw || w.optimizer == Optimizer::sgd_momentum ||
                          w.optimizer == Optimizer::lion))
      states /= 2;
    double master = (full_like && mixed && !w.autocast) ? trainable * 4.0 : 0.0;
    states *= stage / tp;
    master *= stage / tp;
    if (zero_states) {
      states /= shard;
      master /= shard;
    }
    if (w.offload != Offload::none) {
      cpu += (states + master) * shard * tp * std::max(1, w.pipeline_parallel);
      states = 0;
      master = 0;
    }
    r[MemComponent::optimizer] = states;
    if (w.optimizer == Optimizer::paged_adamw_8bit) r.paged_bytes = states;
    r[MemComponent::master_weights] = master;

    // --- activations ------------------------------------------------------------------------------
    // Context parallelism splits each sequence's tokens across cp GPUs.
    const double tokens = static_cast<double>(w.micro_batch) * w.seq_len / cp;
    const double e = activation_bytes(w.precision);
    int active_layers = m.layers;
    if (w.method == Method::freeze) active_layers = std::min(w.trainable_layers, m.layers);
    const bool trains_linears = !lora;
    const double per_layer = layer_activation_bytes_per_token(m, w, static_cast<double>(w.seq_len), trains_linears);
    r[MemComponent::activations] = stage_activation_bytes(m, w, tokens, active_layers, per_layer);

    // --- logits and loss --------------------------------------------------------------------------
    r[MemComponent::logits] = logits_bytes(m, w, tokens, e) / tp;
  } else {
    inference_memory(m, w, r);
  }

  r.cpu_bytes = cpu;
  r[MemComponent::fragmentation] = r.tensor_bytes() * w.constants.fragmentation;
  r[MemComponent::overhead] = w.constants.overhead_bytes;
  return r;
}

std::int64_t max_micro_batch(const ModelArch& m, const ParamCounts& pc, Workload w, double capacity) {
  auto fits = [&](std::int64_t b) {
    w.micro_batch = b;
    return estimate_memory(m, pc, w).per_gpu_bytes() <= capacity;
  };
  if (!fits(1)) return 0;
  std::int64_t lo = 1, hi = 2;
  constexpr std::int64_t kCap = std::int64_t{1} << 20;
  while (hi <= kCap && fits(hi)) {
    lo = hi;
    hi *= 2;
  }
  if (hi > kCap) return lo;
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (fits(mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}

std::int64_t max_seq_len(const ModelArch& m, const ParamCounts& pc, Workload w, double capacity) {
  std::int64_t best = 0;
  std::int64_t lo = 1, hi = std::max<std::int64_t>(1, w.seq_len / 128);
  auto fits = [&](std::int64_t units) {
    w.seq_len = units * 128;
    return estimate_memory(m, pc, w).per_gpu_bytes() <= capacity;
  };
  while (lo <= hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (fits(mid)) {
      best = mid * 128;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return best;
}

}  // namespace gpuplan
