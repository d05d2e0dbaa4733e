#include "gpuplan/offer_eval.hpp"

#include <algorithm>
#include <cmath>

namespace gpuplan {

namespace {

// The whole model's states on one GPU, unsharded: what a checkpoint must hold.
MemoryBreakdown unsharded(const ModelArch& m, const ParamCounts& pc, Workload w) {
  w.gpus = 1;
  w.tensor_parallel = 1;
  w.sharding = Sharding::ddp;
  w.offload = Offload::none;
  return estimate_memory(m, pc, w);
}


}  // namespace

Links offer_links(const Offer& offer, const Gpu& gpu) {
  Links l;
  l.gpus_per_node = std::max(1, offer.gpus);
  l.intra_node_gbps = offer.interconnect_gbps.value_or(gpu.interconnect_gbps);
  l.inter_node_gbps = offer.network_gbps ? *offer.network_gbps / 8.0 : 0.0;  // Gb/s -> GB/s
  return l;
}

double checkpoint_bytes(const ModelArch& m, const ParamCounts& pc, const Workload& w) {
  if (!is_training(w.method)) return 0;
  const MemoryBreakdown r = unsharded(m, pc, w);
  const double base = is_lora(w.method) ? r[MemComponent::adapters] : r[MemComponent::weights];
  return base + r[MemComponent::optimizer] + r[MemComponent::master_weights];
}

double result_bytes(const ModelArch& m, const ParamCounts& pc, const Workload& w) {
  if (!is_training(w.method)) return 0;
  if (is_lora(w.method)) return unsharded(m, pc, w)[MemComponent::adapters];
  return pc.total() * 2.0;
}

OfferEvaluation evaluate_offer(const ModelArch& m, const ParamCounts& pc, const Workload& base, const Gpu& gpu,
                               const Offer& offer, const Provider& provider, const RunSpec& run) {
  OfferEvaluation e;
  Workload w = base;
  if (!run.gpus_fixed) {
    w.gpus = std::max(1, offer.gpus) * std::max(1, run.nodes);
    if (w.gpus % std::max(1, w.tensor_parallel) != 0) w.tensor_parallel = 1;
  }
  const double cap = static_cast<double>(gpu.usable_bytes());
  double need = estimate_memory(m, pc, w).per_gpu_bytes();
  // Several GPUs and replicas do not fit: shard the model states across them, as a user would.
  if (need > cap && w.gpus > 1 && w.sharding == Sharding::ddp) {
    Workload sharded = w;
    sharded.sharding = Sharding::fsdp;
    const double s = estimate_memory(m, pc, sharded).per_gpu_bytes();
    if (s <= cap) {
      w = sharded;
      need = s;
    }
  }
  e.workload = w;
  e.per_gpu_bytes = need;
  e.fits = need <= cap;
  if (!e.fits) {
    e.excluded = "needs " + std::to_string(static_cast<long long>(std::ceil(need / (1024.0 * 1024 * 1024)))) +
                 " GiB per GPU; " + gpu.id + " has " + std::to_string(gpu.usable_bytes() >> 30) + " GiB usable";
    return e;
  }
  if (peak_tflops(gpu, w.precision) <= 0) {
    e.fits = false;
    e.excluded = gpu.id + " has no " + std::string(to_string(w.precision)) + " tensor throughput in the catalog";
    return e;
  }
  const auto price = offer.price(run.bill.pricing);
  if (!price) {
    e.excluded = std::string("no ") + to_string(run.bill.pricing) + " price";
    return e;
  }

  TimeConstants k = run.time;
  if (run.mfu && *run.mfu > 0) {
    const TokenFlops f = training_flops_per_token(m, pc, w);
    k.hfu = *run.mfu * (f.model > 0 ? f.hardware / f.model : 1.0);
  }
  if (is_training(w.method)) {
    e.time = estimate_step_time(m, pc, w, run.grad_accum, gpu, offer_links(offer, gpu), k);
  } else {
    // Inference: a step is one decode token for every sequence of every replica.
    const DecodeTime d = estimate_decode(m, pc, w, gpu, k);
    const int replicas = std::max(1, w.gpus / std::max(1, w.tensor_parallel));
    e.time.step_seconds = d.step_seconds;
    e.time.tokens_per_step = static_cast<double>(w.micro_batch) * replicas;
    e.time.tokens_per_second = d.tokens_per_second * replicas;
    e.time.tokens_per_second_per_gpu = e.time.tokens_per_second / std::max(1, w.gpus);
    e.time.compute_seconds = d.step_seconds;
    e.time.peak_tflops = peak_tflops(gpu, w.precision);
  }
  const double useful_per_step = e.time.tokens_per_step * std::clamp(run.padding_efficiency, 1e-6, 1.0);

  if (run.tokens) {
    e.tokens = *run.tokens;
    e.steps = std::ceil(*run.tokens / useful_per_step);
  } else if (run.steps) {
    e.steps = *run.steps;
    e.tokens = *run.steps * useful_per_step;
  }
  e.checkpoint_bytes = checkpoint_bytes(m, pc, w);

  const int per_instance = std::max(1, offer.gpus);
  const int instances = (w.gpus + per_instance - 1) / per_instance;
  const TaxTerms tax = tax_terms(provider, run.bill);
  e.rate_per_hour = *price * tax.pre_tax * instances * per_instance * (1.0 + tax.rate);
  const double busy = 1.0 - std::clamp(run.bill.idle_fraction, 0.0, 0.99);
  e.per_step = e.rate_per_hour * e.time.step_seconds / 3600.0 / busy;
  e.per_million_tokens = e.per_step / useful_per_step * 1e6;

  if (e.steps > 0) {
    RunInputs in = run.bill;
    in.compute_seconds = e.steps * e.time.step_seconds;
    in.steps = e.steps;
    in.tokens = e.tokens;
    in.gpus = w.gpus;
    in.checkpoint_seconds = run.checkpoint_write_gbps > 0 ? e.checkpoint_bytes / (run.checkpoint_write_gbps * 1e9 * instances) : 0;
    in.storage_gb = run.dataset_gb + std::max(0, run.keep_checkpoints) * e.checkpoint_bytes / 1e9;
    in.egress_gb = run.egress_final_weights ? result_bytes(m, pc, w) / 1e9 : 0;
    e.cost = price_run(offer, provider, in);
    if (e.cost && e.cost->feasible) {
      e.per_step = e.cost->per_step;
      e.per_million_tokens = e.cost->per_million_tokens;
    } else if (e.cost) {
      e.excluded = e.cost->infeasible_reason;
    }
  }
  return e;
}

}  // namespace gpuplan
