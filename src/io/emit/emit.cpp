#include "io/emit/emit.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace gpuplan::io {

namespace {

int zero_stage(const LaunchPlan& p) {
  if (p.sharding == "zero1") return 1;
  if (p.sharding == "zero2") return 2;
  if (p.sharding == "zero3" || p.sharding == "fsdp") return 3;
  // DeepSpeed offloads from stage 1 up; on one GPU ZeRO-2 shards nothing, so it is DDP with offload.
  return p.offload == "none" ? 0 : 2;
}

// Slurm's D-HH:MM:SS (an H:MM:SS with H past 24 is not a form every Slurm version takes).
std::string slurm_time(double hours) {
  const long long total = std::max(60LL, static_cast<long long>(std::ceil(hours * 3600)));
  char buf[48];
  std::snprintf(buf, sizeof buf, "%lld-%02lld:%02lld:%02lld", total / 86400, total / 3600 % 24, total / 60 % 60, total % 60);
  return buf;
}

// A comment line cannot hold a newline: control characters are shown escaped.
std::string comment_safe(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c < 0x20 || c == 0x7f) out += '?';
    else out += static_cast<char>(c);
  }
  return out;
}

// train.py's arguments: every setting the plan priced, each value its own quoted word.
std::string train_args(const LaunchPlan& p) {
  std::string s = "train.py --model " + shell_quote(p.model) + " --method " + shell_quote(p.method) +
                  " --precision " + shell_quote(p.precision) + " --optimizer " + shell_quote(p.optimizer) +
                  " --micro-batch " + std::to_string(p.micro_batch) + " --grad-accum " + std::to_string(p.grad_accum) +
                  " --global-batch " + std::to_string(p.global_batch) + " --seq-len " + std::to_string(p.seq_len) +
                  " --sharding " + shell_quote(p.sharding) + " --offload " + shell_quote(p.offload) +
                  " --checkpointing " + shell_quote(p.checkpointing) + " --attention " + shell_quote(p.attention) +
                  " --tensor-parallel " + std::to_string(p.tensor_parallel) + " --pipeline-parallel " + std::to_string(p.pipeline_parallel) +
                  " --context-parallel " + std::to_string(p.context_parallel);
  if (p.virtual_pipeline > 1) s += " --virtual-pipeline " + std::to_string(p.virtual_pipeline);
  if (p.expert_parallel > 1) s += " --expert-parallel " + std::to_string(p.expert_parallel);
  if (p.sequence_parallel) s += " --sequence-parallel";
  if (p.method == "lora" || p.method == "qlora") s += " --lora-rank " + std::to_string(p.lora_rank);
  return s;
}

// torchrun's own flags. Multi-node uses the c10d rendezvous, which hands out node ranks
// itself, so no node needs to be told its rank; `endpoint` is a shell word (may expand).
std::string torchrun_flags(const LaunchPlan& p, const std::string& rdzv_id, const std::string& endpoint) {
  if (p.nodes <= 1) return "--standalone --nnodes 1 --nproc_per_node " + std::to_string(p.gpus_per_node);
  return "--nnodes " + std::to_string(p.nodes) + " --nproc_per_node " + std::to_string(p.gpus_per_node) + " --rdzv_id " + rdzv_id +
         " --rdzv_backend c10d --rdzv_endpoint " + endpoint;
}

}  // namespace

std::string rendezvous_endpoint(const LaunchPlan& p) {
  const std::string addr = p.head_address.empty() ? "${MASTER_ADDR:?set MASTER_ADDR to the first node address}"
                                                  : "${MASTER_ADDR:-" + p.head_address + "}";
  return "\"" + addr + ":" + std::to_string(p.port) + "\"";
}

std::string torchrun_script_flags(const LaunchPlan& p) {
  return torchrun_flags(p, "\"${RDZV_ID:-gpuplan}\"", rendezvous_endpoint(p));
}

namespace {

std::string yaml_text(const YAML::Emitter& out, const std::string& header) {
  if (!out.good()) throw std::logic_error("YAML emitter: " + out.GetLastError());
  return header + out.c_str() + "\n";
}

// Strings are always double-quoted: yaml-cpp then escapes what must be escaped and no value
// can be read back as a number, a boolean or null.
void put(YAML::Emitter& out, const char* key, const std::string& value) {
  out << YAML::Key << key << YAML::Value << YAML::DoubleQuoted << value;
}
template <class T>
void put(YAML::Emitter& out, const char* key, T value) {
  out << YAML::Key << key << YAML::Value << value;
}

}  // namespace

std::string shell_quote(const std::string& word) {
  const bool bare = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("_-./:=@+,%").find(c) != std::string_view::npos;
  });
  if (bare) return word;
  if (word.find_first_of("$`") != std::string::npos) {
    // Double quotes with $ ` " \ escaped: as literal as single quotes, and a reader (and
    // shellcheck) can see the $ is not meant to expand.
    std::string out = "\"";
    for (char c : word) {
      if (c == '$' || c == '`' || c == '"' || c == '\\') out += '\\';
      out += c;
    }
    return out + "\"";
  }
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string emit_deepspeed(const LaunchPlan& p) {
  // Keys as DeepSpeed's configuration reference documents them (deepspeed.ai/docs/config-json).
  nlohmann::json j;
  j["train_micro_batch_size_per_gpu"] = p.micro_batch;
  j["gradient_accumulation_steps"] = p.grad_accum;
  j["train_batch_size"] = p.global_batch;  // micro-batch x accumulation x data-parallel replicas
  j["gradient_clipping"] = 1.0;
  j["bf16"] = {{"enabled", p.precision == "bf16" || p.precision == "fp8"}};  // see launch_notes
  j["fp16"] = {{"enabled", p.precision == "fp16"}};
  nlohmann::json zero = {{"stage", zero_stage(p)}, {"overlap_comm", true}, {"contiguous_gradients", true}};
  if (p.offload == "optimizer" || p.offload == "optimizer+params") zero["offload_optimizer"] = {{"device", "cpu"}, {"pin_memory", true}};
  if (p.offload == "optimizer+params") zero["offload_param"] = {{"device", "cpu"}, {"pin_memory", true}};
  j["zero_optimization"] = zero;
  // train.py hands deepspeed.initialize its own optimizer; with offload DeepSpeed refuses a
  // client optimizer unless this is off (pass DeepSpeedCPUAdam for the priced CPU step).
  if (p.offload != "none") j["zero_force_ds_cpu_optimizer"] = false;
  j["activation_checkpointing"] = {{"partition_activations", false}, {"contiguous_memory_optimization", false}};
  j["wall_clock_breakdown"] = false;
  return j.dump(2) + "\n";
}

std::string emit_accelerate(const LaunchPlan& p) {
  // Keys as accelerate's ClusterConfig reads them (accelerate/commands/config/config_args.py).
  const bool fsdp = p.sharding == "fsdp";
  const bool ds = p.sharding == "zero1" || p.sharding == "zero2" || p.sharding == "zero3" || (!fsdp && p.offload != "none");
  YAML::Emitter out;
  out << YAML::BeginMap;
  put(out, "compute_environment", std::string("LOCAL_MACHINE"));
  put(out, "distributed_type", std::string(ds ? "DEEPSPEED" : p.gpus == 1 ? "NO" : fsdp ? "FSDP" : "MULTI_GPU"));
  put(out, "mixed_precision", std::string(p.precision == "fp32" ? "no" : p.precision));
  put(out, "num_machines", p.nodes);
  put(out, "num_processes", p.gpus);
  put(out, "machine_rank", p.node_rank);
  if (p.nodes > 1) {
    put(out, "main_process_ip", p.head_address);
    put(out, "main_process_port", p.port);
    put(out, "rdzv_backend", std::string("static"));
    put(out, "same_network", true);
  }
  put(out, "main_training_function", std::string("main"));
  if (fsdp) {
    out << YAML::Key << "fsdp_config" << YAML::Value << YAML::BeginMap;
    put(out, "fsdp_sharding_strategy", std::string("FULL_SHARD"));
    put(out, "fsdp_auto_wrap_policy", std::string("TRANSFORMER_BASED_WRAP"));
    put(out, "fsdp_offload_params", p.offload == "optimizer+params");
    put(out, "fsdp_activation_checkpointing", p.checkpointing != "none");
    put(out, "fsdp_state_dict_type", std::string("SHARDED_STATE_DICT"));
    out << YAML::EndMap;
  }
  if (ds) {
    out << YAML::Key << "deepspeed_config" << YAML::Value << YAML::BeginMap;
    put(out, "zero_stage", zero_stage(p));
    put(out, "gradient_accumulation_steps", p.grad_accum);
    // Without it accelerate starts `deepspeed --launcher pdsh` on each machine: separate jobs.
    if (p.nodes > 1) put(out, "deepspeed_multinode_launcher", std::string("standard"));
    put(out, "offload_optimizer_device", std::string(p.offload == "none" ? "none" : "cpu"));
    put(out, "offload_param_device", std::string(p.offload == "optimizer+params" ? "cpu" : "none"));
    if (zero_stage(p) == 3) put(out, "zero3_init_flag", true);
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
  std::string header = "# accelerate launch --config_file this.yaml train.py  (written by gpuplan plan for " + comment_safe(p.model) + ")\n" +
                       "# train.py's settings: " + comment_safe(train_args(p)) + "\n";
  if (p.nodes > 1)
    header += "# machine " + std::to_string(p.node_rank) + " of " + std::to_string(p.nodes) +
              ": every machine needs its own file (gpuplan plan ... --node-rank N)\n";
  return yaml_text(out, header);
}

std::string emit_torchrun(const LaunchPlan& p) {
  std::string s = "#!/bin/bash\n# written by gpuplan plan for " + comment_safe(p.model) + "; train.py and its flags are yours to map\n";
  if (p.nodes > 1)
    s += "# run this on each of the " + std::to_string(p.nodes) + " nodes" +
         (p.head_address.empty() ? " with MASTER_ADDR set to the first node's address" : " (MASTER_ADDR overrides " + p.head_address + ")") +
         ";\n# the c10d rendezvous assigns the node ranks\n";
  s += "set -euo pipefail\n";
  s += "torchrun " + torchrun_script_flags(p) + " " + train_args(p) + "\n";
  return s;
}

std::string emit_skypilot(const LaunchPlan& p) {
  // Keys as SkyPilot's task YAML reference documents them (docs.skypilot.co, "YAML spec").
  YAML::Emitter out;
  out << YAML::BeginMap;
  put(out, "name", "gpuplan-" + p.method);
  put(out, "num_nodes", p.nodes);
  out << YAML::Key << "resources" << YAML::Value << YAML::BeginMap;
  if (!p.cloud.empty()) put(out, "cloud", p.cloud);
  if (!p.cloud.empty() && !p.region.empty()) put(out, "region", p.region);
  if (!p.instance_type.empty()) put(out, "instance_type", p.instance_type);
  put(out, "accelerators", p.accelerator + ":" + std::to_string(p.gpus_per_node));
  put(out, "use_spot", p.spot);
  put(out, "disk_size", p.disk_gb);
  if (p.spot) {
    out << YAML::Key << "job_recovery" << YAML::Value << YAML::BeginMap;
    put(out, "strategy", std::string("FAILOVER"));
    put(out, "max_restarts_on_errors", 3);
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
  out << YAML::Key << "envs" << YAML::Value << YAML::BeginMap;  // SkyPilot env values are strings
  put(out, "MODEL", p.model);
  put(out, "MICRO_BATCH", std::to_string(p.micro_batch));
  put(out, "GRAD_ACCUM", std::to_string(p.grad_accum));
  if (p.checkpoint_minutes > 0) put(out, "CHECKPOINT_EVERY_MINUTES", std::to_string(static_cast<long long>(std::llround(p.checkpoint_minutes))));
  out << YAML::EndMap;
  // SkyPilot sets SKYPILOT_NODE_IPS / _NODE_RANK / _NUM_NODES / _NUM_GPUS_PER_NODE on every node.
  LaunchPlan q = p;
  q.model = "${MODEL}";
  std::string args = train_args(q);
  const std::string quoted = shell_quote(q.model);
  args.replace(args.find(quoted), quoted.size(), "\"$MODEL\"");
  std::string run = "set -euo pipefail\n";
  if (p.nodes > 1) {
    // sed reads all its input: `head -n 1` can exit first and, under pipefail, fail the job on SIGPIPE.
    run += "MASTER_ADDR=$(echo \"$SKYPILOT_NODE_IPS\" | sed -n 1p)\n";
    run += "torchrun --nnodes \"$SKYPILOT_NUM_NODES\" --node_rank \"$SKYPILOT_NODE_RANK\" --nproc_per_node \"$SKYPILOT_NUM_GPUS_PER_NODE\" "
           "--master_addr \"$MASTER_ADDR\" --master_port " + std::to_string(p.port) + " " + args + "\n";
  } else {
    run += "torchrun --standalone --nnodes 1 --nproc_per_node \"$SKYPILOT_NUM_GPUS_PER_NODE\" " + args + "\n";
  }
  out << YAML::Key << "run" << YAML::Value << YAML::Literal << run;
  out << YAML::EndMap;
  return yaml_text(out, std::string("# ") + (p.spot ? "sky jobs launch" : "sky launch") + " this.yaml  (written by gpuplan plan, priced on " +
                            comment_safe(p.provider) + ")\n");
}

std::string emit_slurm(const LaunchPlan& p) {
  std::string s = "#!/bin/bash\n";
  s += "#SBATCH --job-name=gpuplan-" + p.method + "\n";
  s += "#SBATCH --nodes=" + std::to_string(p.nodes) + "\n";
  s += "#SBATCH --ntasks-per-node=1\n";  // one torchrun per node; it starts the per-GPU workers
  s += "#SBATCH --gpus-per-node=" + std::to_string(p.gpus_per_node) + "\n";
  s += "#SBATCH --time=" + slurm_time(p.hours * 1.2) + "\n";  // 20% over the estimate before the scheduler kills it
  s += "#SBATCH --exclusive\n";
  s += "# written by gpuplan plan: " + comment_safe(p.model) + ", " + p.method + ", " + p.precision + ", micro-batch " +
       std::to_string(p.micro_batch) + " x " + std::to_string(p.grad_accum) + " accumulation\n";
  s += "set -euo pipefail\n";
  if (p.nodes > 1) {
    // Slurm sets no MASTER_ADDR or NODE_RANK: the first host of the allocation is the
    // rendezvous point and the c10d rendezvous gives each node its rank.
    // sed reads all its input: `head -n 1` can exit first and, under pipefail, fail the job on SIGPIPE.
    s += "head_node=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | sed -n 1p)\n";
    s += "srun torchrun " + torchrun_flags(p, "\"$SLURM_JOB_ID\"", "\"$head_node:" + std::to_string(p.port) + "\"") + " " + train_args(p) + "\n";
  } else {
    s += "srun torchrun " + torchrun_flags(p, "", "") + " " + train_args(p) + "\n";
  }
  return s;
}

std::vector<std::string> launch_notes(const LaunchPlan& p, const std::string& engine) {
  std::vector<std::string> notes;
  if (engine == "deepspeed") {
    if (p.precision == "fp8")
      notes.push_back("DeepSpeed's config has no fp8 switch: the file enables bf16; fp8 needs Transformer Engine in train.py");
    if (p.sharding == "fsdp") notes.push_back("DeepSpeed has no FSDP: fsdp is written as ZeRO stage 3, which shards the same state");
  }
  if ((engine == "deepspeed" || engine == "accelerate") && p.offload != "none" && p.sharding != "fsdp") {
    notes.push_back("the offload was priced with DeepSpeed's CPU Adam step: give deepspeed.initialize a "
                    "deepspeed.ops.adam.DeepSpeedCPUAdam (the config lets a client optimizer through)");
    if (p.sharding == "ddp") notes.push_back("one GPU with offload is written as ZeRO stage 2, which shards nothing on one GPU");
  }
  const bool layout = p.tensor_parallel > 1 || p.pipeline_parallel > 1 || p.context_parallel > 1 || p.expert_parallel > 1;
  if ((engine == "torchrun" || engine == "slurm" || engine == "skypilot") && layout)
    notes.push_back("train.py gets the layout as flags (--tensor-parallel " + std::to_string(p.tensor_parallel) + " --pipeline-parallel " +
                    std::to_string(p.pipeline_parallel) + " --context-parallel " + std::to_string(p.context_parallel) +
                    ") and must build it itself; --emit megatron or torchtitan writes a config an engine runs as is");
  if (engine == "accelerate" && p.precision == "fp8")
    notes.push_back("accelerate's fp8 mixed precision needs Transformer Engine or MS-AMP installed on every node");
  if (engine == "skypilot") {
    if (p.cloud.empty() && !skypilot_cloud(p.provider).empty())
      notes.push_back("SkyPilot's catalog for " + skypilot_cloud(p.provider) + " does not offer " + p.accelerator +
                      ": the task pins no cloud, so SkyPilot may run it elsewhere at another price");
    else if (p.cloud.empty())
      notes.push_back("provider '" + p.provider + "' is not a SkyPilot cloud: the task pins no cloud, so SkyPilot may run it "
                      "elsewhere at another price");
    else if (p.instance_type.empty())
      notes.push_back("the price sheet names no instance type: SkyPilot picks one with " + std::to_string(p.gpus_per_node) + "x " +
                      p.accelerator + " on " + p.cloud + (p.region.empty() ? "" : " in " + p.region));
  }
  return notes;
}

std::string skypilot_accelerator(const Gpu& gpu) {
  // `sky show-gpus` spellings (SkyPilot's public catalogs, skypilot-org/skypilot-catalog v8).
  static const std::pair<const char*, const char*> kNames[] = {
      {"rtx-3060-12gb", "RTX3060"}, {"rtx-3090", "RTX3090"},       {"rtx-4090", "RTX4090"},       {"rtx-5090", "RTX5090"},
      {"rtx-4000-ada", "RTX4000-Ada"}, {"rtx-6000-ada", "RTX6000-Ada"}, {"l4", "L4"},          {"l40s", "L40S"},
      {"a10g", "A10G"},             {"t4", "T4"},                   {"v100-16gb", "V100"},         {"v100-32gb", "V100-32GB"},
      {"a100-40gb-pcie", "A100"},   {"a100-40gb-sxm", "A100"},      {"a100-80gb-pcie", "A100-80GB"}, {"a100-80gb-sxm", "A100-80GB"},
      {"h100-pcie", "H100"},        {"h100-sxm", "H100"},           {"h200", "H200"},              {"b200", "B200"},
      {"mi250x", "MI250X"},         {"mi300x", "MI300X"},           {"mi325x", "MI325X"}};
  for (const auto& [id, name] : kNames)
    if (gpu.id == id) return name;
  // A catalog's own GPU: its first alias without spaces, else the first with them closed up.
  auto has_letter = [](const std::string& a) { return std::any_of(a.begin(), a.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); }); };
  for (const auto& a : gpu.aliases)
    if (has_letter(a) && a.find(' ') == std::string::npos) return a;
  for (std::string a : gpu.aliases) {
    if (!has_letter(a)) continue;
    a.erase(std::remove(a.begin(), a.end(), ' '), a.end());
    return a;
  }
  return gpu.id;
}

std::string skypilot_accelerator_on(const Gpu& gpu, const std::string& cloud) {
  // Clouds whose catalog spells GPUs its own way, listed whole: `sky show-gpus --cloud runpod`
  // (SkyPilot's catalogs/v8/runpod/vms.csv AcceleratorName), Lambda's catalogs/v8/lambda/vms.csv,
  // and DigitalOcean, where SkyPilot offers only the H100 droplets.
  struct Name {
    const char *cloud, *gpu, *name;
  };
  static const Name kNames[] = {
      {"runpod", "h100-sxm", "H100-SXM"},     {"runpod", "h100-pcie", "H100"},           {"runpod", "h200", "H200-SXM"},
      {"runpod", "a100-80gb-sxm", "A100-80GB-SXM"}, {"runpod", "a100-80gb-pcie", "A100-80GB"}, {"runpod", "b200", "B200"},
      {"runpod", "mi300x", "MI300X"},         {"runpod", "l4", "L4"},                    {"runpod", "rtx-3090", "RTX3090"},
      {"runpod", "rtx-4090", "RTX4090"},      {"runpod", "rtx-4000-ada", "RTX4000-Ada"}, {"runpod", "rtx-6000-ada", "RTX6000-Ada"},
      {"lambda", "h100-sxm", "H100"},         {"lambda", "h100-pcie", "H100"},           {"lambda", "a100-40gb-pcie", "A100"},
      {"lambda", "a100-40gb-sxm", "A100"},    {"lambda", "a100-80gb-sxm", "A100-80GB"},  {"lambda", "b200", "B200"},
      {"lambda", "v100-16gb", "V100"},        {"do", "h100-sxm", "H100"}};
  static const char* const kListed[] = {"runpod", "lambda", "do"};
  // Single GPUs other clouds' catalogs lack (OCI's catalog has no B200 or MI300X shapes for SkyPilot).
  static const std::pair<const char*, const char*> kMissing[] = {{"oci", "b200"}, {"oci", "mi300x"}};
  for (const auto& n : kNames)
    if (cloud == n.cloud && gpu.id == n.gpu) return n.name;
  for (const char* c : kListed)
    if (cloud == c) return "";
  for (const auto& [c, g] : kMissing)
    if (cloud == c && gpu.id == g) return "";
  return skypilot_accelerator(gpu);
}

std::string skypilot_instance_type(const std::string& cloud, const std::string& offer_id) {
  // Lambda's offers are its instance types with - for _ (gpu-8x-h100-sxm5 is gpu_8x_h100_sxm5).
  if (cloud != "lambda" || offer_id.rfind("gpu-", 0) != 0) return "";
  std::string t = offer_id;
  std::replace(t.begin(), t.end(), '-', '_');
  return t;
}

std::string skypilot_cloud(const std::string& provider_id) {
  // SkyPilot's cloud names (`sky check`); providers outside this list cannot be pinned.
  static const std::pair<const char*, const char*> kClouds[] = {
      {"aws", "aws"},     {"gcp", "gcp"},         {"azure", "azure"},   {"lambda", "lambda"}, {"runpod", "runpod"},
      {"oci", "oci"},     {"nebius", "nebius"},   {"digitalocean", "do"}, {"paperspace", "paperspace"},
      {"fluidstack", "fluidstack"}, {"cudo", "cudo"}, {"vast", "vast"}, {"ibm", "ibm"}, {"scp", "scp"}};
  for (const auto& [id, name] : kClouds)
    if (provider_id == id) return name;
  return "";
}

}  // namespace gpuplan::io
