#pragma once
// The evaluation engine: one job on one offer. Does it fit (sharding across the instance's GPUs
// if it must), how long a step and the run take over the offer's links, and what the run
// costs, every term included. estimate, compare, check, diff and plan all price through here,
// so one job gets one set of numbers whichever command asks. Pure: no I/O; money in the
// sheet's currency (offer_search.hpp converts for display).
//
// Two entry points share one body: evaluate_offer() for a job as a user wrote it (it picks the
// GPU count and may re-shard), and prepare_job() + evaluate_prepared() for the plan's inner
// loop, where the offer-independent work is done once per variant and the per-offer part
// allocates nothing.
#include <cstdint>
#include <optional>
#include <string>

#include "gpuplan/catalog.hpp"
#include "gpuplan/cost.hpp"
#include "gpuplan/input_pipeline.hpp"
#include "gpuplan/memory.hpp"
#include "gpuplan/node_shape.hpp"
#include "gpuplan/step_time.hpp"
#include "gpuplan/workload.hpp"

namespace gpuplan {

// The run around a workload: how much work, and the terms of the bill.
struct RunSpec {
  std::optional<double> tokens;     // useful training tokens (or generated tokens for inference)
  std::optional<double> steps;      // optimizer steps; used when tokens is unset
  int grad_accum = 1;
  double padding_efficiency = 1;    // useful / processed tokens (unpacked, padded batches < 1)
  std::optional<double> mfu;        // model FLOPs utilisation override
  TimeConstants time;
  RunInputs bill;                   // pricing, idle, tax, spot terms, deadline (compute/steps/tokens/gpus are filled in)
  double checkpoint_write_gbps = 1.0;  // GB/s per instance to checkpoint storage
  double dataset_gb = 0;
  int keep_checkpoints = 1;         // checkpoints stored while the run lasts
  bool egress_final_weights = true; // the trained weights (or adapters) are copied out at the end
  bool gpus_fixed = false;          // true: the workload's GPU count as given; false: every GPU of `nodes` instances
  int nodes = 1;                    // instances when the GPU count is not fixed
  NodeShape node_shape;             // the user's statement of GPUs per node and links (--node-shape, --network)
  PipelineSpec pipeline;            // storage and CPUs that feed training (input_pipeline.hpp)
};

// Why an offer cannot run a job: a code, so the plan's inner loop builds no strings.
enum class Exclusion : std::uint8_t {
  none,
  does_not_fit,     // per-GPU memory above the card's
  no_precision,     // the card has no tensor throughput at the compute precision
  no_price,         // the sheet has no price for the pricing asked
  cannot_finish,    // spot: preemptions too frequent, or restarts past the cap
  bad_layout,       // the parallel layout cannot run there (parallel_layout_problem says why)
};

struct OfferEvaluation {
  Workload workload;                // as run on this offer (GPU count, sharding)
  bool fits = false;                // memory fits (the offer may still be excluded for another reason)
  Exclusion excluded = Exclusion::none;
  const char* infeasible_reason = "";  // cannot_finish, bad_layout: the model's literal
  // The job as written did not fit: training's DDP replicas sharded (FSDP); inference split by
  // tensor parallelism (the smallest TP that fits, workload.tensor_parallel).
  bool resharded = false;
  // Training crosses nodes and neither the sheet nor --network gives their link: 10 GbE assumed.
  bool network_assumed = false;
  double per_gpu_bytes = 0;
  double hfu_asked = 0;             // > 1: --mfu implied this hardware utilisation; run at 1 instead
  double capacity_bytes = 0;        // the card's usable memory (Gpu::usable_bytes)
  StepTime time;
  double steps = 0, tokens = 0;     // the run's work (0 when no work was given)
  double checkpoint_bytes = 0;
  double rate_per_hour = 0;         // all billed GPUs, tax included, sheet currency
  std::optional<RunCost> cost;      // whole-run cost; unset when no work was given
  double per_step = 0, per_million_tokens = 0;  // from the run, or from the hourly rate
  // Training: what feeds the GPUs. When it cannot keep up, `time` is already stretched to its pace.
  std::optional<PipelineFigures> pipeline;
  bool priced() const { return excluded == Exclusion::none; }
};

// The offer-independent part of a job: memory, checkpoint and result sizes, the time
// constants with --mfu applied. Computed once per workload variant.
struct PreparedJob {
  const ModelArch* model = nullptr;
  const ParamCounts* params = nullptr;
  const RunSpec* run = nullptr;
  Workload workload;                // GPU count and sharding as they will run
  int grad_accum = 1;
  double per_gpu_bytes = 0;
  double checkpoint_bytes = 0;      // what a resumable checkpoint holds
  double result_bytes = 0;          // what is copied out at the end
  TimeConstants time;
  double hfu_asked = 0;             // > 1: the hardware utilisation --mfu implied, clamped to 1 in `time`
};

// Bytes a resumable checkpoint holds: weights (or, for LoRA, adapters) plus optimizer states
// and master weights, for the whole model.
double checkpoint_bytes(const ModelArch& m, const ParamCounts& pc, const Workload& w);
// Bytes of the trained result a user copies out: 16-bit weights, or the fp32 adapters.
double result_bytes(const ModelArch& m, const ParamCounts& pc, const Workload& w);

// The links a job on `offer` talks over: the instance's GPUs, its interconnect (the offer's
// figure, else the GPU's) and its network between instances.
Links offer_links(const Offer& offer, const Gpu& gpu);
// The same with the run's node shape and --nodes applied: what a job of `w` on `offer` crosses.
Links job_links(const Workload& w, const Offer& offer, const Gpu& gpu, const RunSpec& run);

// `w` must already carry its GPU count and sharding. The references must outlive the result.
PreparedJob prepare_job(const ModelArch& m, const ParamCounts& pc, const Workload& w, const RunSpec& run, int grad_accum);
// The same when the caller already has the per-GPU memory (the plan prunes on it first).
PreparedJob prepare_job(const ModelArch& m, const ParamCounts& pc, const Workload& w, const RunSpec& run, int grad_accum,
                        double per_gpu_bytes);

// Allocation-free: fit, time and the bill of a prepared job on one offer at `pricing`.
void evaluate_prepared(const PreparedJob& job, const Gpu& gpu, const Offer& offer, const Provider& provider, Pricing pricing,
                       OfferEvaluation& out);

// Inference replicas on the job's GPUs: GPUs / (tensor x pipeline parallel), at least 1. Each
// holds the whole model (weights split by TP x PP, never by FSDP) and serves micro_batch sequences.
int inference_replicas(const Workload& w);

// The GPU count a job runs on for this offer: as given, or every GPU of run.nodes instances.
int gpus_on_offer(const Workload& w, const Offer& offer, const RunSpec& run);

// A job as a user wrote it, on one offer at run.bill.pricing: picks the GPU count, and when
// several data-parallel replicas do not fit, shards the model states (FSDP) as a user would.
OfferEvaluation evaluate_offer(const ModelArch& m, const ParamCounts& pc, const Workload& base, const Gpu& gpu,
                               const Offer& offer, const Provider& provider, const RunSpec& run);

}  // namespace gpuplan
