#pragma once
// Launch configurations for the engines that run a plan: DeepSpeed config JSON, accelerate
// config YAML, a torchrun launcher, a SkyPilot task YAML, a Slurm batch script, a torchtitan
// job config (TOML) and a Megatron-LM launcher (emit_parallel.cpp). Text only; the caller
// decides where it goes. An engine that cannot run a plan as priced is refused by
// launch_refusal, which names the engine that can. YAML and JSON go through yaml-cpp's emitter and nlohmann,
// and every shell word that carries a value is quoted, so a model named `2024`, `yes` or
// `x$(reboot)` reaches the engine as that string and nothing else.
#include <string>
#include <utility>
#include <vector>

#include "gpuplan/catalog.hpp"

namespace gpuplan::io {

inline constexpr int kRendezvousPort = 29500;  // torchrun's and accelerate's default

// The architecture, for engines that build the model from flags (Megatron-LM).
struct LaunchArch {
  std::string id;              // gpuplan's catalog id ("" for a config.json of its own)
  int layers = 0, hidden = 0, ffn = 0, heads = 0, kv_heads = 0, head_dim = 0, vocab = 0;
  long long max_positions = 0;
  bool tied = false, gated_mlp = true, rmsnorm = true, qkv_bias = false, linear_bias = false, qk_norm = false;
  int experts = 0, experts_per_token = 0;
  bool unsupported_attention = false;  // MLA or sliding windows: not expressible as Megatron GPT flags
};

struct LaunchPlan {
  std::string model;           // Hugging Face id when known, else the catalog id
  std::string method;          // full | lora | qlora | freeze | pretrain
  std::string precision;       // bf16 | fp16 | fp8 | fp32
  std::string optimizer;       // adamw | adamw-8bit | ...
  std::string sharding;        // ddp | zero1 | zero2 | zero3 | fsdp
  std::string offload;         // none | optimizer | optimizer+params
  std::string checkpointing = "none";  // none | selective | full
  std::string attention = "flash";     // eager | sdpa | flash
  long long micro_batch = 1, grad_accum = 1, seq_len = 2048;
  // The layout: GPUs = tensor x pipeline x context parallel x data-parallel replicas; experts
  // split over expert_parallel GPUs of the data-parallel group. global_batch = micro_batch x
  // grad_accum x data_parallel sequences per optimizer step.
  int tensor_parallel = 1, pipeline_parallel = 1, virtual_pipeline = 1, context_parallel = 1, expert_parallel = 1;
  bool sequence_parallel = false;
  int data_parallel = 1;
  long long global_batch = 1;
  long long steps = 0;         // optimizer steps of the run
  LaunchArch arch;
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
std::string emit_torchtitan(const LaunchPlan& p);
std::string emit_megatron(const LaunchPlan& p);

// The engines `plan --emit` writes for, in the order shown to users.
inline constexpr const char* kLaunchEngines[] = {"deepspeed", "accelerate", "torchrun", "skypilot", "slurm", "torchtitan", "megatron"};

// Why `engine` cannot run the plan as priced (naming the engine that can), or "" when it can.
std::string launch_refusal(const LaunchPlan& p, const std::string& engine);

// torchtitan's registered model (name, flavor) for a catalog id, or {"", ""} (v0.2.2 registry).
std::pair<std::string, std::string> torchtitan_model(const std::string& catalog_id);

// What an engine's file cannot say as planned (fp8 written as bf16, fsdp as ZeRO-3, a price
// SkyPilot may not reproduce): one sentence each, for the user to read before launching.
std::vector<std::string> launch_notes(const LaunchPlan& p, const std::string& engine);

// One shell word: bare when it is plainly safe, else single-quoted ('\'' for a quote), or
// double-quoted with $ ` " \ escaped when it holds a $ or a backquote.
std::string shell_quote(const std::string& word);
// The c10d rendezvous endpoint of a multi-node torchrun, as one shell word: $MASTER_ADDR,
// defaulting to --head-address when one was given (else required), and the plan's port.
std::string rendezvous_endpoint(const LaunchPlan& p);
// torchrun's flags in a launcher script run on each node: standalone on one node, else the
// c10d rendezvous at rendezvous_endpoint() with $RDZV_ID (default "gpuplan") as its id.
std::string torchrun_script_flags(const LaunchPlan& p);

// SkyPilot's accelerator name for a GPU (`sky show-gpus` spelling), e.g. "A100-80GB".
std::string skypilot_accelerator(const Gpu& gpu);

// SkyPilot's cloud name for a provider id, or "" when SkyPilot cannot launch there.
std::string skypilot_cloud(const std::string& provider_id);

// SkyPilot's name for the GPU on one cloud, where that cloud's catalog spells it its own way
// (RunPod keeps SXM and PCIe apart: H100-SXM vs H100); "" when that cloud's catalog does not
// offer the GPU, so a task pinned there could not launch.
std::string skypilot_accelerator_on(const Gpu& gpu, const std::string& cloud);

// The SkyPilot instance type to pin for an offer whose accelerator name is shared by several
// instance types on its cloud (Lambda's H100 is both gpu_1x_h100_pcie and gpu_8x_h100_sxm5), or "".
std::string skypilot_instance_type(const std::string& cloud, const std::string& offer_id);

}  // namespace gpuplan::io
