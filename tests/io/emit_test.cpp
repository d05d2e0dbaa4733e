#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "io/emit.hpp"

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
  p.checkpointing = true;
  p.micro_batch = 4;
  p.grad_accum = 2;
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
  CHECK(a["distributed_type"].as<std::string>() == "FSDP");
  CHECK(a["num_processes"].as<int>() == 16);
  CHECK(a["num_machines"].as<int>() == 2);
  CHECK(a["mixed_precision"].as<std::string>() == "bf16");
  CHECK(a["fsdp_config"]["fsdp_activation_checkpointing"].as<bool>());
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
  CHECK(t.find("--nproc_per_node 8") != std::string::npos);
  CHECK(t.find("--micro-batch 4 --grad-accum 2") != std::string::npos);
  const std::string s = io::emit_slurm(plan());
  CHECK(s.rfind("#!/bin/bash\n", 0) == 0);
  CHECK(s.find("#SBATCH --nodes=2") != std::string::npos);
  CHECK(s.find("#SBATCH --gpus-per-node=8") != std::string::npos);
  CHECK(s.find("#SBATCH --time=6:36:00") != std::string::npos);  // 5.5 h + 20%
  CHECK(s.find("srun torchrun") != std::string::npos);
}
