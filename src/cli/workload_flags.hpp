#pragma once
// The workload flags `estimate`, `compare` and `plan` share, and their checked translation
// into a core Workload.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "cli/common.hpp"
#include "cli/model_source.hpp"
#include "gpuplan/catalog.hpp"
#include "gpuplan/model.hpp"
#include "gpuplan/workload.hpp"

namespace gpuplan::cli {

struct WorkloadFlags {
  ModelSourceOptions model;
  std::string method = "full", precision = "bf16", quant = "native", optimizer = "adamw";
  std::string lora_targets = "all-linear", attention = "sdpa", checkpointing = "none", loss = "standard";
  std::string sharding = "ddp", offload = "none", kv_dtype = "native";
  std::string micro_batch = "1", seq_len, overhead, fragmentation;  // seq_len "" = min(2048, max context)
  int lora_rank = 16, trainable_layers = 0, gpus = 1, tensor_parallel = 1;
  int pipeline_parallel = 1, virtual_pipeline = 1, context_parallel = 1, expert_parallel = 1;
  bool sequence_parallel = false;
  bool pure_bf16 = false, double_quant = false, lora_dropout = false, train_embeddings = false;
  bool optimizer_in_backward = false, allow_long_context = false, dropout = false, autocast = false;
  bool gpus_given = false;  // --gpus was on the command line
  std::string qlora_backend;  // "" = bitsandbytes; given without QLoRA is refused
  std::string activations = "hf";  // the training engine whose saved tensors size the activations
  bool qlora_searched = false;  // plan: qlora is among --methods, so --qlora-backend applies
};

// Adds the model source and every workload flag to a command.
void add_workload_options(CLI::App& cmd, WorkloadFlags& f);

// Checks the flags against each other and the model; exits 2 naming the flag on a bad value.
// ctx's profile, if any, sets the constants the flags do not.
Workload build_workload(const Context& ctx, const WorkloadFlags& f, const ModelArch& m);

// Exits 2 for an unknown enum value, listing the choices and the closest one.
[[noreturn]] void bad_choice(const std::string& flag, const std::string& value, const char* choices);

template <class E>
E pick(const std::string& flag, const std::string& value, std::optional<E> parsed, const char* choices) {
  if (parsed) return *parsed;
  bad_choice(flag, value, choices);
}

// One parser per value kind, the choices taken from the core's enum tables.
template <class E>
E pick_enum(const std::string& flag, const std::string& value) {
  if (auto v = parse_enum<E>(value)) return *v;
  bad_choice(flag, value, enum_choices<E>().c_str());
}

}  // namespace gpuplan::cli
