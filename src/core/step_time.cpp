#include "gpuplan/step_time.hpp"

#include <algorithm>
#include <cmath>

#include "gpuplan/memory.hpp"

namespace gpuplan {

namespace {

// Parameters a token multiplies through: the layers' active weights and the LM head (an
// embedding lookup is not a matmul; a tied head multiplies by the embedding matrix).
double matmul_params(const ModelArch& m, const ParamCounts& pc) {
  const double head = m.causal_lm ? (m.tied_embeddings ? static_cast<double>(m.vocab_size) * m.hidden_size : pc.lm_head) : 0;
  const double per_token = pc.active - pc.embedding - pc.lm_head;
  return std::max(0.0, per_token) + head;
}

// Ring all-reduce / reduce-scatter / all-gather time for `bytes` over the job's links.
double ring_seconds(double bytes, double passes, int gpus, const Links& l, const TimeConstants& k) {
  if (gpus <= 1 || bytes <= 0) return 0;
  const double share = passes * (gpus - 1.0) / gpus * bytes;
  double t = 0;
  if (l.intra_node_gbps > 0) t = share / (l.intra_node_gbps * 1e9 * k.link_efficiency);
  const int nodes = (gpus + l.gpus_per_node - 1) / std::max(1, l.gpus_per_node);
  if (nodes > 1) {
    // Every node's NICs carry the whole ring's traffic once.
    const double inter = l.inter_node_gbps > 0 ? l.inter_node_gbps : 1.25;  // 10 GbE when unknown
    t = std::max(t, share / (inter * 1e9 * k.link_efficiency));
  }
  return t;
}

}  // namespace

double peak_tflops(const Gpu& gpu, Precision p) {
  switch (p) {
    case Precision::fp32: return gpu.tflops(PeakPrecision::tf32) > 0 ? gpu.tflops(PeakPrecision::tf32) : gpu.tflops(PeakPrecision::fp32);
    case Precision::fp16: return gpu.tflops(PeakPrecision::fp16);
    case Precision::bf16: return gpu.tflops(PeakPrecision::bf16);
    case Precision::fp8: return gpu.tflops(PeakPrecision::fp8);
  }
  return 0;
}

TokenFlops training_flops_per_token(const ModelArch& m, const ParamCounts& pc, const Workload& w) {
  const double n = matmul_params(m, pc);
  // PaLM's attention term: 12·L·H·Q·T for forward + backward (6·L·H·Q·T forward, causal mask
  // not discounted, as the published MFU figures count it).
  const double attn = 12.0 * m.layers * m.attention_heads * m.head_dim * static_cast<double>(w.seq_len);
  TokenFlops f;
  f.model = 6.0 * n + attn;
  const double fwd = 2.0 * n + attn / 3.0;
  // A frozen base skips its weight gradients (2N of the 4N backward); LoRA's adapters are
  // tiny. As in NVIDIA's LoRA MFU convention, the skipped work is not counted as model FLOPs.
  if (is_lora(w.method)) {
    f.model -= 2.0 * n;
  } else if (w.method == Method::freeze && m.layers > 0) {
    const double frozen = 1.0 - std::min(1.0, static_cast<double>(w.trainable_layers) / m.layers);
    f.model -= 2.0 * n * frozen;
  }
  double hw = f.model;
  if (w.checkpointing == Checkpointing::full) hw += fwd;
  else if (w.checkpointing == Checkpointing::selective) hw += attn / 3.0;
  f.hardware = hw;
  return f;
}

double default_hfu(const Gpu& gpu, const Workload& w) {
  // Published single-node runs reach 47-66% of dense bf16 peak (llm-foundry MPT-7B on H100 and
  // A100, NeMo Llama 3 8B SFT/LoRA/pre-training on H100; recomputation counted as work):
  // 0.55 is their middle. Consumer cards fill their fewer SMs more easily (torchtune on a 4090
  // implies ~0.64). See README "time model" for the cases.
  double hfu = 0.55;
  if (gpu.form != GpuForm::datacentre) hfu += 0.05;
  // fp8 GEMMs run at a lower fraction of their doubled peak: casts and scaling are not free.
  if (w.precision == Precision::fp8) hfu *= 0.7;
  return hfu;
}

StepTime estimate_step_time(const ModelArch& m, const ParamCounts& pc, const Workload& w, int grad_accum,
                            const Gpu& gpu, const Links& links, const TimeConstants& k) {
  StepTime s;
  const int tp = std::max(1, w.tensor_parallel);
  const int gpus = std::max(1, w.gpus);
  const int dp = std::max(1, gpus / tp);
  const int accum = std::max(1, grad_accum);
  s.peak_tflops = peak_tflops(gpu, w.precision);
  s.hfu = k.hfu > 0 ? k.hfu : default_hfu(gpu, w);
  const TokenFlops f = training_flops_per_token(m, pc, w);
  const double tokens_per_gpu_step = static_cast<double>(w.micro_batch) * w.seq_len * accum;
  s.tokens_per_step = tokens_per_gpu_step * dp;
  const double achieved = s.peak_tflops * 1e12 * s.hfu;
  if (achieved <= 0) return s;
  double compute = tokens_per_gpu_step * f.hardware / tp / achieved;
  if (w.method == Method::qlora) compute *= k.qlora_slowdown;
  s.compute_seconds = compute;

  // Collectives per optimizer step. Gradients are reduced once per step (accumulation runs
  // under no_sync); ZeRO-3/FSDP also gather parameters for every micro-batch's forward and
  // backward. Tensor parallelism's activation all-reduces stay inside the node and are folded
  // into the utilisation.
  const double trainable = trainable_params(m, pc, w) / tp;
  const double grad_bytes = trainable * (w.precision == Precision::fp32 || is_lora(w.method) ? 4.0 : 2.0);
  double comm = 0;
  Links dp_links = links;
  switch (w.sharding) {
    case Sharding::ddp:
    case Sharding::zero1: comm = ring_seconds(grad_bytes, 2, dp, dp_links, k); break;  // all-reduce
    case Sharding::zero2: comm = ring_seconds(grad_bytes, 2, dp, dp_links, k); break;  // reduce-scatter + all-gather
    case Sharding::zero3:
    case Sharding::fsdp: {
      const double param_bytes = pc.total() / tp * (w.precision == Precision::fp32 ? 4.0 : 2.0);
      comm = ring_seconds(grad_bytes, 1, dp, dp_links, k) + accum * ring_seconds(param_bytes, 2, dp, dp_links, k);
      break;
    }
  }
  s.comm_seconds = comm;
  // Backward is about two thirds of the step's compute; that is what collectives hide under.
  const double hideable = std::min(comm * k.comm_overlap, compute * 2.0 / 3.0);
  s.exposed_comm_seconds = comm - hideable;
  s.step_seconds = compute + s.exposed_comm_seconds;
  s.tokens_per_second = s.tokens_per_step / s.step_seconds;
  s.tokens_per_second_per_gpu = s.tokens_per_second / gpus;
  s.mfu = s.tokens_per_second_per_gpu * f.model / (s.peak_tflops * 1e12);
  s.scaling_efficiency = compute / s.step_seconds;
  return s;
}

DecodeTime estimate_decode(const ModelArch& m, const ParamCounts& pc, const Workload& w, const Gpu& gpu,
                           const TimeConstants& k) {
  DecodeTime d;
  const int tp = std::max(1, w.tensor_parallel);
  const MemoryBreakdown mem = estimate_memory(m, pc, w);
  // Each decode step reads every weight once (MoE: only the routed experts, bounded by all of
  // them) and each sequence's KV cache at its average length, half the context.
  // An untied embedding table is looked up, not read: one row per token.
  const double lookup_only = m.tied_embeddings ? 0.0 : pc.embedding * (w.precision == Precision::fp32 ? 4.0 : 2.0) / tp;
  const double weights = std::max(0.0, mem[MemComponent::weights] - lookup_only) *
                         (pc.total() > 0 ? std::min(1.0, pc.active / pc.total()) : 1.0);
  const double kv = mem[MemComponent::kv_cache] / 2;
  double bw = gpu.memory_bandwidth_gbps * 1e9 * k.bandwidth_efficiency;
  // fp8 weights on cards with fp8 tensor cores are used as they are; everything narrower (or
  // fp8 elsewhere) is dequantised in the kernel.
  const bool native_fp8 = w.weight_format == WeightFormat::fp8 && gpu.tflops(PeakPrecision::fp8) > 0;
  const bool dequantises = w.weight_format != WeightFormat::native && w.weight_format != WeightFormat::fp16 &&
                           w.weight_format != WeightFormat::bf16 && w.weight_format != WeightFormat::fp32 && !native_fp8;
  if (dequantises) bw *= k.quantised_bandwidth_factor;
  const double peak = peak_tflops(gpu, w.precision == Precision::fp32 ? Precision::fp32 : Precision::fp16) * 1e12;
  const double n = matmul_params(m, pc) / tp;
  const double batch = static_cast<double>(w.micro_batch);
  const double memory_time = bw > 0 ? (weights + kv) / bw : 0;
  const double compute_time = peak > 0 ? batch * 2.0 * n / (peak * 0.5) : 0;
  d.step_seconds = std::max(memory_time, compute_time);
  if (d.step_seconds > 0) d.tokens_per_second = batch / d.step_seconds;
  const double hfu = k.hfu > 0 ? k.hfu : 0.5;
  const double prefill_flops = 2.0 * matmul_params(m, pc) + 4.0 * m.layers * m.attention_heads * m.head_dim *
                                                                static_cast<double>(w.seq_len) / 2;
  if (peak > 0) d.prefill_tokens_per_second = peak * tp * hfu / prefill_flops;
  return d;
}

}  // namespace gpuplan
