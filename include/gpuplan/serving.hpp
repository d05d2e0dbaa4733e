#pragma once
// Inference serving economics: how many sequences one replica holds (KV cache left after
// weights and workspace), how fast it prefills and decodes at a given batch (a roofline of
// memory reads against FLOPs), what latency it gives under queueing, how many replicas a
// traffic level needs at a latency target, and what a month of that costs per offer.
// Pure: no I/O, no catalog lookups; money in the offer's sheet currency.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/catalog.hpp"
#include "gpuplan/cost.hpp"
#include "gpuplan/model.hpp"
#include "gpuplan/node_shape.hpp"
#include "gpuplan/step_time.hpp"
#include "gpuplan/units.hpp"
#include "gpuplan/workload.hpp"

namespace gpuplan {

// Constants of the serving model; every one can be overridden. The cases named are rows of
// shared/reference/throughput_measured.yaml (README "Serving" has the comparison).
struct ServingConstants {
  // Share of the card an engine takes, weights + workspace + KV cache (vLLM
  // gpu_memory_utilization, default 0.9; TensorRT-LLM's KV fraction is 0.90-0.95 of what is free).
  double memory_utilization = 0.9;
  // Decode reads weights and KV at this share of peak bandwidth (as the time model:
  // gpt-fast reads 1397 GB/s on an A100's 2039, llama.cpp 820 of a 4090's 1008).
  double bandwidth_efficiency = 0.75;
  // Dequantising kernels (int8/int4/nf4/fp4 weights, and fp8 on cards without fp8 tensor
  // cores) reach a lower share: gpt-fast int4 862.69 GB/s against 1397.31 in bf16.
  double quantised_bandwidth_factor = 862.69 / 1397.31;
  // Prefill and compute-bound decode reach this share of the dense 16-bit peak. TensorRT-LLM
  // v0.5 prefills 2048 tokens of a 7B on an A100 in 133 ms (trtllm061-...-ttft-isl2048): 0.67.
  double compute_utilization = 0.65;
  // Consumer cards fill their fewer SMs more easily (as default_hfu; llama.cpp pp512 on a 4090
  // runs at 0.85 of the catalog's FP32-accumulate peak).
  double consumer_compute_bonus = 0.05;
  // fp8 GEMMs reach a lower share of their doubled peak (as default_hfu): NIM prefills 5000
  // tokens of 70B fp8 on 2 H100s in 407 ms (0.46 of fp8 peak), TensorRT-LLM's 8B fp8
  // max-load run implies 0.46 too.
  double fp8_compute_factor = 0.7;
  // Fixed cost of every forward pass: scheduling, kernel launches, sampling. Fitted to
  // gpt-fast's batch-1 decode on an A100 (9.53 ms per token against 8.5 ms of weight reads) and
  // vLLM's batch-8 run on an H200 (6.5 ms per step against 4.5 ms).
  double step_overhead_seconds = 0.001;
  // Tensor parallelism all-reduces twice per layer per forward pass: a fixed latency each plus
  // the activations over the links. 20 us makes NIM's 70B TP2 batch-1 ITL (18.58 ms) come out.
  double allreduce_latency_seconds = 20e-6;
  double link_efficiency = 0.8;     // share of link bandwidth a ring all-reduce achieves (as the time model)
  // Most sequences an engine batches (vLLM max_num_seqs default 256).
  std::int64_t max_batch = 256;
  // Tokens one forward pass may carry (vLLM max_num_batched_tokens for chunked prefill): sizes
  // the activation workspace held beside the KV cache.
  std::int64_t max_batched_tokens = 8192;
  int kv_block_tokens = 16;          // KV cache block (vLLM default block_size 16)
  // Planning headroom: a replica is never loaded past this share of its request capacity.
  double max_utilization = 0.9;
  double latency_quantile = 0.95;    // the "p95" of --ttft-p95
  // The largest fleet a plan may propose, in GPUs. Traffic that needs more is answered "beyond
  // any sane fleet" rather than priced: the largest single clusters announced (xAI Colossus,
  // Meta's two 24,576-GPU clusters, 2024) hold on the order of 100,000 GPUs.
  double max_fleet_gpus = 100000;
};

enum class Batching { continuous, static_batch };
const char* to_string(Batching b);

// What one request looks like. Tokens are means; max_output_tokens is the longest output a
// static batch must wait for (0 = every output is output_tokens long).
struct ServingRequest {
  double prompt_tokens = 512;
  double output_tokens = 256;
  double max_output_tokens = 0;
  double shared_prefix_tokens = 0;  // prompt tokens every request shares (prefix cache: stored and prefilled once)
};

// One replica's setup: the inference workload (weight format, KV dtype, precision,
// tensor_parallel = GPUs per replica, constants.overhead_bytes), batching and constants.
struct ServingConfig {
  Workload workload;
  // What joins a replica's GPUs (the offer's links as a stated node shape restates them; the same
  // job_links training runs on). nullopt: the GPU's own link, the whole replica in one node.
  std::optional<Links> links;
  Batching batching = Batching::continuous;
  ServingConstants k;
};

// Why a replica or a fleet falls short, as a code and the numbers its sentence is made of; the
// renderer chooses the words (io/render/serve_words).
enum class ServingLimit {
  none,
  does_not_fit,          // weights + workspace leave the KV cache less than one sequence needs
  no_tensor_throughput,  // the catalog gives the GPU no peak for the serving precision
  tpot_at_batch_one,     // one sequence alone decodes slower than the TPOT target
  ttft_idle,             // an idle replica's TTFT is over the target
  beyond_fleet,          // the peak needs more GPUs than ServingConstants::max_fleet_gpus
  utilization_cap,       // each replica would run past max_utilization
  cold_starts,           // scale-to-zero cold starts push TTFT past the target
};
struct ServingShortfall {
  ServingLimit limit = ServingLimit::none;
  // What each limit's words are made of:
  //   tpot_at_batch_one, ttft_idle: value = the time in seconds, target = the target's seconds;
  //   utilization_cap: value = the fleet's utilization, target = the cap (shares);
  //   cold_starts: value = the share of requests that find no warm replica;
  //   beyond_fleet: value = the replicas the peak needs, target = the limit in GPUs, gpus_per_replica;
  //   does_not_fit: the per-GPU bytes below; no_tensor_throughput: gpu (its catalog id).
  double value = 0, target = 0;
  int gpus_per_replica = 0;
  double weight_bytes = 0, workspace_bytes = 0, usable_bytes = 0;
  double kv_free_bytes = 0;   // usable - weights - workspace: negative when they overfill the card
  double sequence_bytes = 0;  // KV cache one sequence needs at its longest, the shared prefix included
  std::string gpu;
};
// A limit with its value and the target or bound it passes (the other fields left to the caller).
ServingShortfall shortfall_of(ServingLimit limit, double value, double target);

// --- capacity ---------------------------------------------------------------------------
struct ReplicaCapacity {
  bool fits = false;
  ServingShortfall shortfall;         // when it does not: does_not_fit (or no_tensor_throughput, from plan_replica)
  double usable_bytes = 0;            // per GPU: memory x memory_utilization
  double weight_bytes = 0;            // per GPU
  double workspace_bytes = 0;         // per GPU: activations of one full pass, logits, CUDA context
  double kv_free_bytes = 0;           // per GPU, for KV blocks
  double kv_bytes_per_token = 0;      // per GPU
  double kv_bytes_per_sequence = 0;   // per GPU, at the mean context (prefix excluded)
  double context_tokens = 0;          // mean context a sequence holds (peak for static batching)
  std::int64_t kv_bound_sequences = 0;       // what the KV cache holds
  std::int64_t max_concurrent_sequences = 0; // that, capped at max_batch
};
ReplicaCapacity replica_capacity(const ModelArch& m, const ParamCounts& pc, const Gpu& gpu, const ServingConfig& c,
                                 const ServingRequest& r);

// --- speed ------------------------------------------------------------------------------
struct PassTime {
  double seconds = 0;          // the whole forward pass
  double memory_seconds = 0;   // weights + KV read
  double compute_seconds = 0;  // FLOPs at the achieved peak
  double comm_seconds = 0;     // tensor-parallel all-reduces
  bool compute_bound = false;
};
// The dense peak a serving pass runs at (fp8 when the weights are fp8 and the card has it).
double serving_peak_tflops(const Gpu& gpu, const ServingConfig& c);
// Bytes one decode step reads per GPU for the weights (the embedding table is looked up,
// not read; an MoE reads the experts the batch routes to).
double decode_weight_bytes(const ModelArch& m, const ParamCounts& pc, const ServingConfig& c, double batch);
// One decode step: `batch` sequences at `context_tokens` each, plus `prefill_tokens` of
// other requests' prompts mixed into the same pass (chunked prefill), each attending to
// `prefill_context` tokens on average.
PassTime decode_step(const ModelArch& m, const ParamCounts& pc, const Gpu& gpu, const ServingConfig& c, double batch,
                     double context_tokens, double prefill_tokens = 0, double prefill_context = 0);
// Prefill of `sequences` prompts of `prompt_tokens` new tokens after `cached_tokens` already cached.
PassTime prefill(const ModelArch& m, const ParamCounts& pc, const Gpu& gpu, const ServingConfig& c, double prompt_tokens,
                 double sequences = 1, double cached_tokens = 0);

// Tokens/s against batch for the serving pattern of `r` (continuous: its prefill mixed in).
struct RooflinePoint {
  std::int64_t batch = 0;
  double step_seconds = 0;
  double tokens_per_second = 0;   // output tokens, one replica
  bool compute_bound = false;
};
std::vector<RooflinePoint> roofline(const ModelArch& m, const ParamCounts& pc, const Gpu& gpu, const ServingConfig& c,
                                    const ServingRequest& r, std::int64_t max_batch);
// Batch at which a step stops being bound by memory reads (0 when it never does).
double knee_batch(const ModelArch& m, const ParamCounts& pc, const Gpu& gpu, const ServingConfig& c,
                  const ServingRequest& r);

// --- latency and replicas -----------------------------------------------------------------
struct LatencyTargets {
  std::optional<double> ttft_seconds;  // at the latency quantile
  std::optional<double> tpot_seconds;
};

// Erlang C: probability an arrival waits in an M/M/c queue with offered load a = lambda/mu.
double erlang_c(std::int64_t servers, double offered_load);
// The q-quantile of the queueing wait in an M/M/c queue (0 when fewer than 1-q arrivals wait).
double mmc_wait_quantile(std::int64_t servers, double arrivals_per_second, double service_seconds, double q);

struct ReplicaPlan {
  ReplicaCapacity capacity;
  std::int64_t operating_batch = 0;   // sequences per replica at full load (TPOT target and KV bound it)
  double tpot_seconds = 0;            // decode step at the operating batch
  double prefill_seconds = 0;         // one request's prompt, alone
  double request_seconds = 0;         // one request start to end at full load
  double tokens_per_second = 0;       // output tokens per replica at the operating batch
  double capacity_requests_per_second = 0;  // per replica at the operating batch, fully loaded
  double max_requests_per_second = 0; // per replica, within the targets and max_utilization
  double knee_batch = 0;
  bool meets_latency = false;
  ServingShortfall latency_shortfall; // the capacity's, or the target that cannot be met, when one cannot
};
ReplicaPlan plan_replica(const ModelArch& m, const ParamCounts& pc, const Gpu& gpu, const ServingConfig& c,
                         const ServingRequest& r, const LatencyTargets& t);

// --- fleet and cost -------------------------------------------------------------------------
struct Traffic {
  double mean_requests_per_second = 0;
  double peak_factor = 1;             // peak / mean; replicas are sized for the peak
};

struct Scaling {
  bool autoscale = false;             // false: the peak's replicas run all month
  int min_replicas = 1;               // with autoscale; 0 = scale to zero
  double keep_warm_seconds = 60;      // idle time before scaling to zero (Knative's 60 s stable window)
  double cold_start_seconds = 0;      // launch + weight load before a scaled-to-zero replica answers
};

// kHoursPerMonth: gpuplan/units.hpp, the one month every command uses.

// One replica's state at a steady arrival rate: its mean concurrency solves Little's law
// B = lambda * (prefill + (output - 1) * step(B)), capped at the operating batch.
struct LoadPoint {
  double mean_batch = 0;
  double p95_batch = 0;               // Poisson quantile of the concurrency (M/G/inf), capped
  double tpot_seconds = 0;            // decode step at p95_batch
};
LoadPoint load_point(const ModelArch& m, const ParamCounts& pc, const Gpu& gpu, const ServingConfig& c,
                     const ServingRequest& r, const ReplicaPlan& p, double arrivals_per_second);

// TTFT at the quantile for one replica receiving `arrivals_per_second`: its prefill, the
// decode pass it joins (at the load's p95 concurrency), and the M/M/c wait for a free slot.
double ttft_quantile(const ModelArch& m, const ParamCounts& pc, const Gpu& gpu, const ServingConfig& c,
                     const ServingRequest& r, const ReplicaPlan& p, double arrivals_per_second);

struct FleetPlan {
  int replicas = 0;                   // at peak (0 when the fleet is beyond max_fleet_gpus)
  double replicas_needed = 0;         // what the peak needs, before any limit
  bool beyond_limit = false;          // replicas_needed x GPUs per replica > max_fleet_gpus
  double replica_hours_per_month = 0; // billed (idle capacity included)
  double utilization = 0;             // mean traffic / capacity paid for
  double ttft_seconds = 0;            // at the quantile, at peak
  LoadPoint at_peak;                  // per replica
  double cold_start_request_share = 0;// requests that find no warm replica (scale to zero)
  double launches_per_month = 0;      // scale-to-zero starts
  double output_tokens_per_month = 0;
  double requests_per_month = 0;
  bool meets_latency = false;
  ServingShortfall latency_shortfall; // the replica's, or the fleet's limit or cap, when it falls short
};
FleetPlan plan_fleet(const ModelArch& m, const ParamCounts& pc, const Gpu& gpu, const ReplicaPlan& p, const ServingConfig& c,
                     const ServingRequest& r, const Traffic& t, const Scaling& s, const LatencyTargets& targets);

struct ServingCost {
  int replicas_per_instance = 0;      // per instance, or per the instances one replica joins
  int instances_per_replica = 1;      // > 1 when a stated node shape joins instances into a replica
  int instances = 0;                  // at peak
  std::int64_t gpus_billed = 0;       // instances x the instance's GPUs
  double per_month = 0;               // billed, tax included
  double rate_per_hour = 0;           // one instance, tax included
  double per_million_output_tokens = 0;
  double per_request = 0;
  double at_full_load_per_million_output_tokens = 0;  // if every paid hour were busy
};
// nullopt when the offer has no price for the pricing or cannot host one replica (fewer GPUs
// than tensor_parallel). `bill` carries pricing, tax and start-up overrides.
std::optional<ServingCost> price_serving(const Offer& offer, const Provider& provider, const ServingConfig& c,
                                         const ReplicaPlan& rp, const FleetPlan& f, const Scaling& s,
                                         const RunInputs& bill);

// --- the offer search -----------------------------------------------------------------------
// One offer serve may run on: its GPU, and the rate from its sheet's currency to the one
// money is shown in.
struct ServingCandidate {
  const Provider* provider = nullptr;
  const Offer* offer = nullptr;
  const Gpu* gpu = nullptr;
  double currency_rate = 1;
};

// Everything but the offer: the model, one replica's setup, requests, targets, traffic,
// scaling and the bill.
struct ServingJob {
  ModelArch model;
  ParamCounts params;
  ServingConfig cfg;
  ServingRequest req;
  LatencyTargets targets;
  Traffic traffic;
  Scaling scaling;
  RunInputs bill;                               // pricing, tax, start-up override
  int tensor_parallel = 0;                      // 0: search 1, 2, 4, 8 within the node
  std::optional<double> cold_start_seconds;     // else start-up + weights read at the speed below
  // Weights are read from storage at this speed on a cold start (the same 1 GB/s assumption as
  // --checkpoint-write-speed; a local NVMe is faster, a network volume slower).
  double weight_load_bytes_per_second = 1e9;
  // The user's own machines (--node-shape): GPUs per node and their link, as training takes
  // them; a replica stays in one node, and a node of several instances bills each of them.
  NodeShape node_shape;
};

// The best tensor-parallel degree on one offer; money in the display currency.
struct ServingOption {
  ServingCandidate where;
  int tp = 1;
  ReplicaPlan plan;
  FleetPlan fleet;
  ServingCost cost;
  double cold_start_seconds = 0;
};
// Why an offer cannot serve, as a code callers branch on and the numbers and names its words
// are made of (io/render/serve_words chooses them).
enum class ServingRefusal {
  no_degree,       // no tensor-parallel degree divides the model's attention heads
  node_too_small,  // one replica needs more GPUs than the instance (or the stated node) has
  cannot_host,     // the model does not fit, or the GPU has no throughput: `shortfall` says which
  beyond_fleet,    // the peak needs more GPUs than ServingConstants::max_fleet_gpus
  no_price,        // the offer has no price for the pricing asked
};
struct ServingExclusion {
  ServingCandidate where;
  ServingRefusal refusal = ServingRefusal::cannot_host;
  // What each refusal's words are made of:
  //   cannot_host: shortfall at degree tp; beyond_fleet: shortfall;
  //   node_too_small: tp (the GPUs one replica needs), gpus_per_node, stated_node (a --node-shape, not the instance);
  //   no_degree: heads; no_price: pricing.
  ServingShortfall shortfall;
  int tp = 1;
  int gpus_per_node = 0;
  bool stated_node = false;
  int heads = 0;
  Pricing pricing = Pricing::on_demand;
};
struct ServingSearch {
  std::vector<ServingOption> options;           // those meeting the targets first, then by cost per month
  std::vector<ServingExclusion> excluded;
  std::vector<RooflinePoint> roofline;          // the best option's
  std::int64_t roofline_capacity = 0;           // sequences its KV cache holds (and max_batch allows)
};
// nullopt (with the reason in `refused`: its code and numbers) when no degree fits, prices or
// stays within max_fleet_gpus.
std::optional<ServingOption> serve_on(const ServingJob& j, const ServingCandidate& where, ServingExclusion& refused);
ServingSearch search_serving(const ServingJob& j, const std::vector<ServingCandidate>& candidates);

}  // namespace gpuplan
