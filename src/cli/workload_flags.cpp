#include "cli/workload_flags.hpp"

#include <algorithm>

#include "cli/common.hpp"
#include "gpuplan/job.hpp"
#include "gpuplan/engine_support.hpp"
#include "gpuplan/name_match.hpp"
#include "gpuplan/units.hpp"

namespace gpuplan::cli {

void bad_choice(const std::string& flag, const std::string& value, const char* choices) {
  std::vector<std::string> names;
  std::string list = choices;
  for (std::size_t start = 0; start < list.size();) {
    const std::size_t comma = list.find(", ", start);
    names.push_back(list.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    start = comma == std::string::npos ? list.size() : comma + 2;
  }
  const std::string near = closest_name(value, names);
  bad_flag(flag, "unknown value \"" + value + "\"" + (near.empty() ? "" : " (did you mean '" + near + "'?)") +
                     "; expected one of: " + choices);
}

namespace {

// "tensor_parallel" -> "--tensor-parallel".
std::string flag_of(const char* setting) {
  std::string flag = std::string("--") + setting;
  for (char& c : flag)
    if (c == '_') c = '-';
  return flag;
}

std::string parallel_text(const JobProblem& p, const ModelArch& m, const Workload& w) {
  switch (p.rule) {
    case JobRule::gpus_range: return "expected 1 to 65536, got " + std::to_string(w.gpus);
    case JobRule::tp_divides_gpus: return "must be at least 1 and divide --gpus";
    case JobRule::tp_divides_heads:
      return "must divide " + m.id + "'s " + std::to_string(p.limit) + " attention heads (each GPU holds whole heads)";
    case JobRule::pp_range: return "expected 1 to the model's " + std::to_string(p.limit) + " layers";
    case JobRule::vpp_range: return "expected at least 1, with pipeline x virtual stages at most the model's layers";
    case JobRule::cp_positive: return "must be at least 1";
    case JobRule::layout_divides_gpus: return "must be a multiple of tensor x pipeline x context parallel";
    case JobRule::ep_divides: return "must divide the model's experts and GPUs / (tensor x pipeline parallel)";
    default: return "";
  }
}

std::string rule_text(const JobProblem& p, const ModelArch& m, const Workload& w) {
  switch (p.rule) {
    case JobRule::qlora_needs_16bit: return "QLoRA computes in 16-bit (bf16 or fp16); fp32 compute is not supported";
    case JobRule::freeze_layers_range: return "freeze needs 1 to " + std::to_string(p.limit) + " trainable layers";
    case JobRule::pure_bf16_needs_bf16: return "needs --precision bf16";
    case JobRule::quant_needs_frozen_base: return "quantised weights apply to --method inference or qlora";
    case JobRule::seq_beyond_context:
      if (p.warning) return "sequence length beyond the model's max context";
      return std::to_string(w.seq_len) + " exceeds " + m.id + "'s max context of " + std::to_string(p.limit) +
             " (pass --allow-long-context to estimate anyway)";
    case JobRule::shards_nothing: return "--sharding " + std::string(to_string(w.sharding)) + " with --gpus 1 shards nothing";
    case JobRule::offload_params_needs_shards: return "optimizer+params offload needs --sharding zero3 or fsdp";
    default: return parallel_text(p, m, w);
  }
}

}  // namespace

Workload build_workload(const Context& ctx, const WorkloadFlags& f, const ModelArch& m) {
  Workload w;
  w.method = pick_enum<Method>("--method", f.method);
  w.precision = pick_enum<Precision>("--precision", f.precision);
  w.weight_format = pick_enum<WeightFormat>("--quant", f.quant);
  w.optimizer = pick_enum<Optimizer>("--optimizer", f.optimizer);
  w.attention = pick_enum<Attention>("--attention", f.attention);
  w.checkpointing = pick_enum<Checkpointing>("--checkpointing", f.checkpointing);
  w.loss = pick_enum<Loss>("--loss", f.loss);
  w.sharding = pick_enum<Sharding>("--sharding", f.sharding);
  w.offload = pick_enum<Offload>("--offload", f.offload);
  w.kv_cache_dtype = pick_enum<KvDtype>("--kv-cache-dtype", f.kv_dtype);
  w.activations = pick_enum<ActivationProfile>("--activations", f.activations);
  if (w.activations != ActivationProfile::hf && !is_training(w.method))
    bad_flag("--activations", "sizes training's saved activations: inference keeps none (give a training --method)");
  std::string bad;
  auto targets = lora_targets_from_string(f.lora_targets, &bad);
  if (!targets) bad_flag("--lora-targets", "unknown target \"" + bad + "\" (expected q,k,v,o,gate,up,down or all-linear)");
  w.lora_targets = *targets;
  auto mb = parse_int(f.micro_batch, 1, std::int64_t{1} << 20);
  if (!mb) bad_flag("--micro-batch", mb.error);
  w.micro_batch = *mb.value;
  const std::string seq_text =
      !f.seq_len.empty() ? f.seq_len : std::to_string(m.max_context > 0 ? std::min<std::int64_t>(2048, m.max_context) : 2048);
  auto sl = parse_int(seq_text, 1, std::int64_t{1} << 24);
  if (!sl) bad_flag("--seq-len", sl.error);
  w.seq_len = *sl.value;
  if (f.lora_rank < 1 || f.lora_rank > 65536) bad_flag("--lora-rank", "expected 1 to 65536, got " + std::to_string(f.lora_rank));
  w.lora_rank = f.lora_rank;
  w.gpus = f.gpus;
  w.tensor_parallel = f.tensor_parallel;
  w.pipeline_parallel = f.pipeline_parallel;
  w.virtual_pipeline = f.virtual_pipeline;
  w.context_parallel = f.context_parallel;
  w.sequence_parallel = f.sequence_parallel;
  w.expert_parallel = f.expert_parallel;
  w.pure_bf16 = f.pure_bf16;
  w.double_quant = f.double_quant;
  if (!f.qlora_backend.empty()) {
    w.qlora_backend = pick_enum<QloraBackend>("--qlora-backend", f.qlora_backend);
    if (w.method != Method::qlora && !f.qlora_searched) bad_flag("--qlora-backend", "only QLoRA dequantises its weights: give --method qlora");
  }
  w.lora_dropout = f.lora_dropout;
  w.train_embeddings = f.train_embeddings;
  w.optimizer_in_backward = f.optimizer_in_backward;
  w.dropout = f.dropout;
  w.autocast = f.autocast;
  w.trainable_layers = f.trainable_layers;
  if (const Profile* p = ctx.profile()) w.constants = apply_profile(*p, w.constants);  // flags below win
  if (!f.overhead.empty()) {
    auto b = parse_bytes(f.overhead);
    if (!b) bad_flag("--overhead", b.error);
    w.constants.overhead_bytes = static_cast<double>(*b.value);
  }
  if (!f.fragmentation.empty()) {
    auto fr = parse_fraction(f.fragmentation);
    if (!fr || *fr.value < 0 || *fr.value > 1) bad_flag("--fragmentation", "expected 0% to 100%");
    w.constants.fragmentation = *fr.value;
  }
  // The job's rules live in the core (gpuplan/job.hpp); here each becomes a flag and words.
  for (const JobProblem& p : validate_workload(m, w, {f.allow_long_context})) {
    if (p.warning) ctx.warn(rule_text(p, m, w));
    else bad_flag(flag_of(p.setting), rule_text(p, m, w));
  }
  if (const std::string why = offload_problem(w); !why.empty()) bad_flag("--offload", why);
  return w;
}

namespace {

void add_memory_options(CLI::App& cmd, WorkloadFlags& f) {
  cmd.add_option("--micro-batch,--batch", f.micro_batch, "Sequences per GPU per step (inference: concurrent sequences)")->capture_default_str();
  cmd.add_option("--seq-len,--context", f.seq_len, "Tokens per sequence (default: 2048, or the model's max context if shorter)");
  cmd.add_flag("--allow-long-context", f.allow_long_context, "Allow --seq-len beyond the model's max context");
  cmd.add_option("--attention", f.attention, "eager | sdpa | flash")->capture_default_str();
  cmd.add_option("--checkpointing", f.checkpointing,
                 "Activation checkpointing: none | selective (attention scores recomputed; with --activations torchtitan, "
                 "torchtitan's per-op policy: every other matmul recomputed) | full")
      ->capture_default_str();
  cmd.add_option("--activations", f.activations,
                 "Training engine whose saved tensors size the activations: hf (Hugging Face eager, also FSDP) | megatron "
                 "(Megatron-Core with Transformer Engine) | torchtitan")
      ->capture_default_str();
  cmd.add_option("--loss", f.loss, "Cross-entropy: standard (fp32 upcast) | chunked | fused")->capture_default_str();
  cmd.add_option("--kv-cache-dtype", f.kv_dtype, "native | fp16 | bf16 | fp8 | int8")->capture_default_str();
  cmd.add_option("--overhead", f.overhead, "CUDA context + workspace per GPU, e.g. 800MiB (default 0.8GiB)");
  cmd.add_option("--fragmentation", f.fragmentation, "Allocator fragmentation over tensors, e.g. 8%");
}

void add_parallel_options(CLI::App& cmd, WorkloadFlags& f) {
  cmd.add_option("--gpus", f.gpus, "GPUs in the job")->capture_default_str()->each([&f](const std::string&) { f.gpus_given = true; });
  cmd.add_option("--sharding", f.sharding, "ddp | zero1 | zero2 | zero3 | fsdp")->capture_default_str();
  cmd.add_option("--offload", f.offload, "none | optimizer | optimizer+params")->capture_default_str();
  cmd.add_option("--tensor-parallel", f.tensor_parallel, "Tensor-parallel degree")->capture_default_str();
  cmd.add_option("--pipeline-parallel", f.pipeline_parallel, "Pipeline stages (1F1B)")->capture_default_str();
  cmd.add_option("--virtual-pipeline", f.virtual_pipeline, "Interleaved model chunks per pipeline stage")->capture_default_str();
  cmd.add_option("--context-parallel", f.context_parallel, "GPUs each sequence is split across")->capture_default_str();
  cmd.add_flag("--sequence-parallel", f.sequence_parallel, "Megatron sequence parallelism in the TP group");
  cmd.add_option("--expert-parallel", f.expert_parallel, "GPUs the MoE experts are split across")->capture_default_str();
}

}  // namespace

void add_workload_options(CLI::App& command, WorkloadFlags& f) {
  add_model_source_options(option_section(command, "Model"), f.model, true);
  CLI::App& cmd = option_section(command, "Method and precision");
  cmd.add_option("--method", f.method, "full | lora | qlora | freeze | inference | pretrain")->capture_default_str();
  cmd.add_option("--precision", f.precision, "Compute precision: bf16 | fp16 | fp8 | fp32")->capture_default_str();
  cmd.add_flag("--pure-bf16", f.pure_bf16, "Train in bf16 without fp32 master weights");
  cmd.add_option("--quant", f.quant, "Stored weight format (inference/qlora): native | fp8 | int8 | nf4 | fp4 | int4-gptq | int4-awq")->capture_default_str();
  cmd.add_flag("--double-quant", f.double_quant, "QLoRA double quantisation of the absmax constants");
  cmd.add_option("--qlora-backend", f.qlora_backend,
                 "What dequantises QLoRA's 4-bit weights: bitsandbytes (default; PEFT, litgpt, axolotl) | fused (torchtune compiled, Unsloth)");
  cmd.add_option("--optimizer", f.optimizer, "adamw | adamw-8bit | paged-adamw-8bit | sgd | sgd-momentum | adafactor | lion")->capture_default_str();
  cmd.add_flag("--optimizer-in-backward", f.optimizer_in_backward, "Apply each gradient as it is produced (torchtune optimizer_in_bwd)");
  cmd.add_flag("--autocast", f.autocast, "torch.autocast over fp32 weights (HF Trainer fp16/bf16): fp32 weights and grads, no master copy");
  cmd.add_flag("--dropout", f.dropout, "The model trains with dropout > 0 (masks and dropped copies are kept)");
  cmd.add_option("--lora-rank", f.lora_rank, "LoRA rank r")->capture_default_str();
  cmd.add_option("--lora-targets", f.lora_targets, "q,k,v,o,gate,up,down or all-linear")->capture_default_str();
  cmd.add_flag("--lora-dropout", f.lora_dropout, "LoRA dropout > 0 (keeps a dropped copy of each target's input)");
  cmd.add_flag("--train-embeddings", f.train_embeddings, "LoRA/QLoRA: also train embeddings and lm_head");
  cmd.add_option("--trainable-layers", f.trainable_layers, "freeze: train the last K layers");
  add_memory_options(option_section(command, "Batch and memory"), f);
  add_parallel_options(option_section(command, "GPUs and parallelism"), f);
}

}  // namespace gpuplan::cli
