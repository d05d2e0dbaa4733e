#pragma once
// One workload on one offer: does it fit (sharding across the instance's GPUs if it must),
// how long a step and the run take over the offer's links, and what the run costs. This is
// what `estimate`, `compare` and `plan` rank. Pure: no I/O; money in the sheet's currency.
#include <optional>
#include <string>

#include "gpuplan/catalog.hpp"
#include "gpuplan/cost.hpp"
#include "gpuplan/memory.hpp"
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
  bool gpus_fixed = false;          // false: use every GPU of `nodes` instances
  int nodes = 1;                    // instances when the GPU count is not fixed
};

struct OfferEvaluation {
  Workload workload;                // as run on this offer (GPU count, sharding)
  bool fits = false;
  std::string excluded;             // why not, when it does not fit or cannot be priced
  double per_gpu_bytes = 0;
  StepTime time;
  double steps = 0, tokens = 0;     // the run's work (0 when no work was given)
  double checkpoint_bytes = 0;
  double rate_per_hour = 0;         // all billed GPUs, tax included, sheet currency
  std::optional<RunCost> cost;      // whole-run cost; unset when no work was given
  double per_step = 0, per_million_tokens = 0;  // from the run, or from the hourly rate
};

// Bytes a resumable checkpoint holds: weights (or, for LoRA, adapters) plus optimizer states
// and master weights, for the whole model.
double checkpoint_bytes(const ModelArch& m, const ParamCounts& pc, const Workload& w);
// Bytes of the trained result a user copies out: 16-bit weights, or the fp32 adapters.
double result_bytes(const ModelArch& m, const ParamCounts& pc, const Workload& w);

// The links a job on `offer` talks over: the instance's GPUs, its interconnect (the offer's
// figure, else the GPU's) and its network between instances.
Links offer_links(const Offer& offer, const Gpu& gpu);

OfferEvaluation evaluate_offer(const ModelArch& m, const ParamCounts& pc, const Workload& base, const Gpu& gpu,
                               const Offer& offer, const Provider& provider, const RunSpec& run);

}  // namespace gpuplan
