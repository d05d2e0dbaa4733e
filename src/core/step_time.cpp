#include "gpuplan/step_time.hpp"

#include <algorithm>
#include <cmath>

#include "gpuplan/memory.hpp"
#include "gpuplan/serving.hpp"

namespace gpuplan {

namespace {

// Parameters a token multiplies through: the layers' active weights and the LM head (an
// embedding lookup is not a matmul; a tied head multiplies by the embedding matrix).
double matmul_params(const ModelArch& m, const ParamCounts& pc) {
  const double head = m.causal_lm ? (m.tied_embeddings ? static_cast<double>(m.vocab_size) * m.hidden_size : pc.lm_head) : 0;
  const double per_token = pc.active - pc.embedding - pc.lm_head;
  return std::max(0.0, per_token) + head;
}

// Where a group of GPUs sits: `size` members, `local` of them per node, while `busy` GPUs of
// each node run the same collective in their own groups and share its NICs.
struct Group {
  int size = 1;
  int local = 1;
  int busy = 1;
};

double collective_seconds(const double bytes, const double passes, const Group& g, const Links& l, const TimeConstants& k) {
  return gpuplan::collective_seconds(bytes, passes, g.size, g.local, g.busy, l, k.link_efficiency);
}

// The job's layout, Megatron's rank order: TP innermost, then CP, DP, and PP outermost.
struct Layout {
  int tp = 1, pp = 1, vp = 1, cp = 1, dp = 1;
  int per_node = 1;  // GPUs of the job on each node
  Group tp_group() const { return {tp, std::min(tp, per_node), per_node}; }
  Group cp_group() const { return {cp, std::clamp(per_node / tp, 1, cp), per_node}; }
  Group dp_group() const { return {dp, std::clamp(per_node / (tp * cp), 1, dp), per_node}; }
  // A pipeline hop leaves the node once a stage fills it.
  bool pp_crosses_nodes() const { return pp > 1 && tp * cp * dp >= per_node; }
};

Layout layout_of(const Workload& w, const Links& l) {
  Layout o;
  o.tp = std::max(1, w.tensor_parallel);
  o.pp = std::max(1, w.pipeline_parallel);
  o.vp = o.pp > 1 ? std::max(1, w.virtual_pipeline) : 1;
  o.cp = std::max(1, w.context_parallel);
  o.dp = data_parallel(w);
  o.per_node = std::max(1, std::min(std::max(1, l.gpus_per_node), std::max(1, w.gpus)));
  return o;
}

// Bytes of one activation (or its gradient) crossing a TP, CP or PP boundary. Megatron keeps
// these in 16 bits under fp8 training too.
double activation_element_bytes(Precision p) { return p == Precision::fp32 ? 4.0 : 2.0; }

// Weights in one layer's linear projections that backward never reads the input of: with a
// frozen base a linear's input-gradient needs only its weight, so recomputation under
// checkpointing can stop before the MLP's output projection (the last op of the layer) unless
// LoRA trains it. Non-reentrant torch.utils.checkpoint and compiled graphs both stop there.
double unrecomputed_layer_params(const ModelArch& m, const Workload& w) {
  if (!is_lora(w.method) || m.experts > 0 || (w.lora_targets & kLoraDown)) return 0;
  return static_cast<double>(m.hidden_size) * m.intermediate_size;
}

}  // namespace

double collective_seconds(double bytes, double passes, int size, int local_members, int busy, const Links& l,
                          double link_efficiency) {
  if (size <= 1 || bytes <= 0) return 0;
  const int local = std::max(1, std::min(local_members, size));
  const int nodes = (size + local - 1) / local;
  double t = 0;
  if (local > 1 && l.intra_node_gbps > 0) t = passes * (local - 1.0) / local * bytes / (l.intra_node_gbps * 1e9 * link_efficiency);
  if (nodes > 1) {
    // Each node's NICs carry every local group's share of the ring that spans the nodes.
    const double inter = l.inter_node_gbps > 0 ? l.inter_node_gbps : kUnknownInterNodeGbps;
    const double groups_per_node = std::max(1.0, static_cast<double>(busy) / local);
    const double node_bytes = groups_per_node * passes * (nodes - 1.0) / nodes * bytes;
    t = std::max(t, node_bytes / (inter * 1e9 * link_efficiency));
  }
  return t;
}

double host_link_gbps(const Gpu& gpu) {
  if (gpu.interconnect_kind.rfind("pcie", 0) == 0 && gpu.interconnect_gbps > 0) return gpu.interconnect_gbps;
  if (gpu.architecture == "hopper" || gpu.architecture == "blackwell") return 64;
  return 32;
}

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
  // not discounted, as the published MFU figures count it): 6 x the multiply-adds of scores and
  // values, which with MLA's unequal widths or sliding windows are not 2·H·Q·T per layer.
  const double attn = 6.0 * attention_macs_per_token(m, static_cast<double>(w.seq_len));
  TokenFlops f;
  f.model = 6.0 * n + attn;
  // A frozen base skips its weight gradients (2N of the 4N backward); LoRA's adapters are
  // tiny. As in NVIDIA's LoRA MFU convention, the skipped work is not counted as model FLOPs.
  if (is_lora(w.method)) {
    f.model -= 2.0 * n;
  } else if (w.method == Method::freeze && m.layers > 0) {
    const double frozen = 1.0 - std::min(1.0, static_cast<double>(w.trainable_layers) / m.layers);
    f.model -= 2.0 * n * frozen;
  }
  double hw = f.model;
  // Checkpointing wraps the decoder layers: recomputation reruns their forward, never the LM
  // head's, and with a frozen base stops before the layer's last projection (see above).
  const double head = n - std::max(0.0, pc.active - pc.embedding - pc.lm_head);
  const double layer_fwd = 2.0 * (n - head - m.layers * unrecomputed_layer_params(m, w));
  if (w.checkpointing == Checkpointing::full) hw += std::max(0.0, layer_fwd) + attn / 3.0;
  // torchtitan's op policy keeps the attention kernel's output and every other matmul's: the
  // matmuls in between are rerun (its pointwise ops too, which cost no GEMM time).
  else if (op_selective_checkpointing(w)) hw += 2.0 * m.layers * op_sac_recomputed_weights(m);
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
  if (w.precision == Precision::fp8) hfu *= kFp8HfuFactor;
  return hfu;
}

const char* parallel_layout_problem(const ModelArch& m, const Workload& w) {
  const int tp = std::max(1, w.tensor_parallel), pp = std::max(1, w.pipeline_parallel);
  const int cp = std::max(1, w.context_parallel), vp = std::max(1, w.virtual_pipeline);
  if (m.attention_heads > 0 && m.attention_heads % tp != 0) return "tensor parallel does not divide the attention heads";
  if (static_cast<long>(pp) * vp > std::max(1, m.layers)) return "more pipeline stages than layers";
  if (w.seq_len % cp != 0) return "context parallel does not divide the sequence length";
  if (w.gpus % (static_cast<long>(tp) * pp * cp) != 0) return "tensor x pipeline x context parallel does not divide the GPUs";
  const int ep = std::max(1, w.expert_parallel);
  if (ep > 1 && (m.experts % ep != 0 || data_parallel(w) * cp % ep != 0))
    return "expert parallel does not divide the experts and the data x context-parallel GPUs";
  return nullptr;
}

double effective_hfu(const Gpu& gpu, const Workload& w, const TimeConstants& k) {
  // Never above the hardware's peak, whatever a flag or a profile's scale asks.
  if (k.hfu > 0) return std::min(1.0, k.hfu);
  const double calibrated = k.calibrated_hfu[hfu_index(gpu.form, w.method)];
  if (calibrated > 0) return std::min(1.0, w.precision == Precision::fp8 ? calibrated * kFp8HfuFactor : calibrated);
  return std::min(1.0, default_hfu(gpu, w) * k.hfu_scale);
}

namespace {

// Collectives one micro-batch costs each GPU inside its model replica: TP all-reduces (two per
// layer forward, two backward, two more when checkpointing reruns the forward; sequence
// parallelism swaps each for a reduce-scatter + all-gather of the same volume), ring
// attention's K/V passes for CP, and pipeline hops.
struct MicroComm {
  double tp = 0;       // on the critical path, partly hidden (tp_comm_overlap)
  double ep = 0;       // MoE all-to-alls, likewise
  double hidable = 0;  // CP and PP transfers, overlapped with compute like DP buckets
};

MicroComm micro_batch_comm(const ModelArch& m, const Workload& w, const Layout& o, const Links& l,
                           const TimeConstants& k) {
  MicroComm c;
  const double tokens = static_cast<double>(w.micro_batch) * w.seq_len / o.cp;
  const double e = activation_element_bytes(w.precision);
  const double act = tokens * m.hidden_size * e;
  const double layers = static_cast<double>(m.layers) / o.pp;
  if (o.tp > 1) {
    const double per_layer = w.checkpointing == Checkpointing::full ? 6.0 : 4.0;
    c.tp = layers * per_layer * collective_seconds(act, 2, o.tp_group(), l, k);
  }
  const int ep = std::max(1, w.expert_parallel);
  if (m.experts > 0 && ep > 1) {
    // Dispatch and combine all-to-alls per MoE layer, forward and backward (and the
    // recomputed forward): each token's hidden state goes to experts_per_token experts, all but
    // 1/ep of them on other GPUs, and those beyond the node through its NICs.
    const double bytes = act * std::max(1, m.experts_per_token) / o.tp;
    // Only MoE layers exchange tokens: DeepSeek-V3's first three dense layers do not.
    const double moe_share = m.layers > 0 ? static_cast<double>(moe_layers(m)) / m.layers : 1.0;
    const int local = std::clamp(o.per_node / (o.tp * o.cp), 1, ep);
    double t = 0;
    if (local > 1 && l.intra_node_gbps > 0) t = bytes * (local - 1.0) / ep / (l.intra_node_gbps * 1e9 * k.link_efficiency);
    if (local < ep) {
      const double inter = l.inter_node_gbps > 0 ? l.inter_node_gbps : kUnknownInterNodeGbps;
      t = std::max(t, o.per_node * bytes * (ep - local) / ep / (inter * 1e9 * k.link_efficiency));
    }
    c.ep = layers * moe_share * (w.checkpointing == Checkpointing::full ? 6.0 : 4.0) * t;
  }
  if (o.cp > 1) {
    // Each GPU's K and V chunk goes round the CP ring: once forward, and K, V plus their
    // gradients backward.
    const double kv = tokens * 2.0 * m.kv_heads * m.head_dim * e / o.tp;
    c.hidable += layers * 3.0 * collective_seconds(kv * o.cp, 1, o.cp_group(), l, k);
  }
  if (o.pp > 1) {
    // Activations forward and their gradients backward, once per model chunk.
    const double share = act / o.tp;
    double bw = l.intra_node_gbps;
    if (o.pp_crosses_nodes()) bw = (l.inter_node_gbps > 0 ? l.inter_node_gbps : kUnknownInterNodeGbps) / o.per_node;
    if (bw > 0) c.hidable += 2.0 * o.vp * share / (bw * 1e9 * k.link_efficiency);
  }
  return c;
}

// Data-parallel collectives: per optimizer step (gradient reduction) and per micro-batch
// (ZeRO-3/FSDP parameter gathers for forward and backward).
struct DpComm {
  double per_step = 0;
  double per_micro = 0;
};

DpComm data_parallel_comm(const ModelArch& m, const ParamCounts& pc, const Workload& w, const Layout& o,
                          const Links& l, const TimeConstants& k) {
  DpComm c;
  const double split = static_cast<double>(o.tp) * o.pp;
  // With expert parallelism each GPU holds (and reduces) 1/ep of the routed experts; dense
  // layers' MLPs and shared experts are replicated like attention.
  const int ep = std::max(1, w.expert_parallel);
  const double experts_kept =
      m.experts > 0 && ep > 1 && pc.total() > 0 ? 1.0 - pc.routed_experts * (1.0 - 1.0 / ep) / pc.total() : 1.0;
  const double trainable = trainable_params(m, pc, w) / split * experts_kept;
  const double grad_bytes = trainable * (w.precision == Precision::fp32 || is_lora(w.method) ? 4.0 : 2.0);
  const Group g = o.dp_group();
  switch (w.sharding) {
    case Sharding::ddp:
    case Sharding::zero1:
    case Sharding::zero2: c.per_step = collective_seconds(grad_bytes, 2, g, l, k); break;  // all-reduce / RS + AG
    case Sharding::zero3:
    case Sharding::fsdp: {
      const double param_bytes = pc.total() / split * (w.precision == Precision::fp32 ? 4.0 : 2.0);
      c.per_step = collective_seconds(grad_bytes, 1, g, l, k);
      c.per_micro = collective_seconds(param_bytes, 2, g, l, k);
      break;
    }
  }
  return c;
}

// ZeRO-Offload / FSDP CPU offload: each GPU sends its gradient shard to host memory during the
// last micro-batch's backward, the CPU updates it (all GPUs of a node share the host's memory
// bandwidth), and the updated 16-bit shard comes back before the next forward. With the
// parameters offloaded too, every forward and backward (and recompute) fetches the shard.
struct OffloadCost {
  double grads_down = 0;  // hidable under the last backward
  double cpu_step = 0;    // exposed: the GPUs wait for the update
  double params_up = 0;   // exposed
  double per_micro = 0;   // parameter fetches, prefetched under compute
};

OffloadCost offload_cost(const ModelArch& m, const ParamCounts& pc, const Workload& w, const Layout& o,
                         const Gpu& gpu, const Links& l, const TimeConstants& k) {
  OffloadCost c;
  if (w.offload == Offload::none || !is_training(w.method)) return c;
  const double pcie = (l.host_link_gbps > 0 ? l.host_link_gbps : host_link_gbps(gpu)) * 1e9 * k.link_efficiency;
  const double shards = w.sharding == Sharding::ddp ? 1.0 : o.dp;
  const double shard = trainable_params(m, pc, w) / (static_cast<double>(o.tp) * o.pp) / shards;
  const double half = 2.0;  // bf16/fp16 gradients down and parameters up
  c.grads_down = shard * half / pcie;
  c.params_up = shard * half / pcie;
  // CPU Adam per parameter: reads fp32 param, grad, m, v (16 B), writes param, m, v (12 B) and
  // the 16-bit copy (2 B); about 12 FLOPs.
  const double host_params = shard * o.per_node;
  c.cpu_step = std::max(host_params * 30.0 / (k.host_memory_gbps * 1e9), host_params * 12.0 / (k.host_tflops * 1e12));
  if (w.offload == Offload::optimizer_params) {
    const double passes = w.checkpointing == Checkpointing::full ? 3.0 : 2.0;
    const double stored = pc.total() / (static_cast<double>(o.tp) * o.pp) / shards;
    c.per_micro = passes * stored * half / pcie;
  }
  return c;
}

// QLoRA keeps the base's linears in NF4 and dequantises each to 16 bits every time a matmul
// needs it: forward, backward's input gradient and, under checkpointing, the recomputed
// forward. Each pass reads the NF4 bytes and writes the 16-bit copy. Fused or compiled kernels
// (torchtune with torch.compile) stream it at the decode bandwidth: torchtune's A100 table
// measures QLoRA 8035 tokens/s against LoRA's 8210, -2.1%; this gives -1.3% for that case
// without being fitted to it. bitsandbytes' standalone kernel reaches a smaller share of the
// bandwidth (bnb_dequant_bandwidth_share, fitted to litgpt's QLoRA and LoRA timings).
double qlora_dequant_seconds(const ParamCounts& pc, const Workload& w, const Layout& o,
                             const Gpu& gpu, const TimeConstants& k) {
  if (w.method != Method::qlora) return 0;
  const WeightFormat f = w.weight_format == WeightFormat::native ? WeightFormat::nf4 : w.weight_format;
  const double passes = w.checkpointing == Checkpointing::full ? 3.0 : 2.0;
  const double weights = pc.linear_weights / (static_cast<double>(o.tp) * o.pp);
  const double share = w.qlora_backend == QloraBackend::fused ? k.bandwidth_efficiency : k.bnb_dequant_bandwidth_share;
  const double bw = gpu.memory_bandwidth_gbps * 1e9 * share;
  return bw > 0 ? passes * weights * (bytes_per_weight(f, w.double_quant) + 2.0) / bw : 0;
}

// What of `comm` hides under `window` seconds of compute.
double exposed(double comm, double window, double overlap) { return comm - std::min(comm * overlap, window); }

}  // namespace

StepTime estimate_step_time(const ModelArch& m, const ParamCounts& pc, const Workload& w, int grad_accum,
                            const Gpu& gpu, const Links& links, const TimeConstants& k) {
  StepTime s;
  const Layout o = layout_of(w, links);
  const int gpus = std::max(1, w.gpus);
  const int accum = std::max(1, grad_accum);
  s.data_parallel = o.dp;
  s.peak_tflops = peak_tflops(gpu, w.precision);
  s.hfu = effective_hfu(gpu, w, k);
  const TokenFlops f = training_flops_per_token(m, pc, w);
  const double tokens_per_micro = static_cast<double>(w.micro_batch) * w.seq_len;
  s.tokens_per_step = tokens_per_micro * accum * o.dp;
  const double achieved = s.peak_tflops * 1e12 * s.hfu;
  if (achieved <= 0) return s;
  // One micro-batch on one GPU: its share of the replica's FLOPs, plus QLoRA's dequantisation.
  double micro = tokens_per_micro * f.hardware / (static_cast<double>(o.tp) * o.pp * o.cp) / achieved;
  micro += qlora_dequant_seconds(pc, w, o, gpu, k);
  const MicroComm mc = micro_batch_comm(m, w, o, links, k);
  const DpComm dc = data_parallel_comm(m, pc, w, o, links, k);
  const OffloadCost oc = offload_cost(m, pc, w, o, gpu, links, k);
  s.tp_comm_seconds = mc.tp * accum;
  const double micro_exposed = mc.tp * (1.0 - k.tp_comm_overlap) + mc.ep * (1.0 - k.ep_comm_overlap) +
                               exposed(mc.hidable + dc.per_micro + oc.per_micro, micro, k.comm_overlap);
  const double micro_total = micro + micro_exposed;
  // 1F1B: m micro-batches plus (p-1)/v micro-batch times of fill and drain.
  const double fill = (o.pp - 1.0) / o.vp;
  s.bubble_seconds = fill * micro_total;
  s.bubble_fraction = fill / (accum + fill);
  s.compute_seconds = micro * accum;
  // Gradients are reduced (and offloaded) during the last micro-batch's backward, about two
  // thirds of its compute; on a pipeline a stage's reduction also runs while later stages drain.
  const double window = micro * 2.0 / 3.0 + s.bubble_seconds;
  const double step_exposed = exposed(dc.per_step + oc.grads_down, window, k.comm_overlap);
  s.offload_seconds = oc.cpu_step + oc.params_up;
  s.comm_seconds = (mc.tp + mc.ep + mc.hidable + dc.per_micro) * accum + dc.per_step;
  s.exposed_comm_seconds = micro_exposed * accum + step_exposed;
  s.step_seconds = micro_total * accum + s.bubble_seconds + step_exposed + s.offload_seconds;
  s.tokens_per_second = s.tokens_per_step / s.step_seconds;
  s.tokens_per_second_per_gpu = s.tokens_per_second / gpus;
  s.mfu = s.tokens_per_second_per_gpu * f.model / (s.peak_tflops * 1e12);
  s.scaling_efficiency = s.compute_seconds / s.step_seconds;
  return s;
}

DecodeTime estimate_decode(const ModelArch& m, const ParamCounts& pc, const Workload& w, const Gpu& gpu,
                           const TimeConstants& k, const std::optional<Links>& links) {
  // One decode model: serving's forward pass (src/core/serving.cpp) with this workload's weight
  // format, KV dtype, precision and tensor parallelism, the time model's bandwidth constants,
  // each sequence at half its context on average.
  ServingConfig c;
  c.workload = w;
  c.links = links;
  c.k.bandwidth_efficiency = k.bandwidth_efficiency;
  c.k.quantised_bandwidth_factor = k.quantised_bandwidth_factor;
  c.k.step_overhead_seconds = k.step_overhead_seconds;
  const double batch = static_cast<double>(std::max<std::int64_t>(1, w.micro_batch));
  const double context = static_cast<double>(std::max<std::int64_t>(1, w.seq_len));
  DecodeTime d;
  const PassTime step = decode_step(m, pc, gpu, c, batch, context / 2);
  d.step_seconds = step.seconds;
  if (std::isfinite(step.seconds) && step.seconds > 0) d.tokens_per_second = batch / step.seconds;
  const PassTime pre = prefill(m, pc, gpu, c, context, batch);
  if (std::isfinite(pre.seconds) && pre.seconds > 0) d.prefill_tokens_per_second = batch * context / pre.seconds;
  return d;
}

}  // namespace gpuplan
