#include "gpuplan/serving.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "gpuplan/memory.hpp"
#include "gpuplan/step_time.hpp"
#include "gpuplan/units.hpp"

namespace gpuplan {

namespace {

int tp_of(const ServingConfig& c) { return std::max(1, c.workload.tensor_parallel); }
int pp_of(const ServingConfig& c) { return std::max(1, c.workload.pipeline_parallel); }


// A pipeline runs a token through its stages one after another: each GPU reads its stage's
// share, so one pass reads, in sequence, what one tensor-parallel group would read holding the
// whole model. Speed is computed on that flat layout; the stages add only their hops.
ServingConfig flat(const ServingConfig& c) {
  ServingConfig f = c;
  f.workload.pipeline_parallel = 1;
  f.workload.virtual_pipeline = 1;
  return f;
}

Workload inference_workload(const ServingConfig& c, std::int64_t seqs, std::int64_t seq_len) {
  Workload w = c.workload;
  w.method = Method::inference;
  w.micro_batch = std::max<std::int64_t>(1, seqs);
  w.seq_len = std::max<std::int64_t>(1, seq_len);
  return w;
}

double activation_bytes(Precision p) { return p == Precision::fp32 ? 4.0 : 2.0; }

// Parameters a token multiplies through (as the time model): layers' active weights plus the
// LM head; the embedding lookup is not a matmul.
double matmul_params(const ModelArch& m, const ParamCounts& pc) {
  const double head = m.causal_lm ? (m.tied_embeddings ? static_cast<double>(m.vocab_size) * m.hidden_size : pc.lm_head) : 0;
  return std::max(0.0, pc.active - pc.embedding - pc.lm_head) + head;
}

bool fp8_compute(const Gpu& gpu, const ServingConfig& c) {
  return c.workload.weight_format == WeightFormat::fp8 && gpu.tflops(PeakPrecision::fp8) > 0;
}

bool dequantises(const Gpu& gpu, const ServingConfig& c) {
  switch (c.workload.weight_format) {
    case WeightFormat::native:
    case WeightFormat::fp32:
    case WeightFormat::fp16:
    case WeightFormat::bf16: return false;
    case WeightFormat::fp8: return !fp8_compute(gpu, c);  // weight-only fp8 (Marlin) without fp8 tensor cores
    default: return true;
  }
}

double bandwidth(const Gpu& gpu, const ServingConfig& c) {
  double bw = gpu.memory_bandwidth_gbps * 1e9 * c.k.bandwidth_efficiency;
  if (dequantises(gpu, c)) bw *= c.k.quantised_bandwidth_factor;
  return bw;
}

double achieved_flops(const Gpu& gpu, const ServingConfig& c) {
  double u = c.k.compute_utilization + (gpu.form != GpuForm::datacentre ? c.k.consumer_compute_bonus : 0.0);
  if (fp8_compute(gpu, c)) u *= c.k.fp8_compute_factor;
  return serving_peak_tflops(gpu, c) * 1e12 * std::min(1.0, u);
}

// Attention FLOPs per token attending to `context` tokens: QK^T and AV, 2 FLOPs per MAC.
double attention_flops(const ModelArch& m, double context) {
  return 2.0 * attention_macs_per_token(m, context);
}

// What joins one replica's GPUs: the configured links (job_links), else the GPU's own link with
// the whole replica in one node.
Links replica_links(const Gpu& gpu, const ServingConfig& c) {
  if (c.links) return *c.links;
  Links l;
  l.gpus_per_node = tp_of(c) * pp_of(c);
  l.intra_node_gbps = gpu.interconnect_gbps;
  return l;
}

// GPUs of one replica on each node: a replica fills a node before it spans the next.
int replica_per_node(const Links& l, const ServingConfig& c) { return std::max(1, std::min(tp_of(c) * pp_of(c), l.gpus_per_node)); }

// Two all-reduces per layer of `tokens` hidden states, over the links the TP group crosses:
// inside a node its link, across nodes the nodes' network (collective_seconds, as training).
double tp_comm_seconds(const ModelArch& m, const Gpu& gpu, const ServingConfig& c, double tokens) {
  const int tp = tp_of(c);
  if (tp <= 1) return 0;
  const Links l = replica_links(gpu, c);
  const int local = std::min(tp, replica_per_node(l, c));
  const double bytes = tokens * m.hidden_size * activation_bytes(c.workload.precision);
  const double per = c.k.allreduce_latency_seconds + collective_seconds(bytes, 2, tp, local, local, l, c.k.link_efficiency);
  return 2.0 * m.layers * per;
}

// Pipeline hops: each of the pp-1 stage boundaries sends the pass's hidden states onward, inside
// a node over its link, between nodes over the network the stage's GPUs share.
double pp_hop_seconds(const ModelArch& m, const Gpu& gpu, const ServingConfig& c, double tokens) {
  const int pp = pp_of(c);
  if (pp <= 1) return 0;
  const int tp = tp_of(c);
  const Links l = replica_links(gpu, c);
  const int per_node = replica_per_node(l, c);
  const double bytes = tokens * m.hidden_size * activation_bytes(c.workload.precision) / tp;
  // Stages per node; a boundary between two nodes is crossed pp/stages_per_node - 1 times.
  const int stages_per_node = std::max(1, per_node / tp);
  const double inter_hops = per_node >= tp * pp ? 0.0 : std::ceil(static_cast<double>(pp) / stages_per_node) - 1.0;
  const double intra_hops = (pp - 1.0) - inter_hops;
  const double intra = l.intra_node_gbps * 1e9 * c.k.link_efficiency;
  const double inter = (l.inter_node_gbps > 0 ? l.inter_node_gbps : kUnknownInterNodeGbps) * 1e9 * c.k.link_efficiency /
                       std::min(tp, per_node);
  return intra_hops * (c.k.allreduce_latency_seconds + (intra > 0 ? bytes / intra : 0.0)) +
         inter_hops * (c.k.allreduce_latency_seconds + bytes / inter);
}

PassTime finish(double memory_s, double compute_s, double comm_s, const ServingConfig& c) {
  PassTime t;
  t.memory_seconds = memory_s;
  t.compute_seconds = compute_s;
  t.comm_seconds = comm_s;
  t.compute_bound = compute_s > memory_s;
  t.seconds = std::max(memory_s, compute_s) + comm_s + c.k.step_overhead_seconds;
  return t;
}

double blocks(double tokens, int block) {
  const double b = std::max(1, block);
  return std::ceil(std::max(0.0, tokens) / b) * b;
}

double new_prompt_tokens(const ServingRequest& r) {
  return std::max(1.0, r.prompt_tokens - std::clamp(r.shared_prefix_tokens, 0.0, r.prompt_tokens));
}

double max_output(const ServingRequest& r) { return std::max(r.output_tokens, r.max_output_tokens); }

// The context a sequence holds on average while it decodes (peak for static batching, which
// reserves the whole sequence up front).
double held_context(const ServingConfig& c, const ServingRequest& r) {
  return c.batching == Batching::static_batch ? r.prompt_tokens + max_output(r) : r.prompt_tokens + r.output_tokens / 2;
}

// Upper quantile of the standard normal (Abramowitz & Stegun 26.2.23, |error| < 4.5e-4).
double normal_quantile(double q) {
  const double p = std::clamp(1.0 - q, 1e-12, 0.5);
  const double t = std::sqrt(-2.0 * std::log(p));
  return t - (2.515517 + 0.802853 * t + 0.010328 * t * t) / (1.0 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t * t * t);
}

}  // namespace

ServingShortfall shortfall_of(ServingLimit limit, double value, double target) {
  ServingShortfall s;
  s.limit = limit;
  s.value = value;
  s.target = target;
  return s;
}

const char* to_string(Batching b) { return b == Batching::continuous ? "continuous" : "static"; }

double serving_peak_tflops(const Gpu& gpu, const ServingConfig& c) {
  if (fp8_compute(gpu, c)) return gpu.tflops(PeakPrecision::fp8);
  const Precision p = c.workload.precision;
  if (p == Precision::bf16 && gpu.tflops(PeakPrecision::bf16) <= 0) return peak_tflops(gpu, Precision::fp16);  // dtype auto: fp16 before Ampere
  if (p == Precision::fp8) return peak_tflops(gpu, Precision::bf16) > 0 ? peak_tflops(gpu, Precision::bf16) : peak_tflops(gpu, Precision::fp16);
  return peak_tflops(gpu, p);
}

ReplicaCapacity replica_capacity(const ModelArch& m, const ParamCounts& pc, const Gpu& gpu, const ServingConfig& c,
                                 const ServingRequest& r) {
  ReplicaCapacity cap;
  const int tp = tp_of(c);
  // Weights and the workspace of one full pass (max_batched_tokens tokens); vLLM keeps no
  // allocator slack around a preallocated KV pool, so fragmentation is not added.
  const MemoryBreakdown pass = estimate_memory(m, pc, inference_workload(c, 1, c.k.max_batched_tokens));
  const MemoryBreakdown one = estimate_memory(m, pc, inference_workload(c, 1, 1));
  cap.usable_bytes = static_cast<double>(gpu.usable_bytes()) * c.k.memory_utilization;
  cap.weight_bytes = pass[MemComponent::weights];
  cap.workspace_bytes = pass[MemComponent::activations] + pass[MemComponent::logits] + c.workload.constants.overhead_bytes;
  cap.kv_bytes_per_token = one[MemComponent::kv_cache];
  cap.context_tokens = held_context(c, r);
  const double shared = std::clamp(r.shared_prefix_tokens, 0.0, r.prompt_tokens);
  const int block = c.k.kv_block_tokens;
  // Sliding-window layers hold at most the window (the memory model's kv_cache_bytes_per_gpu).
  auto kv_of = [&](double tokens) { return kv_cache_bytes_per_gpu(m, c.workload, blocks(tokens, block)); };
  const double shared_bytes = kv_of(shared);
  cap.kv_bytes_per_sequence = kv_of(cap.context_tokens - shared);
  // Every running sequence samples from its own logits (fp32 upcast): size them for the batch
  // the cache can hold, capped at max_batch.
  const double e = activation_bytes(c.workload.precision);
  const double free0 = cap.usable_bytes - cap.weight_bytes - cap.workspace_bytes - shared_bytes;
  if (free0 > 0 && cap.kv_bytes_per_sequence > 0) {
    const double batch = std::min(static_cast<double>(c.k.max_batch), std::floor(free0 / cap.kv_bytes_per_sequence));
    cap.workspace_bytes += std::max(0.0, batch - 1) * m.vocab_size * (e + 4.0) / tp;
  }
  cap.kv_free_bytes = cap.usable_bytes - cap.weight_bytes - cap.workspace_bytes;
  const double peak_sequence = kv_of(r.prompt_tokens + max_output(r) - shared);
  if (cap.kv_free_bytes <= shared_bytes + peak_sequence || cap.kv_bytes_per_sequence <= 0) {
    ServingShortfall& s = cap.shortfall;
    s.limit = ServingLimit::does_not_fit;
    s.weight_bytes = cap.weight_bytes;
    s.workspace_bytes = cap.workspace_bytes;
    s.kv_free_bytes = cap.kv_free_bytes;
    s.usable_bytes = cap.usable_bytes;
    s.sequence_bytes = shared_bytes + peak_sequence;
    return cap;
  }
  const double n = std::floor((cap.kv_free_bytes - shared_bytes) / cap.kv_bytes_per_sequence);
  cap.kv_bound_sequences = static_cast<std::int64_t>(std::min(n, 1e9));
  cap.max_concurrent_sequences = std::max<std::int64_t>(1, std::min(cap.kv_bound_sequences, c.k.max_batch));
  cap.fits = true;
  return cap;
}

double decode_weight_bytes(const ModelArch& m, const ParamCounts& pc, const ServingConfig& c, double batch) {
  const int tp = tp_of(c);
  const Workload w = c.workload;
  const MemoryBreakdown one = estimate_memory(m, pc, inference_workload(flat(c), 1, 1));
  double bytes = one[MemComponent::weights];
  const bool native = w.weight_format == WeightFormat::native;
  const double other_bytes = native ? activation_bytes(w.precision) : 2.0;  // embeddings, norms, head stay 16-bit when quantised
  const double linear_bytes = native ? other_bytes : bytes_per_weight(w.weight_format, w.double_quant);
  // The embedding table is looked up one row per token, not read (a tied table is read as the head).
  if (!m.tied_embeddings) bytes -= pc.embedding * other_bytes / tp;
  // An MoE step reads only the routed experts its tokens go to: E * (1 - (1 - k/E)^batch) of
  // them; dense first layers and shared experts are read whole.
  if (m.experts > 0 && m.experts_per_token > 0) {
    const double share = static_cast<double>(m.experts_per_token) / m.experts;
    const double touched = 1.0 - std::pow(1.0 - std::min(1.0, share), std::max(1.0, batch));
    bytes -= pc.routed_experts * linear_bytes / tp * (1.0 - touched);
  }
  return std::max(0.0, bytes);
}

PassTime decode_step(const ModelArch& m, const ParamCounts& pc, const Gpu& gpu, const ServingConfig& c, double batch,
                     double context_tokens, double prefill_tokens, double prefill_context) {
  const int tp = tp_of(c);
  const ServingConfig f = flat(c);
  const double kv_token = kv_cache_bytes_per_gpu(m, f.workload, 1);
  // Each decoding sequence reads its cache (windowed layers at most the window); each prompt
  // token writes one token's KV.
  const double bytes = decode_weight_bytes(m, pc, f, batch + prefill_tokens) +
                       batch * kv_cache_bytes_per_gpu(m, f.workload, context_tokens) + prefill_tokens * kv_token;
  const double n = matmul_params(m, pc);
  const double flops = ((batch + prefill_tokens) * 2.0 * n + batch * attention_flops(m, context_tokens) +
                        prefill_tokens * attention_flops(m, prefill_context)) / tp;
  const double bw = bandwidth(gpu, c), peak = achieved_flops(gpu, c);
  const double tokens = batch + prefill_tokens;
  return finish(bw > 0 ? bytes / bw : 0.0, peak > 0 ? flops / peak : std::numeric_limits<double>::infinity(),
                tp_comm_seconds(m, gpu, c, tokens) + pp_hop_seconds(m, gpu, c, tokens), c);
}

PassTime prefill(const ModelArch& m, const ParamCounts& pc, const Gpu& gpu, const ServingConfig& c, double prompt_tokens,
                 double sequences, double cached_tokens) {
  const double tokens = prompt_tokens * sequences;
  // The same pass as a decode step with no decoding sequences: every weight read once, the
  // prompt's tokens attend on average to the cache plus half the prompt.
  return decode_step(m, pc, gpu, c, 0, 0, tokens, cached_tokens + prompt_tokens / 2);
}

std::vector<RooflinePoint> roofline(const ModelArch& m, const ParamCounts& pc, const Gpu& gpu, const ServingConfig& c,
                                    const ServingRequest& r, std::int64_t max_batch) {
  std::vector<RooflinePoint> out;
  const double ctx = held_context(c, r), p_new = new_prompt_tokens(r), shared = r.prompt_tokens - p_new;
  auto point = [&](std::int64_t b) {
    RooflinePoint p;
    p.batch = b;
    const double bd = static_cast<double>(b);
    if (c.batching == Batching::continuous) {
      const PassTime t = decode_step(m, pc, gpu, c, bd, ctx, bd * p_new / std::max(1.0, r.output_tokens), shared + p_new / 2);
      p.step_seconds = t.seconds;
      p.compute_bound = t.compute_bound;
      p.tokens_per_second = bd / t.seconds;
    } else {
      const PassTime t = decode_step(m, pc, gpu, c, bd, r.prompt_tokens + max_output(r) / 2);
      const double cycle = prefill(m, pc, gpu, c, p_new, bd, shared).seconds + (max_output(r) - 1) * t.seconds;
      p.step_seconds = t.seconds;
      p.compute_bound = t.compute_bound;
      p.tokens_per_second = bd * r.output_tokens / cycle;
    }
    return p;
  };
  for (std::int64_t b = 1; b < max_batch; b *= 2) out.push_back(point(b));
  if (max_batch >= 1) out.push_back(point(max_batch));
  return out;
}

double knee_batch(const ModelArch& m, const ParamCounts& pc, const Gpu& gpu, const ServingConfig& c, const ServingRequest& r) {
  const double ctx = held_context(c, r), p_new = new_prompt_tokens(r), shared = r.prompt_tokens - p_new;
  const bool cont = c.batching == Batching::continuous;
  auto bound = [&](double b) {
    return decode_step(m, pc, gpu, c, b, ctx, cont ? b * p_new / std::max(1.0, r.output_tokens) : 0, shared + p_new / 2).compute_bound;
  };
  double hi = 1;
  while (!bound(hi)) {
    hi *= 2;
    if (hi > 1e7) return 0;
  }
  if (hi == 1) return 1;
  double lo = hi / 2;
  while (hi - lo > 0.5) {
    const double mid = (lo + hi) / 2;
    (bound(mid) ? hi : lo) = mid;
  }
  return std::ceil(hi);
}

ReplicaPlan plan_replica(const ModelArch& m, const ParamCounts& pc, const Gpu& gpu, const ServingConfig& c,
                         const ServingRequest& r, const LatencyTargets& t) {
  ReplicaPlan p;
  p.capacity = replica_capacity(m, pc, gpu, c, r);
  if (!p.capacity.fits) {
    p.latency_shortfall = p.capacity.shortfall;
    return p;
  }
  if (serving_peak_tflops(gpu, c) <= 0) {
    p.capacity.fits = false;
    p.capacity.shortfall = ServingShortfall{};
    p.capacity.shortfall.limit = ServingLimit::no_tensor_throughput;
    p.capacity.shortfall.gpu = gpu.id;
    p.latency_shortfall = p.capacity.shortfall;
    return p;
  }
  const double p_new = new_prompt_tokens(r), shared = r.prompt_tokens - p_new, out = std::max(1.0, r.output_tokens);
  const bool cont = c.batching == Batching::continuous;
  const double ctx = held_context(c, r);
  auto step = [&](std::int64_t b) {
    const double bd = static_cast<double>(b);
    return decode_step(m, pc, gpu, c, bd, ctx, cont ? bd * p_new / out : 0, shared + p_new / 2).seconds;
  };
  auto prefill_s = [&](std::int64_t b) { return prefill(m, pc, gpu, c, p_new, cont ? 1.0 : static_cast<double>(b), shared).seconds; };
  const std::int64_t bmax = p.capacity.max_concurrent_sequences;
  p.meets_latency = true;
  std::int64_t b = bmax;
  if (t.tpot_seconds) {
    if (step(1) > *t.tpot_seconds) {
      p.meets_latency = false;
      p.latency_shortfall = shortfall_of(ServingLimit::tpot_at_batch_one, step(1), *t.tpot_seconds);
    } else {
      std::int64_t lo = 1, hi = bmax;  // step() rises with batch: the largest batch within the target
      while (lo < hi) {
        const std::int64_t mid = lo + (hi - lo + 1) / 2;
        if (step(mid) <= *t.tpot_seconds) lo = mid;
        else hi = mid - 1;
      }
      b = lo;
    }
  }
  p.operating_batch = b;
  p.tpot_seconds = step(b);
  p.prefill_seconds = prefill_s(b);
  p.knee_batch = knee_batch(m, pc, gpu, c, r);
  const double bd = static_cast<double>(b);
  if (cont) {
    p.request_seconds = p.prefill_seconds + (out - 1) * p.tpot_seconds;
    p.tokens_per_second = bd / p.tpot_seconds;
  } else {
    p.request_seconds = p.prefill_seconds + (std::max(out, max_output(r)) - 1) * p.tpot_seconds;  // the batch's cycle
    p.tokens_per_second = bd * r.output_tokens / p.request_seconds;
  }
  p.capacity_requests_per_second = bd / p.request_seconds;

  // The most traffic one replica takes within max_utilization and the TTFT target.
  double hi = p.capacity_requests_per_second * std::clamp(c.k.max_utilization, 0.01, 0.999);
  if (t.ttft_seconds) {
    const double idle = ttft_quantile(m, pc, gpu, c, r, p, 0);
    if (idle > *t.ttft_seconds) {
      if (p.meets_latency)
        p.latency_shortfall = shortfall_of(ServingLimit::ttft_idle, idle, *t.ttft_seconds);
      p.meets_latency = false;
    } else if (ttft_quantile(m, pc, gpu, c, r, p, hi) > *t.ttft_seconds) {
      double lo = 0;
      for (int i = 0; i < 60; ++i) {
        const double mid = (lo + hi) / 2;
        (ttft_quantile(m, pc, gpu, c, r, p, mid) <= *t.ttft_seconds ? lo : hi) = mid;
      }
      hi = lo;
    }
  }
  p.max_requests_per_second = hi;
  return p;
}

LoadPoint load_point(const ModelArch& m, const ParamCounts& pc, const Gpu& gpu, const ServingConfig& c,
                     const ServingRequest& r, const ReplicaPlan& p, double lambda) {
  LoadPoint lp;
  if (p.operating_batch < 1) return lp;
  const double bop = static_cast<double>(p.operating_batch);
  if (c.batching == Batching::static_batch) {
    // A static batch runs full (padded) or waits: its step is the operating batch's.
    lp.mean_batch = std::min(bop, lambda * p.request_seconds);
    lp.p95_batch = bop;
    lp.tpot_seconds = p.tpot_seconds;
    return lp;
  }
  const double p_new = new_prompt_tokens(r), shared = r.prompt_tokens - p_new, out = std::max(1.0, r.output_tokens);
  const double ctx = held_context(c, r);
  auto step = [&](double b) { return decode_step(m, pc, gpu, c, b, ctx, b * p_new / out, shared + p_new / 2).seconds; };
  double b = std::min(bop, lambda * (p.prefill_seconds + (out - 1) * step(1)));
  for (int i = 0; i < 100; ++i) {  // step() rises with b: the iteration climbs monotonically to the fixed point
    const double next = std::min(bop, lambda * (p.prefill_seconds + (out - 1) * step(std::max(1.0, b))));
    if (std::abs(next - b) < 1e-6 * std::max(1.0, b)) {
      b = next;
      break;
    }
    b = next;
  }
  lp.mean_batch = b;
  // Normal approximation of the Poisson quantile (z = 1.645 at the default 0.95).
  lp.p95_batch = std::min(bop, std::max(1.0, std::ceil(b + normal_quantile(c.k.latency_quantile) * std::sqrt(b))));
  lp.tpot_seconds = step(lp.p95_batch);
  return lp;
}

}  // namespace gpuplan
