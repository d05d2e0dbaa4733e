#include "io/emit.hpp"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace gpuplan::io {

namespace {

int zero_stage(const std::string& sharding) {
  if (sharding == "zero1") return 1;
  if (sharding == "zero2") return 2;
  if (sharding == "zero3" || sharding == "fsdp") return 3;
  return 0;
}

std::string hhmmss(double hours) {
  const long long total = static_cast<long long>(std::ceil(hours * 3600));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", total / 3600, total / 60 % 60, total % 60);
  return buf;
}

// A YAML scalar that needs no quoting stays bare; anything else is double-quoted.
std::string yaml_str(const std::string& s) {
  const bool plain = !s.empty() && s.find_first_of(":#{}[],&*!|>'\"%@`\n") == std::string::npos && s.front() != ' ' && s.back() != ' ';
  if (plain) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::string emit_deepspeed(const LaunchPlan& p) {
  nlohmann::json j;
  j["train_micro_batch_size_per_gpu"] = p.micro_batch;
  j["gradient_accumulation_steps"] = p.grad_accum;
  j["train_batch_size"] = p.micro_batch * p.grad_accum * p.gpus;
  j["gradient_clipping"] = 1.0;
  j["bf16"] = {{"enabled", p.precision == "bf16" || p.precision == "fp8"}};
  j["fp16"] = {{"enabled", p.precision == "fp16"}};
  nlohmann::json zero = {{"stage", zero_stage(p.sharding)}, {"overlap_comm", true}, {"contiguous_gradients", true}};
  if (p.offload == "optimizer" || p.offload == "optimizer+params") zero["offload_optimizer"] = {{"device", "cpu"}, {"pin_memory", true}};
  if (p.offload == "optimizer+params") zero["offload_param"] = {{"device", "cpu"}, {"pin_memory", true}};
  j["zero_optimization"] = zero;
  j["activation_checkpointing"] = {{"partition_activations", false}, {"contiguous_memory_optimization", false}};
  j["wall_clock_breakdown"] = false;
  j["gpuplan"] = {{"model", p.model}, {"method", p.method}, {"optimizer", p.optimizer}, {"gradient_checkpointing", p.checkpointing},
                  {"seq_len", p.seq_len}};
  return j.dump(2) + "\n";
}

std::string emit_accelerate(const LaunchPlan& p) {
  std::string s = "# accelerate launch --config_file this.yaml train.py  (written by gpuplan plan)\n";
  s += "compute_environment: LOCAL_MACHINE\n";
  const bool fsdp = p.sharding == "fsdp" || p.sharding == "zero3";
  const bool ds = p.sharding == "zero1" || p.sharding == "zero2";
  if (p.gpus == 1) s += "distributed_type: 'NO'\n";
  else if (fsdp) s += "distributed_type: FSDP\n";
  else if (ds) s += "distributed_type: DEEPSPEED\n";
  else s += p.nodes > 1 ? "distributed_type: MULTI_GPU\n" : "distributed_type: MULTI_GPU\n";
  s += "mixed_precision: " + std::string(p.precision == "fp32" ? "'no'" : p.precision == "fp8" ? "fp8" : p.precision) + "\n";
  s += "num_machines: " + std::to_string(p.nodes) + "\n";
  s += "num_processes: " + std::to_string(p.gpus) + "\n";
  s += "machine_rank: 0\n";
  s += "main_training_function: main\n";
  if (fsdp) {
    s += "fsdp_config:\n";
    s += "  fsdp_sharding_strategy: FULL_SHARD\n";
    s += "  fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP\n";
    s += "  fsdp_offload_params: " + std::string(p.offload == "optimizer+params" ? "true" : "false") + "\n";
    s += "  fsdp_activation_checkpointing: " + std::string(p.checkpointing ? "true" : "false") + "\n";
    s += "  fsdp_state_dict_type: SHARDED_STATE_DICT\n";
  }
  if (ds) {
    s += "deepspeed_config:\n";
    s += "  zero_stage: " + std::to_string(zero_stage(p.sharding)) + "\n";
    s += "  gradient_accumulation_steps: " + std::to_string(p.grad_accum) + "\n";
    s += "  offload_optimizer_device: " + std::string(p.offload == "none" ? "none" : "cpu") + "\n";
  }
  return s;
}

std::string emit_torchrun(const LaunchPlan& p) {
  std::string s = "torchrun";
  if (p.nodes > 1) s += " --nnodes " + std::to_string(p.nodes) + " --node_rank $NODE_RANK --rdzv_backend c10d --rdzv_endpoint $MASTER_ADDR:29500";
  else s += " --standalone --nnodes 1";
  s += " --nproc_per_node " + std::to_string(p.gpus_per_node);
  s += " train.py --model " + p.model + " --method " + p.method + " --precision " + p.precision;
  s += " --micro-batch " + std::to_string(p.micro_batch) + " --grad-accum " + std::to_string(p.grad_accum);
  s += " --seq-len " + std::to_string(p.seq_len) + " --sharding " + p.sharding;
  if (p.checkpointing) s += " --gradient-checkpointing";
  if (p.method == "lora" || p.method == "qlora") s += " --lora-rank " + std::to_string(p.lora_rank);
  return "# written by gpuplan plan; train.py and its flags are yours to map\n" + s + "\n";
}

std::string emit_skypilot(const LaunchPlan& p) {
  std::string s = "# sky launch this.yaml  (written by gpuplan plan)\n";
  s += "name: " + yaml_str("gpuplan-" + p.method) + "\n";
  s += "num_nodes: " + std::to_string(p.nodes) + "\n";
  s += "resources:\n";
  s += "  accelerators: " + yaml_str(p.accelerator + ":" + std::to_string(p.gpus_per_node)) + "\n";
  s += "  use_spot: " + std::string(p.spot ? "true" : "false") + "\n";
  s += "  disk_size: " + std::to_string(p.disk_gb) + "\n";
  if (p.spot) s += "  job_recovery:\n    strategy: FAILOVER\n    max_restarts_on_errors: 3\n";
  s += "envs:\n";
  s += "  MODEL: " + yaml_str(p.model) + "\n";
  s += "  MICRO_BATCH: \"" + std::to_string(p.micro_batch) + "\"\n";  // envs are strings
  s += "  GRAD_ACCUM: \"" + std::to_string(p.grad_accum) + "\"\n";
  if (p.checkpoint_minutes > 0) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", p.checkpoint_minutes);
    s += "  CHECKPOINT_EVERY_MINUTES: \"" + std::string(buf) + "\"\n";
  }
  s += "run: |\n  echo 'replace with your training command (see gpuplan plan --emit torchrun)'\n";
  return s;
}

std::string emit_slurm(const LaunchPlan& p) {
  std::string s = "#!/bin/bash\n";
  s += "#SBATCH --job-name=gpuplan-" + p.method + "\n";
  s += "#SBATCH --nodes=" + std::to_string(p.nodes) + "\n";
  s += "#SBATCH --ntasks-per-node=1\n";
  s += "#SBATCH --gpus-per-node=" + std::to_string(p.gpus_per_node) + "\n";
  s += "#SBATCH --time=" + hhmmss(p.hours * 1.2) + "\n";  // 20% over the estimate before the scheduler kills it
  s += "#SBATCH --exclusive\n";
  s += "# written by gpuplan plan: " + p.model + ", " + p.method + ", " + p.precision + ", micro-batch " + std::to_string(p.micro_batch) +
       " x " + std::to_string(p.grad_accum) + " accumulation\n";
  s += "srun " + emit_torchrun(p).substr(emit_torchrun(p).find('\n') + 1);
  return s;
}

}  // namespace gpuplan::io
