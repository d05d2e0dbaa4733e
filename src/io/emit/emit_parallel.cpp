// The engines that run tensor x pipeline x context parallel plans: torchtitan's TOML job config
// (v0.2.2's JobConfig, the last release read from TOML) and Megatron-LM's pretrain_gpt.py
// arguments (NVIDIA/Megatron-LM d98e8a6). Every key and flag written here is checked in CI
// against the key lists recorded from those sources (tests/handoffs/check_launch.py).
#include <algorithm>
#include <cstdio>
#include <string>
#include <tuple>

#include "io/emit/emit.hpp"

namespace gpuplan::io {

namespace {

// A TOML basic string: quotes, backslashes and control characters escaped.
std::string toml_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string toml_bool(bool b) { return b ? "true" : "false"; }

// A comment line cannot hold a newline.
std::string one_line(const std::string& s) {
  std::string out;
  for (char c : s) out += (c == '\n' || c == '\r') ? ' ' : c;
  return out;
}

std::string layout_text(const LaunchPlan& p) {
  return "tensor parallel " + std::to_string(p.tensor_parallel) + " x pipeline " + std::to_string(p.pipeline_parallel) + " x context " +
         std::to_string(p.context_parallel) + " x data parallel " + std::to_string(p.data_parallel);
}

void arg(std::string& s, const std::string& flag, const std::string& value = "") {
  s += "  " + flag + (value.empty() ? "" : " " + value) + "\n";
}

void megatron_model_args(std::string& s, const LaunchPlan& p) {
  const LaunchArch& a = p.arch;
  arg(s, "--num-layers", std::to_string(a.layers));
  arg(s, "--hidden-size", std::to_string(a.hidden));
  arg(s, "--ffn-hidden-size", std::to_string(a.ffn));
  arg(s, "--num-attention-heads", std::to_string(a.heads));
  if (a.kv_heads > 0 && a.kv_heads < a.heads) {
    arg(s, "--group-query-attention");
    arg(s, "--num-query-groups", std::to_string(a.kv_heads));
  }
  if (a.head_dim > 0 && a.heads > 0 && a.head_dim * a.heads != a.hidden) arg(s, "--kv-channels", std::to_string(a.head_dim));
  arg(s, "--seq-length", std::to_string(p.seq_len));
  arg(s, "--max-position-embeddings", std::to_string(std::max<long long>(a.max_positions, p.seq_len)));
  arg(s, "--position-embedding-type", "rope");
  arg(s, "--normalization", a.rmsnorm ? "RMSNorm" : "LayerNorm");
  if (a.gated_mlp) arg(s, "--swiglu");
  if (!a.tied) arg(s, "--untie-embeddings-and-output-weights");
  if (!a.linear_bias) arg(s, "--disable-bias-linear");
  if (a.qkv_bias) arg(s, "--add-qkv-bias");
  if (a.qk_norm) arg(s, "--qk-layernorm");  // dense models only (launch_refusal)
}

void megatron_parallel_args(std::string& s, const LaunchPlan& p) {
  arg(s, "--tensor-model-parallel-size", std::to_string(p.tensor_parallel));
  arg(s, "--pipeline-model-parallel-size", std::to_string(p.pipeline_parallel));
  if (p.virtual_pipeline > 1)
    arg(s, "--num-layers-per-virtual-pipeline-stage", std::to_string(p.arch.layers / (p.pipeline_parallel * p.virtual_pipeline)));
  arg(s, "--context-parallel-size", std::to_string(p.context_parallel));
  if (p.expert_parallel > 1) arg(s, "--expert-model-parallel-size", std::to_string(p.expert_parallel));
  if (p.sequence_parallel) arg(s, "--sequence-parallel");
  // ZeRO-1 is Megatron's distributed optimizer; ZeRO-2/3 are Megatron-FSDP's sharding strategies.
  if (p.sharding == "zero1") arg(s, "--use-distributed-optimizer");
  if (p.sharding == "zero2" || p.sharding == "zero3" || p.sharding == "fsdp") {
    arg(s, "--use-megatron-fsdp");
    arg(s, "--data-parallel-sharding-strategy", p.sharding == "zero2" ? "optim_grads" : "optim_grads_params");
  }
  if (p.offload == "optimizer") {  // Megatron's hybrid-device optimizer runs on the precision-aware path
    arg(s, "--optimizer-cpu-offload");
    arg(s, "--use-precision-aware-optimizer");
  }
}

void megatron_training_args(std::string& s, const LaunchPlan& p) {
  arg(s, "--micro-batch-size", std::to_string(p.micro_batch));
  arg(s, "--global-batch-size", std::to_string(p.global_batch));
  if (p.steps > 0) arg(s, "--train-iters", std::to_string(p.steps));
  if (p.precision == "bf16" || p.precision == "fp8") arg(s, "--bf16");
  if (p.precision == "fp16") arg(s, "--fp16");
  if (p.precision == "fp8") arg(s, "--fp8-format", "hybrid");
  if (p.checkpointing == "full") {
    arg(s, "--recompute-granularity", "full");
    arg(s, "--recompute-method", "uniform");
    arg(s, "--recompute-num-layers", "1");
  } else if (p.checkpointing == "selective") {
    arg(s, "--recompute-granularity", "selective");
  }
  arg(s, "--attention-backend", p.attention == "flash" ? "flash" : p.attention == "eager" ? "unfused" : "auto");
  arg(s, "--optimizer", p.optimizer == "adamw" ? "adam" : "sgd");  // Megatron's adam decouples weight decay (AdamW)
  arg(s, "--tokenizer-type", "HuggingFaceTokenizer");
  arg(s, "--tokenizer-model", shell_quote(p.model));
}

}  // namespace

std::pair<std::string, std::string> torchtitan_model(const std::string& id) {
  // torchtitan v0.2.2's registered models (torchtitan/models/*/__init__.py) that match a
  // catalog architecture exactly.
  static const std::tuple<const char*, const char*, const char*> kModels[] = {
      {"llama-3.1-8b", "llama3", "8B"},   {"llama-3-8b", "llama3", "8B"},   {"llama-3.1-70b", "llama3", "70B"},
      {"llama-3.3-70b", "llama3", "70B"}, {"llama-3.1-405b", "llama3", "405B"}, {"qwen3-0.6b", "qwen3", "0.6B"},
      {"qwen3-1.7b", "qwen3", "1.7B"},    {"qwen3-4b", "qwen3", "4B"},      {"qwen3-8b", "qwen3", "8B"},
      {"qwen3-14b", "qwen3", "14B"},      {"qwen3-32b", "qwen3", "32B"}};
  for (const auto& [cid, name, flavor] : kModels)
    if (id == cid) return {name, flavor};
  return {"", ""};
}

std::string emit_torchtitan(const LaunchPlan& p) {
  const auto [name, flavor] = torchtitan_model(p.arch.id);
  const bool fsdp = p.sharding == "fsdp" || p.sharding == "zero3";
  // With pipeline stages a data-parallel rank's batch is all its micro-batches, split by
  // pipeline_parallel_microbatch_size; without, torchtitan accumulates global / (local x dp).
  const long long local = p.pipeline_parallel > 1 ? p.micro_batch * p.grad_accum : p.micro_batch;
  std::string s = "# torchrun --nproc_per_node " + std::to_string(p.gpus_per_node) + " -m torchtitan.train --job.config_file this.toml\n";
  s += "# written by gpuplan plan for " + one_line(p.model) + ": " + layout_text(p) + " on " + std::to_string(p.gpus) + " GPUs\n";
  s += "# (torchtitan v0.2.2 job config)\n\n";
  s += "[job]\ndescription = " + toml_string("gpuplan plan: " + p.model) + "\n\n";
  s += "[model]\nname = " + toml_string(name) + "\nflavor = " + toml_string(flavor) + "\n";
  if (p.precision == "fp8") s += "converters = [\"quantize.linear.float8\"]\n";
  s += "\n[optimizer]\nname = \"AdamW\"\n\n";
  s += "[training]\nlocal_batch_size = " + std::to_string(local) + "\nglobal_batch_size = " + std::to_string(p.global_batch) +
       "\nseq_len = " + std::to_string(p.seq_len) + "\n";
  if (p.steps > 0) s += "steps = " + std::to_string(p.steps) + "\n";
  s += "enable_cpu_offload = " + toml_bool(p.offload == "optimizer+params") + "\n";
  s += "mixed_precision_param = " + toml_string(p.precision == "fp32" ? "float32" : "bfloat16") + "\n\n";
  s += "[parallelism]\ndata_parallel_replicate_degree = " + std::to_string(fsdp ? 1 : p.data_parallel) +
       "\ndata_parallel_shard_degree = " + std::to_string(fsdp ? p.data_parallel : 1) +
       "\ntensor_parallel_degree = " + std::to_string(p.tensor_parallel) + "\npipeline_parallel_degree = " + std::to_string(p.pipeline_parallel) +
       "\ncontext_parallel_degree = " + std::to_string(p.context_parallel) + "\nexpert_parallel_degree = " + std::to_string(p.expert_parallel) + "\n";
  if (p.pipeline_parallel > 1)
    s += "pipeline_parallel_schedule = " + toml_string(p.virtual_pipeline > 1 ? "Interleaved1F1B" : "1F1B") +
         "\npipeline_parallel_microbatch_size = " + std::to_string(p.micro_batch) + "\n";
  s += "\n[activation_checkpoint]\nmode = " + toml_string(p.checkpointing) + "\n";
  if (p.checkpointing == "selective") s += "selective_ac_option = \"op\"\n";
  // float8 linears are fast only when compiled (torchtitan's float8 docs).
  s += "\n[compile]\nenable = " + toml_bool(p.precision == "fp8") + "\n";
  if (p.precision == "fp8") s += "\n[quantize.linear.float8]\nrecipe_name = \"tensorwise\"\n";
  return s;
}

std::string emit_megatron(const LaunchPlan& p) {
  std::string s = "#!/bin/bash\n# written by gpuplan plan for " + one_line(p.model) + ": Megatron-LM's pretrain_gpt.py, " + layout_text(p) +
                  "\n# run it from a Megatron-LM checkout; append the data flags (--data-path PATH or --mock-data) and the\n"
                  "# learning-rate schedule, which are yours\n";
  if (p.nodes > 1)
    s += "# run this on each of the " + std::to_string(p.nodes) + " nodes with MASTER_ADDR set to the first node's address;\n"
         "# the c10d rendezvous assigns the node ranks\n";
  s += "set -euo pipefail\n";
  s += "export CUDA_DEVICE_MAX_CONNECTIONS=1  # Megatron's tensor-parallel overlap needs in-order kernels\n";
  s += "ARGS=(\n";
  megatron_model_args(s, p);
  megatron_parallel_args(s, p);
  megatron_training_args(s, p);
  s += ")\n";
  s += "torchrun " + torchrun_script_flags(p) + " pretrain_gpt.py \"${ARGS[@]}\" \"$@\"\n";
  return s;
}

}  // namespace gpuplan::io
