#pragma once
// The configuration search behind `gpuplan plan`: every method, precision, optimizer,
// checkpointing, micro-batch (keeping the global batch), sharding, instance count, offer and
// pricing, pruned by memory, scored by expected cost or time under a deadline and a budget.
// Memory and FLOPs are computed once per workload variant and GPU count; the inner loop over
// offers and pricings is arithmetic only (no allocation), which is what makes 10^6
// configurations per second per core possible.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/catalog.hpp"
#include "gpuplan/cost.hpp"
#include "gpuplan/evaluate.hpp"
#include "gpuplan/model.hpp"
#include "gpuplan/step_time.hpp"
#include "gpuplan/workload.hpp"

namespace gpuplan {

// One rentable offer, flattened for the inner loop.
struct PlanOffer {
  const Offer* offer = nullptr;
  const Provider* provider = nullptr;
  const Gpu* gpu = nullptr;
  double to_display = 1;  // sheet currency -> display currency
  int max_instances = 0;  // 0: as many as the search allows; an owned machine: 1
};

// The dimensions searched; each list holds the values allowed.
struct PlanSpace {
  std::vector<Method> methods{Method::full, Method::lora, Method::qlora};
  std::vector<Precision> precisions{Precision::bf16};
  std::vector<Optimizer> optimizers{Optimizer::adamw, Optimizer::adamw_8bit};
  std::vector<Checkpointing> checkpointing{Checkpointing::none, Checkpointing::full};
  std::vector<Attention> attention{Attention::flash};
  std::vector<std::int64_t> micro_batches{1, 2, 4, 8, 16, 32};
  std::vector<Sharding> shardings{Sharding::ddp, Sharding::zero2, Sharding::fsdp};
  std::vector<int> nodes{1, 2, 4, 8};  // instances of an offer
  // GPU counts the job may run on. Empty: every instance count in `nodes` times each offer's
  // GPUs (whole instances). Set (the user gave --gpus): exactly these counts, on
  // ceil(count / the offer's GPUs) instances, which must be one of `nodes`.
  std::vector<int> gpu_counts;
  std::vector<Pricing> pricings{Pricing::on_demand, Pricing::spot, Pricing::reserved_1y};
  // Model parallelism (Megatron layout): tensor-parallel degrees inside an instance and
  // pipeline stages; data parallelism takes the remaining GPUs. {1} = data parallel only.
  std::vector<int> tensor_parallel{1};
  std::vector<int> pipeline_parallel{1};
};

enum class Objective { cost, time };

struct PlanInputs {
  ModelArch model;
  ParamCounts params;
  Workload base;                  // everything not searched (LoRA rank and targets, seq_len, ...)
  std::int64_t global_batch = 0;  // sequences per optimizer step to keep (0: micro-batch x GPUs, free)
  int grad_accum = 0;             // accumulation steps to keep (0: from global_batch, else 1)
  double tokens = 0;              // useful training tokens
  std::optional<double> deadline_seconds;
  std::optional<double> budget;   // display currency
  Objective objective = Objective::cost;
  // The run's terms as estimate would take them (idle, tax, spot terms, storage, egress, --mfu,
  // packing); tokens, grad_accum, pricing and the GPU count are set per candidate.
  RunSpec run;
  std::vector<PlanOffer> offers;
};

// One evaluated configuration (indices into PlanSpace's lists and PlanInputs::offers).
struct Candidate {
  std::uint8_t method = 0, precision = 0, optimizer = 0, checkpointing = 0, attention = 0, sharding = 0, pricing = 0;
  std::uint8_t tensor_parallel = 0, pipeline_parallel = 0;
  std::int64_t micro_batch = 1;
  int grad_accum = 1;
  int gpus = 1;
  int offer = 0;
  double per_gpu_bytes = 0;
  double step_seconds = 0, wall_seconds = 0, cost = 0, gpu_hours = 0, mfu = 0;
  double checkpoint_interval_seconds = 0, expected_preemptions = 0;
  bool meets_deadline = true, meets_budget = true;
  bool feasible() const { return meets_deadline && meets_budget; }
};

struct PlanResult {
  std::uint64_t evaluated = 0;     // configurations scored (fit, priced)
  std::uint64_t considered = 0;    // configurations enumerated, pruned ones included
  std::vector<Candidate> best;     // feasible, best first by the objective (at most `keep`)
  std::vector<Candidate> pareto;   // cost/time front over every fitting configuration
  std::optional<Candidate> cheapest, fastest;  // over every fitting configuration, feasible or not
  // The best feasible configuration for each value of each dimension, for the reasons
  // ("full fine-tuning: the cheapest plan costs 4.1x more").
  std::vector<std::optional<Candidate>> best_by_method, best_by_precision, best_by_optimizer, best_by_checkpointing,
      best_by_sharding, best_by_pricing;
};

// Searches the space. `keep` bounds the runners-up kept. Every configuration is priced by the
// evaluation engine (evaluate_prepared), so a plan costs what estimate says it costs.
PlanResult search_plans(const PlanInputs& in, const PlanSpace& space, std::size_t keep = 10);

// The workload a candidate stands for (for emitting launch files and re-checking).
Workload candidate_workload(const PlanInputs& in, const PlanSpace& space, const Candidate& c);

// The run spec a candidate is priced with: the plan's terms, its tokens, accumulation and
// pricing, its GPU count fixed. evaluate_offer() on it gives the candidate's numbers.
RunSpec candidate_run(const PlanInputs& in, const PlanSpace& space, const Candidate& c);

// The engine's whole evaluation of a candidate, as estimate and compare report it: the search
// keeps only the figures it ranks by, not the input pipeline's or the bill's parts.
OfferEvaluation evaluate_candidate(const PlanInputs& in, const PlanSpace& space, const Candidate& c);

// Why each searched setting of the chosen plan: for every other value of that dimension, the
// best feasible plan with it (unset when none fits the limits).
struct SettingAlternative {
  std::string value;
  std::optional<Candidate> best;
};
enum class PlanSetting { method, precision, optimizer, checkpointing, sharding, pricing };
const char* to_string(PlanSetting s);  // "method", "precision", ...
struct SettingReason {
  PlanSetting setting = PlanSetting::method;
  std::string choice;                      // the chosen value
  std::vector<SettingAlternative> others;  // empty: the only value searched
};
std::vector<SettingReason> explain_plan(const PlanResult& r, const PlanSpace& space, const Candidate& best);

// What to do next with the chosen plan: a staged path from a short measured baseline to the run.
// Each step is a code with the names its sentence needs; the renderer chooses the words.
enum class NextStep {
  measure_baseline,    // a short run on one `gpu` whose measured MFU re-plans
  try_adapters,        // full fine-tuning won: still try LoRA/QLoRA
  start_from_method,   // an adapter (`method`) won: full fine-tuning only if evaluation needs it
  checkpointing_cost,  // activation checkpointing is on: more compute, the micro-batch fits
  scale_out_later,     // several GPUs: scale out after the single-GPU run is well utilised
  compare_providers,   // the same work on other providers
};
struct PlanStep {
  NextStep step = NextStep::measure_baseline;
  std::string gpu;                // measure_baseline: the chosen offer's GPU
  Method method = Method::lora;   // start_from_method: the chosen method
};
std::vector<PlanStep> plan_next_steps(const PlanInputs& in, const PlanSpace& space, const Candidate& best);

}  // namespace gpuplan
