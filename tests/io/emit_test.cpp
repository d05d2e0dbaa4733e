#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>
#include <yaml-cpp/yaml.h>

#include "io/emit/emit.hpp"

using namespace gpuplan;

namespace {
io::LaunchPlan plan() {
  io::LaunchPlan p;
  p.model = "meta-llama/Llama-3.1-8B";
  p.method = "full";
  p.precision = "bf16";
  p.optimizer = "adamw";
  p.sharding = "zero3";
  p.offload = "optimizer";
  p.checkpointing = "full";
  p.micro_batch = 4;
  p.grad_accum = 2;
  p.global_batch = 4 * 2 * 16;
  p.data_parallel = 16;
  p.gpus = 16;
  p.gpus_per_node = 8;
  p.nodes = 2;
  p.accelerator = "H100";
  p.spot = true;
  p.hours = 5.5;
  p.checkpoint_minutes = 30;
  return p;
}
}  // namespace

TEST_CASE("the DeepSpeed config parses and carries the plan's numbers", "[emit]") {
  const auto j = nlohmann::json::parse(io::emit_deepspeed(plan()));
  CHECK(j["train_micro_batch_size_per_gpu"] == 4);
  CHECK(j["gradient_accumulation_steps"] == 2);
  CHECK(j["train_batch_size"] == 4 * 2 * 16);
  CHECK(j["zero_optimization"]["stage"] == 3);
  CHECK(j["zero_optimization"]["offload_optimizer"]["device"] == "cpu");
  CHECK(j["bf16"]["enabled"] == true);
}

TEST_CASE("the accelerate and SkyPilot YAML parse and carry the plan's numbers", "[emit]") {
  const YAML::Node a = YAML::Load(io::emit_accelerate(plan()));
  CHECK(a["distributed_type"].as<std::string>() == "DEEPSPEED");  // zero3 stays ZeRO-3
  CHECK(a["deepspeed_config"]["zero_stage"].as<int>() == 3);
  CHECK(a["machine_rank"].as<int>() == 0);
  CHECK(a["main_process_port"].as<int>() == 29500);
  CHECK(a["num_processes"].as<int>() == 16);
  CHECK(a["num_machines"].as<int>() == 2);
  CHECK(a["mixed_precision"].as<std::string>() == "bf16");
  io::LaunchPlan f = plan();
  f.sharding = "fsdp";
  f.head_address = "10.0.0.1";
  f.node_rank = 1;
  const YAML::Node af = YAML::Load(io::emit_accelerate(f));
  CHECK(af["distributed_type"].as<std::string>() == "FSDP");
  CHECK(af["fsdp_config"]["fsdp_activation_checkpointing"].as<bool>());
  CHECK(af["main_process_ip"].as<std::string>() == "10.0.0.1");
  CHECK(af["machine_rank"].as<int>() == 1);
  const YAML::Node s = YAML::Load(io::emit_skypilot(plan()));
  CHECK(s["num_nodes"].as<int>() == 2);
  CHECK(s["resources"]["accelerators"].as<std::string>() == "H100:8");
  CHECK(s["resources"]["use_spot"].as<bool>());
  CHECK(s["envs"]["CHECKPOINT_EVERY_MINUTES"].as<std::string>() == "30");
  CHECK(s["run"].IsScalar());
}

TEST_CASE("torchrun and Slurm lines carry the process layout", "[emit]") {
  const std::string t = io::emit_torchrun(plan());
  CHECK(t.find("--nnodes 2") != std::string::npos);
  CHECK(t.find("--rdzv_backend c10d") != std::string::npos);
  CHECK(t.find("NODE_RANK") == std::string::npos);  // the rendezvous assigns ranks
  CHECK(t.find("--nproc_per_node 8") != std::string::npos);
  CHECK(t.find("--micro-batch 4 --grad-accum 2") != std::string::npos);
  const std::string s = io::emit_slurm(plan());
  CHECK(s.rfind("#!/bin/bash\n", 0) == 0);
  CHECK(s.find("#SBATCH --nodes=2") != std::string::npos);
  CHECK(s.find("#SBATCH --gpus-per-node=8") != std::string::npos);
  CHECK(s.find("#SBATCH --time=0-06:36:00") != std::string::npos);  // 5.5 h + 20%
  CHECK(s.find("srun torchrun") != std::string::npos);
  CHECK(s.find("scontrol show hostnames \"$SLURM_JOB_NODELIST\"") != std::string::npos);
  CHECK(s.find("--rdzv_id \"$SLURM_JOB_ID\"") != std::string::npos);
  CHECK(s.find("$MASTER_ADDR") == std::string::npos);  // Slurm does not set it
}

namespace {
// Names that a hand-written emitter gets wrong: YAML 1.1 booleans and numbers, shell
// expansions, both quotes, a newline, spaces, a leading dash and non-ASCII text.
const char* const kHostile[] = {"2024", "yes", "no", "null", "1e3", "x$(echo INJECTED)", "`id`", "it's \"q\"", "new\nline",
                                "a b", "-rf", "\u00fcnic\u00f8de-\u6a21\u578b", "back\\slash", "#hash", "a: b", "{x}"};

std::vector<std::string> keys(const YAML::Node& n) {
  std::vector<std::string> out;
  for (const auto& kv : n) out.push_back(kv.first.as<std::string>());
  return out;
}

bool all_in(const std::vector<std::string>& got, const std::set<std::string>& allowed) {
  for (const auto& k : got)
    if (!allowed.count(k)) {
      UNSCOPED_INFO("undocumented key " << k);
      return false;
    }
  return true;
}
}  // namespace

TEST_CASE("hostile model names round-trip through the SkyPilot YAML unchanged", "[emit]") {
  for (const char* name : kHostile) {
    io::LaunchPlan p = plan();
    p.model = name;
    const YAML::Node s = YAML::Load(io::emit_skypilot(p));
    INFO(name);
    CHECK(s["envs"]["MODEL"].as<std::string>() == name);
    CHECK(s["envs"]["MODEL"].Tag() == "!");  // a quoted scalar: never retyped as bool or number
    CHECK(s["run"].as<std::string>().find("\"$MODEL\"") != std::string::npos);
    // The comment lines stay comments: a newline in the name cannot start a YAML line.
    const YAML::Node a = YAML::Load(io::emit_accelerate(p));
    CHECK(a["num_processes"].as<int>() == 16);
  }
}

TEST_CASE("shell_quote makes one word of anything", "[emit]") {
  CHECK(io::shell_quote("meta-llama/Llama-3.1-8B") == "meta-llama/Llama-3.1-8B");
  CHECK(io::shell_quote("a b") == "'a b'");
  CHECK(io::shell_quote("it's") == "'it'\\''s'");
  CHECK(io::shell_quote("") == "''");
  CHECK(io::shell_quote("$(x)") == "\"\\$(x)\"");
  CHECK(io::shell_quote("a\"$b`c\\") == "\"a\\\"\\$b\\`c\\\\\"");
}

// The keys each engine documents. DeepSpeed: deepspeed.ai/docs/config-json; accelerate:
// ClusterConfig in accelerate/commands/config/config_args.py (+ its fsdp/deepspeed dicts);
// SkyPilot: docs.skypilot.co/en/latest/reference/yaml-spec.html.
TEST_CASE("every emitted key is one the engine documents", "[emit]") {
  const std::set<std::string> ds_top = {"train_batch_size", "train_micro_batch_size_per_gpu", "gradient_accumulation_steps", "gradient_clipping",
                                        "bf16", "fp16", "zero_optimization", "activation_checkpointing", "wall_clock_breakdown",
                                        "zero_force_ds_cpu_optimizer"};
  const std::set<std::string> ds_zero = {"stage", "overlap_comm", "contiguous_gradients", "offload_optimizer", "offload_param"};
  const std::set<std::string> acc = {"compute_environment", "distributed_type", "mixed_precision", "num_machines", "num_processes",
                                     "machine_rank", "main_process_ip", "main_process_port", "rdzv_backend", "same_network",
                                     "main_training_function", "fsdp_config", "deepspeed_config"};
  const std::set<std::string> sky = {"name", "num_nodes", "resources", "envs", "run"};
  const std::set<std::string> sky_res = {"cloud", "region", "instance_type", "accelerators", "use_spot", "disk_size", "job_recovery"};
  for (const char* sharding : {"ddp", "zero2", "zero3", "fsdp"}) {
    io::LaunchPlan p = plan();
    p.sharding = sharding;
    p.cloud = "aws";
    p.region = "us-east-1";
    p.instance_type = "p5.48xlarge";
    const auto j = nlohmann::json::parse(io::emit_deepspeed(p));
    std::vector<std::string> jk, zk;
    for (const auto& [k, v] : j.items()) jk.push_back(k);
    for (const auto& [k, v] : j["zero_optimization"].items()) zk.push_back(k);
    CHECK(all_in(jk, ds_top));
    CHECK(all_in(zk, ds_zero));
    CHECK(all_in(keys(YAML::Load(io::emit_accelerate(p))), acc));
    const YAML::Node s = YAML::Load(io::emit_skypilot(p));
    CHECK(all_in(keys(s), sky));
    CHECK(all_in(keys(s["resources"]), sky_res));
    CHECK(s["resources"]["instance_type"].as<std::string>() == "p5.48xlarge");
    CHECK(s["resources"]["cloud"].as<std::string>() == "aws");
  }
}

TEST_CASE("what an engine's file cannot say is said", "[emit]") {
  io::LaunchPlan p = plan();
  p.precision = "fp8";
  p.sharding = "fsdp";
  const auto notes = io::launch_notes(p, "deepspeed");
  REQUIRE(notes.size() == 2);
  CHECK(notes[0].find("bf16") != std::string::npos);
  CHECK(notes[1].find("ZeRO stage 3") != std::string::npos);
  CHECK(io::launch_notes(p, "slurm").empty());
  p.cloud = "";
  p.provider = "e2e";
  CHECK(io::launch_notes(p, "skypilot").size() == 1);
}

namespace {
// Llama 3.1 70B on 4 nodes of 8: tensor parallel 4 x pipeline 4 x data parallel 2.
io::LaunchPlan tp_pp_plan() {
  io::LaunchPlan p = plan();
  p.model = "meta-llama/Llama-3.1-70B";
  p.sharding = "ddp";
  p.offload = "none";
  p.gpus = 32;
  p.nodes = 4;
  p.tensor_parallel = 4;
  p.pipeline_parallel = 4;
  p.sequence_parallel = true;
  p.data_parallel = 2;
  p.micro_batch = 1;
  p.grad_accum = 128;
  p.global_batch = 256;
  p.steps = 1000;
  p.arch = {"llama-3.1-70b", 80, 8192, 28672, 64, 8, 128, 128256, 131072, false, true, true, false, false, false, 0, 0, false};
  return p;
}
}  // namespace

TEST_CASE("DeepSpeed's batch is the plan's global batch, offload lets the client optimizer in", "[emit]") {
  io::LaunchPlan p = plan();
  p.data_parallel = 8;  // e.g. context parallel 2 on 16 GPUs: 8 replicas
  p.global_batch = 4 * 2 * 8;
  CHECK(nlohmann::json::parse(io::emit_deepspeed(p))["train_batch_size"] == 64);
  CHECK(nlohmann::json::parse(io::emit_deepspeed(p))["zero_force_ds_cpu_optimizer"] == false);
  p.offload = "none";
  CHECK(!nlohmann::json::parse(io::emit_deepspeed(p)).contains("zero_force_ds_cpu_optimizer"));
  // DDP with offload on one GPU: ZeRO-2, which shards nothing there (stage 0 cannot offload).
  p.sharding = "ddp";
  p.offload = "optimizer";
  p.gpus = p.nodes = p.gpus_per_node = 1;
  CHECK(nlohmann::json::parse(io::emit_deepspeed(p))["zero_optimization"]["stage"] == 2);
}

TEST_CASE("accelerate on several nodes runs DeepSpeed as one job", "[emit]") {
  io::LaunchPlan p = plan();  // zero3 on 2 nodes
  p.head_address = "10.0.0.1";
  CHECK(YAML::Load(io::emit_accelerate(p))["deepspeed_config"]["deepspeed_multinode_launcher"].as<std::string>() == "standard");
  p.nodes = 1;
  CHECK(!YAML::Load(io::emit_accelerate(p))["deepspeed_config"]["deepspeed_multinode_launcher"]);
}

TEST_CASE("an engine that cannot run the priced layout is refused, naming one that can", "[emit]") {
  const io::LaunchPlan p = tp_pp_plan();
  for (const char* engine : {"deepspeed", "accelerate"}) {
    const std::string why = io::launch_refusal(p, engine);
    CHECK(why.find("tensor parallel 4, pipeline parallel 4") != std::string::npos);
    CHECK(why.find("--emit megatron or --emit torchtitan") != std::string::npos);
  }
  for (const char* engine : {"torchrun", "slurm", "skypilot", "torchtitan", "megatron"}) CHECK(io::launch_refusal(p, engine).empty());
  io::LaunchPlan q = p;
  q.arch.id = "mistral-7b";  // not in torchtitan's registry
  CHECK(io::launch_refusal(q, "torchtitan").find("--emit megatron") != std::string::npos);
  CHECK(io::launch_refusal(q, "deepspeed").find("--emit megatron") != std::string::npos);
  q = p;
  q.sequence_parallel = false;  // torchtitan's TP always is
  CHECK(io::launch_refusal(q, "torchtitan").find("--sequence-parallel") != std::string::npos);
  q = plan();
  q.sharding = "fsdp";  // accelerate's FSDP cannot offload the optimizer alone
  CHECK(io::launch_refusal(q, "accelerate").find("--emit deepspeed") != std::string::npos);
  q.offload = "optimizer+params";
  CHECK(io::launch_refusal(q, "accelerate").empty());
  q = tp_pp_plan();
  q.offload = "optimizer+params";
  q.sharding = "zero3";
  CHECK(io::launch_refusal(q, "megatron").find("--emit torchtitan") != std::string::npos);
  q.method = "lora";
  CHECK(io::launch_refusal(q, "deepspeed").find("no engine gpuplan writes for") != std::string::npos);
}

TEST_CASE("torchtitan's job config carries the layout, batch and checkpointing", "[emit]") {
  const std::string t = io::emit_torchtitan(tp_pp_plan());
  for (const char* line : {"name = \"llama3\"", "flavor = \"70B\"", "tensor_parallel_degree = 4", "pipeline_parallel_degree = 4",
                           "data_parallel_replicate_degree = 2", "data_parallel_shard_degree = 1", "context_parallel_degree = 1",
                           "local_batch_size = 128", "global_batch_size = 256", "pipeline_parallel_microbatch_size = 1",
                           "steps = 1000", "mode = \"full\"", "enable = false", "enable_cpu_offload = false"})
    CHECK(t.find(std::string(line) + "\n") != std::string::npos);
  io::LaunchPlan p = tp_pp_plan();
  p.precision = "fp8";
  p.sharding = "fsdp";
  const std::string f = io::emit_torchtitan(p);
  CHECK(f.find("converters = [\"quantize.linear.float8\"]") != std::string::npos);
  CHECK(f.find("[compile]\nenable = true") != std::string::npos);
  CHECK(f.find("data_parallel_shard_degree = 2") != std::string::npos);
}

TEST_CASE("Megatron-LM's arguments carry the layout, batch, recompute and model", "[emit]") {
  const std::string m = io::emit_megatron(tp_pp_plan());
  for (const char* arg : {"--tensor-model-parallel-size 4", "--pipeline-model-parallel-size 4", "--context-parallel-size 1", "--sequence-parallel",
                          "--micro-batch-size 1", "--global-batch-size 256", "--recompute-granularity full", "--num-layers 80",
                          "--hidden-size 8192", "--ffn-hidden-size 28672", "--num-attention-heads 64", "--group-query-attention",
                          "--num-query-groups 8", "--swiglu", "--untie-embeddings-and-output-weights", "--bf16", "--train-iters 1000"})
    CHECK(m.find(std::string("  ") + arg + "\n") != std::string::npos);
  CHECK(m.find("--nnodes 4 --nproc_per_node 8") != std::string::npos);
  io::LaunchPlan p = tp_pp_plan();
  p.sharding = "zero1";
  p.offload = "optimizer";
  const std::string o = io::emit_megatron(p);
  CHECK(o.find("--use-distributed-optimizer") != std::string::npos);
  CHECK(o.find("--optimizer-cpu-offload") != std::string::npos);
}
