#include "gpuplan/evaluate.hpp"

#include <algorithm>
#include <cmath>

#include "gpuplan/units.hpp"

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

// --nodes N (N > 1) with a fixed GPU count spreads the GPUs evenly over exactly N instances;
// otherwise the GPUs fill whole instances. (--nodes 1 is the default and cannot be told apart.)
bool spread_over_nodes(const Workload& w, const RunSpec& run) { return run.gpus_fixed && run.nodes > 1 && w.gpus > 1; }

int instances_on_offer(const Workload& w, const Offer& offer, const RunSpec& run) {
  if (spread_over_nodes(w, run)) return run.nodes;
  const int per_instance = std::max(1, offer.gpus);
  return (std::max(1, w.gpus) + per_instance - 1) / per_instance;
}

// Why --nodes cannot place the job on this offer, or nullptr.
const char* node_layout_problem(const Workload& w, const Offer& offer, const RunSpec& run) {
  if (!spread_over_nodes(w, run)) return nullptr;
  if (w.gpus % run.nodes != 0) return "--nodes does not divide the GPUs";
  if (run.node_shape.gpus_per_node > 0) {
    if (w.gpus / run.nodes > run.node_shape.gpus_per_node) return "--nodes puts more GPUs on each node than --node-shape holds";
  } else if (w.gpus / run.nodes > std::max(1, offer.gpus)) {
    return "--nodes puts more GPUs on each node than the offer's instance holds";
  }
  return nullptr;
}

// A step's time: training steps over the offer's links, or one decode token for every
// sequence of every replica.
StepTime step_time(const PreparedJob& j, const Gpu& gpu, const Offer& offer) {
  const Workload& w = j.workload;
  if (is_training(w.method))
    return estimate_step_time(*j.model, *j.params, w, j.grad_accum, gpu, job_links(w, offer, gpu, *j.run), j.time);
  const DecodeTime d = estimate_decode(*j.model, *j.params, w, gpu, j.time, job_links(w, offer, gpu, *j.run));
  const int replicas = inference_replicas(w);
  StepTime t;
  t.step_seconds = d.step_seconds;
  t.tokens_per_step = static_cast<double>(w.micro_batch) * replicas;
  t.tokens_per_second = d.tokens_per_second * replicas;
  t.tokens_per_second_per_gpu = t.tokens_per_second / std::max(1, w.gpus);
  t.compute_seconds = d.step_seconds;
  t.peak_tflops = peak_tflops(gpu, w.precision);
  return t;
}

// Training reads and tokenises its data at the GPUs' pace; when storage or the CPUs are slower,
// the GPUs wait and every step stretches by the shortfall (seed 000: fix the data pipeline).
void feed_gpus(const PreparedJob& j, const Gpu& gpu, const Offer& offer, OfferEvaluation& e) {
  const RunSpec& run = *j.run;
  // Remote storage is read over the nodes' network: the same links the collectives cross
  // (the sheet's network, else --network), on every node the job occupies.
  const Links l = job_links(j.workload, offer, gpu, run);
  const int nodes = (std::max(1, j.workload.gpus) + std::max(1, l.gpus_per_node) - 1) / std::max(1, l.gpus_per_node);
  std::optional<double> network;
  if (l.inter_node_gbps > 0) network = l.inter_node_gbps * 1e9 * nodes;
  const double useful = e.time.tokens_per_second * std::clamp(run.padding_efficiency, 1e-6, 1.0);
  e.pipeline = input_pipeline(useful, run.pipeline, network, j.model->vocab_size);
  const double s = e.pipeline->slowdown;
  if (!(s > 1)) return;
  e.time.step_seconds *= s;
  e.time.tokens_per_second /= s;
  e.time.tokens_per_second_per_gpu /= s;
  e.time.mfu /= s;
  e.time.hfu /= s;
}

// The bill for the run's work (when a size was given) on `instances` instances.
void bill_run(const PreparedJob& j, const Offer& offer, const Provider& provider, Pricing pricing, int instances,
              OfferEvaluation& e) {
  const RunSpec& run = *j.run;
  RunInputs in = run.bill;
  in.pricing = pricing;
  in.compute_seconds = e.steps * e.time.step_seconds;
  in.steps = e.steps;
  in.tokens = e.tokens;
  in.gpus = instances * std::max(1, offer.gpus);  // whole instances: --nodes may leave part of each empty
  in.checkpoint_seconds = run.checkpoint_write_gbps > 0 ? j.checkpoint_bytes / (run.checkpoint_write_gbps * 1e9 * instances) : 0;
  in.storage_gb = run.dataset_gb + std::max(0, run.keep_checkpoints) * j.checkpoint_bytes / 1e9;
  in.egress_gb = run.egress_final_weights ? j.result_bytes / 1e9 : 0;
  e.cost = price_run(offer, provider, in);
  if (!e.cost) return;
  if (e.cost->feasible) {
    e.per_step = e.cost->per_step;
    e.per_million_tokens = e.cost->per_million_tokens;
  } else {
    e.excluded = Exclusion::cannot_finish;
    e.infeasible_reason = e.cost->infeasible_reason;
  }
}

}  // namespace

Links offer_links(const Offer& offer, const Gpu& gpu) {
  Links l;
  l.gpus_per_node = std::max(1, offer.gpus);
  l.intra_node_gbps = offer.interconnect_gbps.value_or(gpu.interconnect_gbps);
  l.inter_node_gbps = offer.network_gbps ? *offer.network_gbps / 8.0 : 0.0;  // Gb/s -> GB/s
  return l;
}

// The offer's links as the user's node shape restates them, with the job's GPUs placed on them:
// GPUs per node as --nodes spreads them.
Links job_links(const Workload& w, const Offer& offer, const Gpu& gpu, const RunSpec& run) {
  Links l = shaped_links(offer_links(offer, gpu), run.node_shape, gpu);
  if (spread_over_nodes(w, run)) l.gpus_per_node = w.gpus / run.nodes;
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

PreparedJob prepare_job(const ModelArch& m, const ParamCounts& pc, const Workload& w, const RunSpec& run, int grad_accum) {
  return prepare_job(m, pc, w, run, grad_accum, estimate_memory(m, pc, w).per_gpu_bytes());
}

PreparedJob prepare_job(const ModelArch& m, const ParamCounts& pc, const Workload& w, const RunSpec& run, int grad_accum,
                        double per_gpu_bytes) {
  PreparedJob j;
  j.model = &m;
  j.params = &pc;
  j.run = &run;
  j.workload = w;
  j.grad_accum = std::max(1, grad_accum);
  j.per_gpu_bytes = per_gpu_bytes;
  j.checkpoint_bytes = checkpoint_bytes(m, pc, w);
  j.result_bytes = result_bytes(m, pc, w);
  j.time = run.time;
  if (run.mfu && *run.mfu > 0) {
    // --mfu is model FLOPs; the time model runs on hardware FLOPs (recomputation included).
    const TokenFlops f = training_flops_per_token(m, pc, w);
    const double asked = *run.mfu * (f.model > 0 ? f.hardware / f.model : 1.0);
    // Hardware cannot run above its peak: an --mfu whose recomputation would need more is
    // clamped, and the answer says so (hfu_clamped).
    j.time.hfu = std::min(1.0, asked);
    if (asked > 1.0) j.hfu_asked = asked;
  }
  return j;
}

void evaluate_prepared(const PreparedJob& j, const Gpu& gpu, const Offer& offer, const Provider& provider, Pricing pricing,
                       OfferEvaluation& e) {
  const RunSpec& run = *j.run;
  const Workload& w = j.workload;
  e.workload = w;
  e.excluded = Exclusion::none;
  e.network_assumed = false;
  e.infeasible_reason = "";
  e.cost.reset();
  e.pipeline.reset();
  e.steps = e.tokens = 0;
  e.per_gpu_bytes = j.per_gpu_bytes;
  e.hfu_asked = j.hfu_asked;
  e.capacity_bytes = static_cast<double>(gpu.usable_bytes());
  e.checkpoint_bytes = j.checkpoint_bytes;
  e.fits = e.per_gpu_bytes <= e.capacity_bytes;
  const char* why = parallel_layout_problem(*j.model, w);
  if (!why) why = node_layout_problem(w, offer, run);
  if (why) {
    e.excluded = Exclusion::bad_layout;
    e.infeasible_reason = why;
  } else if (!e.fits) e.excluded = Exclusion::does_not_fit;
  else if (peak_tflops(gpu, w.precision) <= 0) e.excluded = Exclusion::no_precision;
  const auto price = offer.price(pricing);
  if (e.excluded == Exclusion::none && !price) e.excluded = Exclusion::no_price;
  if (e.excluded != Exclusion::none) return;

  e.time = step_time(j, gpu, offer);
  // Training's collectives span the whole job; an inference replica's, its TP x PP GPUs.
  const int span = is_training(w.method) ? w.gpus : std::max(1, w.tensor_parallel) * std::max(1, w.pipeline_parallel);
  e.network_assumed = network_assumed(span, job_links(w, offer, gpu, run));
  if (is_training(w.method)) feed_gpus(j, gpu, offer, e);
  const double useful_per_step = e.time.tokens_per_step * std::clamp(run.padding_efficiency, 1e-6, 1.0);
  if (run.tokens) {
    e.tokens = *run.tokens;
    e.steps = std::ceil(*run.tokens / useful_per_step);
  } else if (run.steps) {
    e.steps = *run.steps;
    e.tokens = *run.steps * useful_per_step;
  }
  const int per_instance = std::max(1, offer.gpus);
  const int instances = instances_on_offer(w, offer, run);
  const TaxTerms tax = tax_terms(provider, run.bill);
  e.rate_per_hour = *price * tax.pre_tax * instances * per_instance * (1.0 + tax.rate);
  const double busy = 1.0 - std::clamp(run.bill.idle_fraction, 0.0, 0.99);
  e.per_step = e.rate_per_hour * e.time.step_seconds / 3600.0 / busy;
  e.per_million_tokens = e.per_step / useful_per_step * 1e6;
  if (e.steps > 0) bill_run(j, offer, provider, pricing, instances, e);
}

int gpus_on_offer(const Workload& w, const Offer& offer, const RunSpec& run) {
  if (run.gpus_fixed) return w.gpus;
  return std::max(1, offer.gpus) * std::max(1, run.nodes);
}

namespace {

// Inference that does not fit one GPU per replica: split the weights by tensor parallelism, the
// smallest degree (a power of two dividing the GPUs and the heads) that fits, so the most
// replicas serve. FSDP never applies: a decode step needs every weight of its layers each token.
bool split_inference(const ModelArch& m, const ParamCounts& pc, const Gpu& gpu, const RunSpec& run, Workload& w,
                     PreparedJob& j) {
  if (is_training(w.method) || std::max(1, w.tensor_parallel) > 1) return false;
  for (int tp = 2; tp <= w.gpus; tp *= 2) {
    Workload t = w;
    t.tensor_parallel = tp;
    if (parallel_layout_problem(m, t)) continue;
    PreparedJob s = prepare_job(m, pc, t, run, run.grad_accum);
    if (s.per_gpu_bytes <= static_cast<double>(gpu.usable_bytes())) {
      w = t;
      j = s;
      return true;
    }
  }
  return false;
}

}  // namespace

int inference_replicas(const Workload& w) {
  const long model_parallel = static_cast<long>(std::max(1, w.tensor_parallel)) * std::max(1, w.pipeline_parallel);
  return static_cast<int>(std::max(1L, std::max(1, w.gpus) / model_parallel));
}

OfferEvaluation evaluate_offer(const ModelArch& m, const ParamCounts& pc, const Workload& base, const Gpu& gpu,
                               const Offer& offer, const Provider& provider, const RunSpec& run) {
  Workload w = base;
  w.gpus = gpus_on_offer(base, offer, run);
  PreparedJob j = prepare_job(m, pc, w, run, run.grad_accum);
  bool resharded = false;
  if (j.per_gpu_bytes > static_cast<double>(gpu.usable_bytes()) && w.gpus > 1 && !is_training(w.method)) {
    resharded = split_inference(m, pc, gpu, run, w, j);
  } else if (j.per_gpu_bytes > static_cast<double>(gpu.usable_bytes()) && w.gpus > 1 && w.sharding == Sharding::ddp) {
    // Several training replicas do not fit: shard the model states across the GPUs, as a user would.
    Workload sharded = w;
    sharded.sharding = Sharding::fsdp;
    PreparedJob s = prepare_job(m, pc, sharded, run, run.grad_accum);
    if (s.per_gpu_bytes <= static_cast<double>(gpu.usable_bytes())) {
      j = s;
      resharded = true;
    }
  }
  OfferEvaluation e;
  evaluate_prepared(j, gpu, offer, provider, run.bill.pricing, e);
  e.resharded = resharded;
  return e;
}

}  // namespace gpuplan
