// estimate's report: JSON, tables and notes from the typed value the command filled.
#include "io/render/estimate_report.hpp"
#include "io/render/price_warning_text.hpp"

#include <algorithm>
#include <cmath>

#include "gpuplan/units.hpp"
#include "io/render/format.hpp"
#include "io/render/memory_words.hpp"
#include "io/render/offer_report.hpp"

namespace gpuplan::io {
namespace {


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

nlohmann::json workload_json(const Workload& w) {
  return {{"method", to_string(w.method)}, {"precision", to_string(w.precision)},
          {"optimizer", to_string(w.optimizer)}, {"micro_batch", w.micro_batch}, {"seq_len", w.seq_len},
          {"attention", to_string(w.attention)}, {"checkpointing", to_string(w.checkpointing)},
          {"gpus", w.gpus}, {"sharding", to_string(w.sharding)}, {"offload", to_string(w.offload)},
          {"tensor_parallel", w.tensor_parallel}, {"pipeline_parallel", w.pipeline_parallel},
          {"context_parallel", w.context_parallel}, {"expert_parallel", w.expert_parallel},
          {"sequence_parallel", w.sequence_parallel}, {"lora_rank", w.lora_rank},
          {"activations", is_training(w.method) ? nlohmann::json(to_string(w.activations)) : nlohmann::json()},
          {"qlora_backend", w.method == Method::qlora ? nlohmann::json(to_string(w.qlora_backend)) : nlohmann::json()}};
}

nlohmann::json memory_json(const MemoryBreakdown& mem) {
  nlohmann::json comps = nlohmann::json::object();
  for (int c = 0; c < kMemComponentCount; ++c)
    comps[to_string(static_cast<MemComponent>(c))] = bytes_int(mem.bytes[static_cast<std::size_t>(c)]);
  return {{"per_gpu_bytes", bytes_int(mem.per_gpu_bytes())}, {"tensor_bytes", bytes_int(mem.tensor_bytes())},
          {"cpu_offload_bytes", bytes_int(mem.cpu_bytes)}, {"paged_bytes", bytes_int(mem.paged_bytes)},
          {"components", comps}};
}

nlohmann::json fits_json(const EstimateReport& r) {
  nlohmann::json out = nlohmann::json::array();
  const double total = r.memory.per_gpu_bytes();
  for (const GpuFit& f : r.fits)
    out.push_back({{"gpu", f.gpu->id}, {"usable_bytes", f.gpu->usable_bytes()}, {"fits", f.fits},
                   {"headroom_bytes", bytes_int(static_cast<double>(f.gpu->usable_bytes()) - total)},
                   {"max_micro_batch", f.max_micro_batch}});
  return out;
}

nlohmann::json advice_json(const EstimateReport& r) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& a : r.advice)
    out.push_back({{"gpu", r.advice_gpu->id}, {"change", fix_flags(a)}, {"per_gpu_bytes", bytes_int(a.per_gpu_bytes)},
                   {"fits", a.fits}, {"why", fix_text(a)}});
  return out;
}

nlohmann::json time_json(const EstimateReport& r) {
  if (!r.time) return nullptr;
  nlohmann::json j = step_time_json(r.time->step);
  j["gpu"] = r.time->gpu;
  j["wall_seconds"] = r.time->wall_seconds ? nlohmann::json(*r.time->wall_seconds) : nlohmann::json();
  return j;
}

// The engine whose saved tensors sized the activations, as the table title names it.
const char* engine_name(const Workload& w) {
  switch (w.activations) {
    case ActivationProfile::megatron: return "Megatron/TE";
    case ActivationProfile::torchtitan:
      return w.checkpointing == Checkpointing::selective ? "torchtitan (per-op selective checkpointing)" : "torchtitan";
    case ActivationProfile::hf: break;
  }
  return "HF eager";
}

Table memory_table(const EstimateReport& r) {
  const Workload& w = r.workload;
  const double total = r.memory.per_gpu_bytes();
  Table t;
  t.title = "Memory per GPU: " + r.model_name + ", " + to_string(w.method) + ", " + to_string(w.precision) + ", micro-batch " +
            std::to_string(w.micro_batch) + " x " + std::to_string(w.seq_len) + " tokens" +
            (is_training(w.method) ? std::string(", activations as ") + engine_name(w) + " saves them" : "");
  t.columns = {"component", "GiB", "share", ""};
  t.align = {Align::left, Align::right, Align::right, Align::left};
  t.csv_columns = {"component", "bytes", "share"};
  for (int c = 0; c < kMemComponentCount; ++c) {
    const double b = r.memory.bytes[static_cast<std::size_t>(c)];
    if (b <= 0) continue;
    t.rows.push_back({component_label(static_cast<MemComponent>(c)), num(b / kGiB, 2), num(100 * b / total, 1) + "%", bar(b / total, 30)});
    t.csv_rows.push_back({to_string(static_cast<MemComponent>(c)), std::to_string(std::llround(b)), raw(b / total)});
  }
  t.rows.push_back({"total per GPU", num(total / kGiB, 2), "100.0%", ""});
  t.csv_rows.push_back({"total", std::to_string(std::llround(total)), "1"});
  return t;
}

Table fits_table(const EstimateReport& r) {
  const double total = r.memory.per_gpu_bytes();
  Table t;
  t.title = "Where it fits";
  t.columns = {"gpu", "usable_gib", "fits", "headroom_gib", "max_micro_batch"};
  t.align = {Align::left, Align::right, Align::left, Align::right, Align::right};
  t.csv_columns = {"gpu", "usable_bytes", "fits", "headroom_bytes", "max_micro_batch"};
  for (const GpuFit& f : r.fits) {
    const double cap = static_cast<double>(f.gpu->usable_bytes());
    t.rows.push_back({f.gpu->id, num(cap / kGiB, 2), f.fits ? "yes" : "no", num((cap - total) / kGiB, 1), std::to_string(f.max_micro_batch)});
    t.csv_rows.push_back({f.gpu->id, std::to_string(f.gpu->usable_bytes()), f.fits ? "true" : "false",
                          std::to_string(bytes_int(cap - total)), std::to_string(f.max_micro_batch)});
  }
  return t;
}

Table advice_table(const EstimateReport& r) {
  Table t;
  t.title = "Ways to fit on " + r.advice_gpu->id + " (" + format_gib(static_cast<double>(r.advice_gpu->usable_bytes()), 2) + " usable)";
  t.columns = {"change", "per_gpu_gib", "fits", "why"};
  t.align = {Align::left, Align::right, Align::left, Align::left};
  t.csv_columns = {"change", "per_gpu_bytes", "fits", "why"};
  for (const auto& a : r.advice) {
    t.rows.push_back({fix_flags(a), num(a.per_gpu_bytes / kGiB, 2), a.fits ? "yes" : "no", fix_text(a)});
    t.csv_rows.push_back({fix_flags(a), std::to_string(bytes_int(a.per_gpu_bytes)), a.fits ? "true" : "false", fix_text(a)});
  }
  return t;
}

// What the offers and the cost side add under the tables.
std::vector<std::string> cost_side_notes(const EstimateReport& r) {
  std::vector<std::string> notes;
  const PricedOffer* best = best_offer(r.offers);
  if (best && (r.run.budget || r.run.spec.bill.deadline_seconds) && !best->meets_limits())
    notes.push_back("no offer meets the budget and deadline");
  if (best && !r.run.has_work())
    notes.push_back("no run size given (--tokens, --steps or --dataset-tokens): costs are per step and per million tokens");
  if (!best && r.time)
    notes.push_back("no offer in the loaded sheets lists " + r.time->gpu + ": time only (" + num(r.time->step.tokens_per_second, 0) +
                    " tokens/s, MFU " + num(100 * r.time->step.mfu, 0) + "%)");
  for (const auto& n : r.cost_notes) notes.push_back(n);
  for (const auto& n : offer_notes(r.offers, r.workload, r.run.spec.gpus_fixed, r.run)) notes.push_back(n);
  if (std::any_of(r.offers.begin(), r.offers.end(), [](const PricedOffer& p) { return p.pareto; }))
    notes.push_back("* after a cost: on the cost/time Pareto front (no offer is both cheaper and faster)");
  return notes;
}

std::vector<std::string> memory_notes(const EstimateReport& r) {
  const MemoryBreakdown& mem = r.memory;
  std::vector<std::string> notes;
  notes.push_back("trainable parameters: " + format_count(mem.params_trainable) + " of " + format_count(mem.params_total));
  if (mem.cpu_bytes > 0) notes.push_back("CPU RAM for offloaded states: " + format_gib(mem.cpu_bytes));
  if (mem.paged_bytes > 0)
    notes.push_back("paged optimizer: " + format_gib(mem.paged_bytes) +
                    " of states sit in CUDA managed memory; they page to host RAM when the card is full, so a "
                    "tight fit runs slower rather than failing (torch's max_memory_allocated does not count them)");
  if (r.workload.method == Method::qlora)
    notes.push_back("QLoRA keeps embeddings, norms and lm_head in 16-bit; only the layers' linear weights are 4-bit");
  notes.push_back("per-GPU total = tensors + " + num(r.workload.constants.fragmentation * 100, 0) +
                  "% allocator fragmentation + CUDA context/workspace (what nvidia-smi shows)");
  for (const auto& a : r.assumptions) notes.push_back("assumed: " + a);
  return notes;
}

}  // namespace

nlohmann::json step_time_json(const StepTime& t) {
  return {{"step_seconds", t.step_seconds},
          {"tokens_per_second", t.tokens_per_second},
          {"tokens_per_second_per_gpu", t.tokens_per_second_per_gpu},
          {"mfu", t.mfu},
          {"hfu", t.hfu},
          {"scaling_efficiency", t.scaling_efficiency},
          {"comm_seconds", t.comm_seconds},
          {"exposed_comm_seconds", t.exposed_comm_seconds},
          {"tp_comm_seconds", t.tp_comm_seconds},
          {"bubble_seconds", t.bubble_seconds},
          {"offload_seconds", t.offload_seconds},
          {"data_parallel", t.data_parallel}};
}

nlohmann::json estimate_json(const EstimateReport& r) {
  nlohmann::json j;
  j["model"] = {{"id", r.model_id}, {"name", r.model_name}, {"source", r.model_source}};
  j["assumptions"] = r.assumptions;
  j["workload"] = workload_json(r.workload);
  j["params"] = {{"total", bytes_int(r.memory.params_total)}, {"trainable", bytes_int(r.memory.params_trainable)}};
  j["memory"] = memory_json(r.memory);
  j["fits"] = fits_json(r);
  j["advice"] = advice_json(r);
  // `offers`, as compare calls its rows; `cost` is the same array under the name schema 1
  // started with (plan's and check's `cost` are numbers), kept until schema 2 (docs/json.md).
  j["offers"] = nlohmann::json::array();
  for (const auto& p : r.offers) j["offers"].push_back(offer_json(p, r.run));
  j["cost"] = j["offers"];
  j["warnings"] = price_warning_texts(price_warnings(r.offers, r.run));
  j["time"] = time_json(r);
  return j;
}

std::vector<Table> estimate_tables(const EstimateReport& r, MoneyStyle style) {
  std::vector<Table> tables = {memory_table(r), fits_table(r)};
  if (r.advice_gpu) tables.push_back(advice_table(r));
  if (!r.offers.empty()) tables.push_back(offers_table(r.offers, r.run, r.workload, r.offers_title, style));
  return tables;
}

std::vector<std::string> estimate_notes(const EstimateReport& r) {
  std::vector<std::string> notes = cost_side_notes(r);
  for (auto& n : memory_notes(r)) notes.push_back(std::move(n));
  return notes;
}

}  // namespace gpuplan::io
