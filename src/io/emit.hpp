#pragma once
// Launch configurations for the engines that run a plan: DeepSpeed config JSON, accelerate
// config YAML, a torchrun command line, a SkyPilot task YAML and a Slurm sbatch header. Text
// only; the caller decides where it goes.
#include <string>

namespace gpuplan::io {

struct LaunchPlan {
  std::string model;           // Hugging Face id when known, else the catalog id
  std::string method;          // full | lora | qlora | freeze | pretrain
  std::string precision;       // bf16 | fp16 | fp8 | fp32
  std::string optimizer;       // adamw | adamw-8bit | ...
  std::string sharding;        // ddp | zero1 | zero2 | zero3 | fsdp
  std::string offload;         // none | optimizer | optimizer+params
  bool checkpointing = false;
  long long micro_batch = 1, grad_accum = 1, seq_len = 2048;
  int gpus = 1, gpus_per_node = 1, nodes = 1;
  int lora_rank = 16;
  std::string accelerator;     // SkyPilot accelerator name, e.g. H100
  std::string cloud;           // provider id, informational
  bool spot = false;
  int disk_gb = 100;
  double hours = 1;            // expected wall time
  double checkpoint_minutes = 0;  // spot checkpoint interval (0: none)
};

std::string emit_deepspeed(const LaunchPlan& p);
std::string emit_accelerate(const LaunchPlan& p);
std::string emit_torchrun(const LaunchPlan& p);
std::string emit_skypilot(const LaunchPlan& p);
std::string emit_slurm(const LaunchPlan& p);

}  // namespace gpuplan::io
