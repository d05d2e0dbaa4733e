#pragma once
// Launch configurations for the engines that run a plan: DeepSpeed config JSON, accelerate
// config YAML, a torchrun launcher, a SkyPilot task YAML and a Slurm batch script. Text only;
// the caller decides where it goes. YAML and JSON go through yaml-cpp's emitter and nlohmann,
// and every shell word that carries a value is quoted, so a model named `2024`, `yes` or
// `x$(reboot)` reaches the engine as that string and nothing else.
#include <string>
#include <vector>

#include "gpuplan/catalog.hpp"

namespace gpuplan::io {

inline constexpr int kRendezvousPort = 29500;  // torchrun's and accelerate's default

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
  std::string accelerator;     // SkyPilot accelerator name, e.g. H100 or A100-80GB
  std::string cloud;           // SkyPilot cloud name; "" when the provider is not one
  std::string provider;        // the priced provider's id (named in comments)
  std::string region;          // pinned when not "" (SkyPilot)
  std::string instance_type;   // pinned when not "" (SkyPilot)
  bool spot = false;
  int disk_gb = 100;
  double hours = 1;            // expected wall time
  double checkpoint_minutes = 0;  // spot checkpoint interval (0: none)
  std::string head_address;    // accelerate multi-node: the machine_rank 0 host
  int port = kRendezvousPort;
  int node_rank = 0;           // accelerate multi-node: which machine this file is for
};

std::string emit_deepspeed(const LaunchPlan& p);
std::string emit_accelerate(const LaunchPlan& p);
std::string emit_torchrun(const LaunchPlan& p);
std::string emit_skypilot(const LaunchPlan& p);
std::string emit_slurm(const LaunchPlan& p);

// What an engine's file cannot say as planned (fp8 written as bf16, fsdp as ZeRO-3, a price
// SkyPilot may not reproduce): one sentence each, for the user to read before launching.
std::vector<std::string> launch_notes(const LaunchPlan& p, const std::string& engine);

// One shell word: bare when it is plainly safe, else single-quoted ('\'' for a quote), or
// double-quoted with $ ` " \ escaped when it holds a $ or a backquote.
std::string shell_quote(const std::string& word);

// SkyPilot's accelerator name for a GPU (`sky show-gpus` spelling), e.g. "A100-80GB".
std::string skypilot_accelerator(const Gpu& gpu);

// SkyPilot's cloud name for a provider id, or "" when SkyPilot cannot launch there.
std::string skypilot_cloud(const std::string& provider_id);

}  // namespace gpuplan::io
