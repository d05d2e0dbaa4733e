// gpuplan estimate: per-GPU memory, component by component, and where the job fits.
#include <algorithm>
#include <cmath>
#include <memory>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/format_values.hpp"
#include "cli/model_source.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/memory.hpp"
#include "gpuplan/memory_advice.hpp"
#include "gpuplan/name_match.hpp"
#include "gpuplan/units.hpp"

namespace gpuplan::cli {
namespace {

struct EstimateFlags {
  ModelSourceOptions model;
  std::string method = "full", precision = "bf16", quant = "native", optimizer = "adamw";
  std::string lora_targets = "all-linear", attention = "sdpa", checkpointing = "none", loss = "standard";
  std::string sharding = "ddp", offload = "none", kv_dtype = "native";
  std::string micro_batch = "1", seq_len, overhead, fragmentation;  // seq_len "" = min(2048, max context)
  int lora_rank = 16, trainable_layers = 0, gpus = 1, tensor_parallel = 1;
  bool pure_bf16 = false, double_quant = false, lora_dropout = false, train_embeddings = false;
  bool optimizer_in_backward = false, allow_long_context = false, dropout = false, autocast = false;
  std::vector<std::string> gpu_names;
};

template <class E>
E pick(const std::string& flag, const std::string& value, std::optional<E> parsed, const char* choices) {
  if (parsed) return *parsed;
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

Workload build_workload(const EstimateFlags& f, const ModelArch& m) {
  Workload w;
  w.method = pick("--method", f.method, method_from_string(f.method), "full, lora, qlora, freeze, inference, pretrain");
  w.precision = pick("--precision", f.precision, precision_from_string(f.precision), "fp32, fp16, bf16, fp8");
  w.weight_format = pick("--quant", f.quant, weight_format_from_string(f.quant),
                         "native, fp32, fp16, bf16, fp8, int8, nf4, fp4, int4-gptq, int4-awq");
  w.optimizer = pick("--optimizer", f.optimizer, optimizer_from_string(f.optimizer),
                     "adamw, adamw-8bit, paged-adamw-8bit, sgd, sgd-momentum, adafactor, lion");
  w.attention = pick("--attention", f.attention, attention_from_string(f.attention), "eager, sdpa, flash");
  w.checkpointing = pick("--checkpointing", f.checkpointing, checkpointing_from_string(f.checkpointing), "none, selective, full");
  w.loss = pick("--loss", f.loss, loss_from_string(f.loss), "standard, chunked, fused");
  w.sharding = pick("--sharding", f.sharding, sharding_from_string(f.sharding), "ddp, zero1, zero2, zero3, fsdp");
  w.offload = pick("--offload", f.offload, offload_from_string(f.offload), "none, optimizer, optimizer+params");
  w.kv_cache_dtype = pick("--kv-cache-dtype", f.kv_dtype, kv_dtype_from_string(f.kv_dtype), "native, fp16, bf16, fp8, int8");
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
  if (f.gpus < 1 || f.gpus > 65536) bad_flag("--gpus", "expected 1 to 65536, got " + std::to_string(f.gpus));
  w.gpus = f.gpus;
  if (f.tensor_parallel < 1 || f.gpus % f.tensor_parallel != 0)
    bad_flag("--tensor-parallel", "must be at least 1 and divide --gpus");
  w.tensor_parallel = f.tensor_parallel;
  w.pure_bf16 = f.pure_bf16;
  w.double_quant = f.double_quant;
  w.lora_dropout = f.lora_dropout;
  w.train_embeddings = f.train_embeddings;
  w.optimizer_in_backward = f.optimizer_in_backward;
  w.dropout = f.dropout;
  w.autocast = f.autocast;
  w.trainable_layers = f.trainable_layers;
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
  // Impossible or suspicious combinations.
  if (w.method == Method::qlora && w.precision == Precision::fp32)
    bad_flag("--precision", "QLoRA computes in 16-bit (bf16 or fp16); fp32 compute is not supported");
  if (w.method == Method::freeze && (w.trainable_layers < 1 || w.trainable_layers > m.layers))
    bad_flag("--trainable-layers", "freeze needs 1 to " + std::to_string(m.layers) + " trainable layers");
  if (w.pure_bf16 && w.precision != Precision::bf16) bad_flag("--pure-bf16", "needs --precision bf16");
  if (w.weight_format != WeightFormat::native && w.method != Method::inference && w.method != Method::qlora)
    bad_flag("--quant", "quantised weights apply to --method inference or qlora");
  if (m.max_context > 0 && w.seq_len > m.max_context) {
    if (!f.allow_long_context)
      bad_flag("--seq-len", std::to_string(w.seq_len) + " exceeds " + m.id + "'s max context of " +
                                std::to_string(m.max_context) + " (pass --allow-long-context to estimate anyway)");
    warn("sequence length beyond the model's max context");
  }
  if (w.sharding != Sharding::ddp && w.gpus == 1) warn("--sharding " + std::string(to_string(w.sharding)) + " with --gpus 1 shards nothing");
  if (w.offload == Offload::optimizer_params && w.sharding != Sharding::zero3 && w.sharding != Sharding::fsdp)
    bad_flag("--offload", "optimizer+params offload needs --sharding zero3 or fsdp");
  return w;
}

const char* component_label(MemComponent c) {
  switch (c) {
    case MemComponent::weights: return "weights";
    case MemComponent::adapters: return "LoRA adapters (fp32)";
    case MemComponent::gradients: return "gradients";
    case MemComponent::optimizer: return "optimizer states";
    case MemComponent::master_weights: return "fp32 master weights";
    case MemComponent::activations: return "activations";
    case MemComponent::logits: return "logits and loss";
    case MemComponent::kv_cache: return "KV cache";
    case MemComponent::overhead: return "CUDA context + workspace";
    case MemComponent::fragmentation: return "allocator fragmentation";
  }
  return "?";
}

void run_estimate(const EstimateFlags& f) {
  const ResolvedModel rm = resolve_model(f.model);
  const ModelArch& m = rm.arch;
  const ParamCounts pc = count_params(m);
  const Workload w = build_workload(f, m);
  const MemoryBreakdown mem = estimate_memory(m, pc, w);
  const double total = mem.per_gpu_bytes();
  // Byte counts are printed as exact integers; refuse inputs whose totals would not fit one
  // (an exabyte per GPU is no real job) rather than wrap.
  constexpr double kMaxReportableBytes = 1e18;
  if (!(total < kMaxReportableBytes) || !(mem.cpu_bytes < kMaxReportableBytes))
    bad_flag("--micro-batch", "the job needs more than 10^18 bytes per GPU; check --micro-batch, --seq-len and the model");

  std::vector<const Gpu*> gpus;
  for (const auto& n : f.gpu_names) gpus.push_back(&resolve_gpu(n));
  if (gpus.empty())
    for (const auto& g : catalog().gpus) gpus.push_back(&g);

  Report r;
  nlohmann::json comps = nlohmann::json::object();
  for (int c = 0; c < kMemComponentCount; ++c)
    comps[to_string(static_cast<MemComponent>(c))] = static_cast<std::int64_t>(std::llround(mem.bytes[static_cast<std::size_t>(c)]));
  r.json["model"] = {{"id", m.id}, {"name", m.name}, {"source", rm.source}};
  r.json["assumptions"] = rm.assumptions;
  r.json["workload"] = {{"method", to_string(w.method)}, {"precision", to_string(w.precision)},
                        {"optimizer", to_string(w.optimizer)}, {"micro_batch", w.micro_batch}, {"seq_len", w.seq_len},
                        {"attention", to_string(w.attention)}, {"checkpointing", to_string(w.checkpointing)},
                        {"gpus", w.gpus}, {"sharding", to_string(w.sharding)}, {"offload", to_string(w.offload)},
                        {"tensor_parallel", w.tensor_parallel}, {"lora_rank", w.lora_rank}};
  r.json["params"] = {{"total", static_cast<std::int64_t>(std::llround(mem.params_total))},
                      {"trainable", static_cast<std::int64_t>(std::llround(mem.params_trainable))}};
  r.json["memory"] = {{"per_gpu_bytes", static_cast<std::int64_t>(std::llround(total))},
                      {"tensor_bytes", static_cast<std::int64_t>(std::llround(mem.tensor_bytes()))},
                      {"cpu_offload_bytes", static_cast<std::int64_t>(std::llround(mem.cpu_bytes))},
                      {"paged_bytes", static_cast<std::int64_t>(std::llround(mem.paged_bytes))},
                      {"components", comps}};

  io::Table breakdown;
  breakdown.title = "Memory per GPU: " + m.name + ", " + to_string(w.method) + ", " + to_string(w.precision) + ", micro-batch " +
                    std::to_string(w.micro_batch) + " x " + std::to_string(w.seq_len) + " tokens";
  breakdown.columns = {"component", "GiB", "share", ""};
  breakdown.align = {io::Align::left, io::Align::right, io::Align::right, io::Align::left};
  for (int c = 0; c < kMemComponentCount; ++c) {
    const double b = mem.bytes[static_cast<std::size_t>(c)];
    if (b <= 0) continue;
    breakdown.rows.push_back({component_label(static_cast<MemComponent>(c)), num(b / kGiB, 2), num(100 * b / total, 1) + "%",
                              io::bar(b / total, 30)});
  }
  breakdown.rows.push_back({"total per GPU", num(total / kGiB, 2), "100.0%", ""});

  io::Table fits;
  fits.title = "Where it fits";
  fits.columns = {"gpu", "memory_gib", "fits", "headroom_gib", "max_micro_batch"};
  fits.align = {io::Align::left, io::Align::right, io::Align::left, io::Align::right, io::Align::right};
  r.json["fits"] = nlohmann::json::array();
  bool any_fit = false;
  const Gpu* largest = nullptr;
  for (const Gpu* g : gpus) {
    const double cap = static_cast<double>(g->memory_bytes);
    const bool ok = total <= cap;
    any_fit = any_fit || ok;
    if (!largest || g->memory_bytes > largest->memory_bytes) largest = g;
    const std::int64_t mmb = max_micro_batch(m, pc, w, cap);
    r.json["fits"].push_back({{"gpu", g->id}, {"fits", ok}, {"headroom_bytes", static_cast<std::int64_t>(std::llround(cap - total))},
                              {"max_micro_batch", mmb}});
    fits.rows.push_back({g->id, num(cap / kGiB, 0), ok ? "yes" : "no", num((cap - total) / kGiB, 1), std::to_string(mmb)});
  }
  r.tables.push_back(breakdown);
  r.tables.push_back(fits);

  // Ways out, sized against the largest requested GPU (or the only one).
  r.json["advice"] = nlohmann::json::array();
  const bool some_miss = std::any_of(gpus.begin(), gpus.end(), [&](const Gpu* g) { return total > static_cast<double>(g->memory_bytes); });
  if (largest && (some_miss || !any_fit) && f.gpu_names.size() <= 1) {
    const Gpu* target = f.gpu_names.empty() ? nullptr : gpus.front();
    if (!target) {
      // Against every GPU: advise for the most common budget card that misses, the largest consumer.
      for (const Gpu* g : gpus)
        if (total > static_cast<double>(g->memory_bytes) && (!target || g->memory_bytes > target->memory_bytes)) target = g;
    }
    if (target) {
      io::Table adv;
      adv.title = "Ways to fit on " + target->id + " (" + format_gib(static_cast<double>(target->memory_bytes), 0) + ")";
      adv.columns = {"change", "per_gpu_gib", "fits", "why"};
      adv.align = {io::Align::left, io::Align::right, io::Align::left, io::Align::left};
      for (const auto& a : advise_memory(m, pc, w, static_cast<double>(target->memory_bytes))) {
        adv.rows.push_back({a.change, num(a.per_gpu_bytes / kGiB, 2), a.fits ? "yes" : "no", a.explanation});
        r.json["advice"].push_back({{"gpu", target->id}, {"change", a.change}, {"per_gpu_bytes", static_cast<std::int64_t>(std::llround(a.per_gpu_bytes))},
                                    {"fits", a.fits}, {"why", a.explanation}});
      }
      r.tables.push_back(adv);
    }
  }
  r.notes.push_back("trainable parameters: " + format_count(mem.params_trainable) + " of " + format_count(mem.params_total));
  if (mem.cpu_bytes > 0) r.notes.push_back("CPU RAM for offloaded states: " + format_gib(mem.cpu_bytes));
  if (mem.paged_bytes > 0)
    r.notes.push_back("paged optimizer: " + format_gib(mem.paged_bytes) +
                      " of states sit in CUDA managed memory; they page to host RAM when the card is full, so a "
                      "tight fit runs slower rather than failing (torch's max_memory_allocated does not count them)");
  if (w.method == Method::qlora)
    r.notes.push_back("QLoRA keeps embeddings, norms and lm_head in 16-bit; only the layers' linear weights are 4-bit");
  r.notes.push_back("per-GPU total = tensors + " + num(w.constants.fragmentation * 100, 0) +
                    "% allocator fragmentation + CUDA context/workspace (what nvidia-smi shows)");
  for (const auto& a : rm.assumptions) r.notes.push_back("assumed: " + a);
  print_report(r);
}

}  // namespace

void setup_estimate(CLI::App& app) {
  auto f = std::make_shared<EstimateFlags>();
  auto* cmd = app.add_subcommand("estimate", "Estimate per-GPU memory and where a job fits");
  cmd->footer(R"(Examples:
  gpuplan estimate --model llama-3.1-8b --method qlora --gpu rtx-4090
  gpuplan estimate --model qwen2.5-7b --method full --gpus 8 --sharding zero3 --checkpointing full
  gpuplan estimate --model-config ./config.json --method inference --micro-batch 16 --seq-len 8192
  gpuplan estimate --params 7B --method lora --format json)");
  add_model_source_options(*cmd, f->model, true);
  cmd->add_option("--method", f->method, "full | lora | qlora | freeze | inference | pretrain")->capture_default_str();
  cmd->add_option("--precision", f->precision, "Compute precision: bf16 | fp16 | fp8 | fp32")->capture_default_str();
  cmd->add_flag("--pure-bf16", f->pure_bf16, "Train in bf16 without fp32 master weights");
  cmd->add_option("--quant", f->quant, "Stored weight format (inference/qlora): native | fp8 | int8 | nf4 | fp4 | int4-gptq | int4-awq")->capture_default_str();
  cmd->add_flag("--double-quant", f->double_quant, "QLoRA double quantisation of the absmax constants");
  cmd->add_option("--optimizer", f->optimizer, "adamw | adamw-8bit | paged-adamw-8bit | sgd | sgd-momentum | adafactor | lion")->capture_default_str();
  cmd->add_flag("--optimizer-in-backward", f->optimizer_in_backward, "Apply each gradient as it is produced (torchtune optimizer_in_bwd)");
  cmd->add_flag("--autocast", f->autocast, "torch.autocast over fp32 weights (HF Trainer fp16/bf16): fp32 weights and grads, no master copy");
  cmd->add_flag("--dropout", f->dropout, "The model trains with dropout > 0 (masks and dropped copies are kept)");
  cmd->add_option("--lora-rank", f->lora_rank, "LoRA rank r")->capture_default_str();
  cmd->add_option("--lora-targets", f->lora_targets, "q,k,v,o,gate,up,down or all-linear")->capture_default_str();
  cmd->add_flag("--lora-dropout", f->lora_dropout, "LoRA dropout > 0 (keeps a dropped copy of each target's input)");
  cmd->add_flag("--train-embeddings", f->train_embeddings, "LoRA/QLoRA: also train embeddings and lm_head");
  cmd->add_option("--trainable-layers", f->trainable_layers, "freeze: train the last K layers");
  cmd->add_option("--micro-batch,--batch", f->micro_batch, "Sequences per GPU per step (inference: concurrent sequences)")->capture_default_str();
  cmd->add_option("--seq-len,--context", f->seq_len, "Tokens per sequence (default: 2048, or the model's max context if shorter)");
  cmd->add_flag("--allow-long-context", f->allow_long_context, "Allow --seq-len beyond the model's max context");
  cmd->add_option("--attention", f->attention, "eager | sdpa | flash")->capture_default_str();
  cmd->add_option("--checkpointing", f->checkpointing, "Activation checkpointing: none | selective | full")->capture_default_str();
  cmd->add_option("--loss", f->loss, "Cross-entropy: standard (fp32 upcast) | chunked | fused")->capture_default_str();
  cmd->add_option("--gpus", f->gpus, "GPUs in the job")->capture_default_str();
  cmd->add_option("--sharding", f->sharding, "ddp | zero1 | zero2 | zero3 | fsdp")->capture_default_str();
  cmd->add_option("--offload", f->offload, "none | optimizer | optimizer+params")->capture_default_str();
  cmd->add_option("--tensor-parallel", f->tensor_parallel, "Tensor-parallel degree")->capture_default_str();
  cmd->add_option("--kv-cache-dtype", f->kv_dtype, "native | fp16 | bf16 | fp8 | int8")->capture_default_str();
  cmd->add_option("--overhead", f->overhead, "CUDA context + workspace per GPU, e.g. 800MiB (default 0.8GiB)");
  cmd->add_option("--fragmentation", f->fragmentation, "Allocator fragmentation over tensors, e.g. 8%");
  cmd->add_option("--gpu", f->gpu_names, "GPU to check (repeatable; default: every GPU in the catalogs)");
  add_common_options(*cmd);
  cmd->callback([f] { run_estimate(*f); });
}

}  // namespace gpuplan::cli
