#pragma once
// The rules a job's settings must keep, in one place for every way a job is given: command-line
// flags, experiment specs and run records all build a Workload and ask here whether it can run.
// Problems carry a code and the setting they concern, never words: the command line names the
// flag, a spec reader the key and its line.
#include <cstdint>
#include <vector>

#include "gpuplan/model.hpp"
#include "gpuplan/workload.hpp"

namespace gpuplan {

enum class JobRule {
  qlora_needs_16bit,        // QLoRA computes in bf16 or fp16
  freeze_layers_range,      // freeze trains 1..layers layers (limit: layers)
  pure_bf16_needs_bf16,     // --pure-bf16 is a bf16 setting
  quant_needs_frozen_base,  // stored quantised weights: inference or QLoRA only
  seq_beyond_context,       // sequence longer than the model's context (limit: max context)
  offload_params_needs_shards,  // optimizer+params offload needs ZeRO-3 or FSDP
  tp_divides_gpus,          // tensor parallel divides the GPUs
  tp_divides_heads,         // each GPU holds whole heads (limit: heads)
  pp_range,                 // 1..layers pipeline stages (limit: layers)
  vpp_range,                // pipeline x virtual stages <= layers (limit: layers)
  cp_positive,              // context parallel >= 1
  layout_divides_gpus,      // GPUs a multiple of tensor x pipeline x context parallel
  ep_divides,               // expert parallel divides the experts and the data-parallel GPUs
  shards_nothing,           // (warning) sharding with one GPU shards nothing
  gpus_range,               // 1..65536 GPUs
};

struct JobProblem {
  JobRule rule;
  const char* setting;        // the setting's key: "tensor_parallel", "seq_len", ...
  std::int64_t limit = 0;     // the model's bound the value broke, where one applies
  bool warning = false;       // priced anyway, with a warning
};

struct JobChecks {
  bool allow_long_context = false;  // a sequence beyond the model's context is a warning, not a refusal
};

// Every rule the workload breaks on this model, in the order the settings are read.
std::vector<JobProblem> validate_workload(const ModelArch& m, const Workload& w, const JobChecks& checks = {});

}  // namespace gpuplan
