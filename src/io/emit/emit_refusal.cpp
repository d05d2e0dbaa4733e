// Which engine can run a plan as priced. A launch file that drops a setting the plan priced
// (tensor parallel, an offload, the global batch) launches a job that needs other memory and
// time than the plan says: such a file is refused, naming the engine that can run it.
#include <string>

#include "io/emit/emit.hpp"

namespace gpuplan::io {

namespace {

bool model_parallel(const LaunchPlan& p) {
  return p.tensor_parallel > 1 || p.pipeline_parallel > 1 || p.context_parallel > 1 || p.expert_parallel > 1;
}

// "tensor parallel 2, pipeline 4": the parts of the layout a plain data-parallel engine lacks.
std::string layout_words(const LaunchPlan& p) {
  std::string s;
  auto add = [&](const char* what, int n) {
    if (n > 1) s += (s.empty() ? "" : ", ") + std::string(what) + " " + std::to_string(n);
  };
  add("tensor parallel", p.tensor_parallel);
  add("pipeline parallel", p.pipeline_parallel);
  add("context parallel", p.context_parallel);
  add("expert parallel", p.expert_parallel);
  return s;
}

bool whole_model(const LaunchPlan& p) { return p.method == "full" || p.method == "pretrain"; }

// The engines gpuplan writes for that can run this layout.
std::string parallel_engines(const LaunchPlan& p) {
  const bool titan = !torchtitan_model(p.arch.id).first.empty();
  return titan ? "--emit megatron or --emit torchtitan" : "--emit megatron";
}

std::string data_parallel_refusal(const LaunchPlan& p, const std::string& engine) {
  if (model_parallel(p)) {
    if (!whole_model(p))
      return engine + " cannot run " + layout_words(p) + ", and no engine gpuplan writes for trains " + p.method +
             " with it: plan with --tensor-parallels 1 --pipeline-parallels 1";
    return engine + "'s config cannot express " + layout_words(p) + ": this plan runs with " + parallel_engines(p);
  }
  if (engine == "accelerate" && p.sharding == "fsdp" && p.offload == "optimizer")
    return "accelerate's FSDP offloads parameters together with the optimizer (fsdp_offload_params): optimizer-only offload "
           "runs with --emit deepspeed (ZeRO-3 with offload_optimizer)";
  return "";
}

std::string torchtitan_refusal(const LaunchPlan& p) {
  if (!whole_model(p)) return "torchtitan trains whole models (full, pretrain): a " + p.method + " plan runs with --emit accelerate or torchrun";
  if (torchtitan_model(p.arch.id).first.empty())
    return "torchtitan builds only its registered models (llama3 8B/70B/405B, qwen3 0.6B-32B): " +
           (p.arch.id.empty() ? std::string("this config.json") : p.arch.id) + " is not one; use --emit megatron";
  if (p.sharding == "zero1" || p.sharding == "zero2")
    return "torchtitan replicates (ddp) or shards everything with FSDP (zero3, fsdp): " + p.sharding + " runs with --emit megatron" +
           (model_parallel(p) ? "" : " or --emit deepspeed");
  if (p.offload == "optimizer")
    return "torchtitan's CPU offload moves parameters, gradients and optimizer states together (optimizer+params): optimizer-only "
           "offload runs with " + std::string(model_parallel(p) ? "--emit megatron" : "--emit deepspeed");
  if (p.optimizer != "adamw") return "torchtitan's job config builds AdamW here: a " + p.optimizer + " plan runs with --emit torchrun or accelerate";
  if (p.precision == "fp16") return "torchtitan's mixed precision is bf16 or fp32: an fp16 plan runs with --emit megatron";
  if (p.tensor_parallel > 1 && !p.sequence_parallel)
    return "torchtitan's tensor parallel always shards activations along the sequence (sequence parallel): plan with "
           "--sequence-parallel, or run this plan with --emit megatron";
  return "";
}

std::string megatron_refusal(const LaunchPlan& p) {
  if (!whole_model(p)) return "Megatron-LM's pretrain_gpt.py trains whole models (full, pretrain): a " + p.method + " plan runs with --emit accelerate or torchrun";
  if (p.arch.layers <= 0 || p.arch.unsupported_attention)
    return "Megatron-LM's GPT flags cannot describe this architecture (" +
           std::string(p.arch.layers <= 0 ? "only a parameter count is known" : "latent or sliding-window attention") + ")" +
           (torchtitan_model(p.arch.id).first.empty() ? std::string("") : ": use --emit torchtitan");
  if (p.arch.experts > 1)
    return "gpuplan writes Megatron-LM flags for dense models only: this mixture-of-experts plan runs with --emit torchrun or slurm";
  if (p.offload == "optimizer+params")
    return "Megatron-LM offloads only the optimizer: optimizer+params offload runs with " +
           std::string(torchtitan_model(p.arch.id).first.empty() ? "--emit deepspeed" : "--emit torchtitan or --emit deepspeed");
  if (p.offload == "optimizer" && p.sharding != "zero1")
    return "Megatron-LM's optimizer CPU offload works with its distributed optimizer (zero1) only: plan with --shardings zero1" +
           std::string(model_parallel(p) ? "" : ", or run this plan with --emit deepspeed");
  if (p.optimizer != "adamw" && p.optimizer != "sgd")
    return "Megatron-LM's optimizers are adam (AdamW) and sgd: a " + p.optimizer + " plan runs with --emit torchrun or accelerate";
  if (p.virtual_pipeline > 1 && p.arch.layers % (p.pipeline_parallel * p.virtual_pipeline) != 0)
    return "Megatron-LM needs the layers to divide evenly into pipeline stages x virtual stages";
  return "";
}

}  // namespace

std::string launch_refusal(const LaunchPlan& p, const std::string& engine) {
  if (engine == "deepspeed" || engine == "accelerate") return data_parallel_refusal(p, engine);
  if (engine == "torchtitan") return torchtitan_refusal(p);
  if (engine == "megatron") return megatron_refusal(p);
  return "";  // torchrun, slurm, skypilot: train.py receives every setting as a flag
}

}  // namespace gpuplan::io
