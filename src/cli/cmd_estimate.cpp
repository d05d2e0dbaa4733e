// gpuplan estimate: per-GPU memory, component by component, and where the job fits.
#include <algorithm>
#include <cmath>
#include <memory>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/format_values.hpp"
#include "cli/model_source.hpp"
#include "cli/run_flags.hpp"
#include "cli/uncertainty.hpp"
#include "cli/workload_flags.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/memory.hpp"
#include "gpuplan/memory_advice.hpp"
#include "gpuplan/name_match.hpp"
#include "gpuplan/units.hpp"
#include "io/offer_report.hpp"

namespace gpuplan::cli {
namespace {

struct EstimateFlags {
  WorkloadFlags workload;
  RunFlags run;
  OfferFlags filter;
  std::vector<std::string> gpu_names;
  int cost_rows = 5;
};

// Time for the workload on one GPU alone or over its usual links, when no offer prices it.
nlohmann::json time_json(const StepTime& t) {
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

// Time on the one GPU asked for, over its own links, when no offer in the sheets lists it.
void add_time_only(const EstimateFlags& f, const ModelArch& m, const ParamCounts& pc, const Workload& w, const RunSettings& run,
                   const Gpu& gpu, Report& r) {
  Links links;
  // Without an offer the links are the GPU's own; --nodes splits the job across a network.
  const int nodes = std::max(1, f.run.nodes);
  if (w.gpus % nodes != 0) bad_flag("--nodes", "must divide --gpus");
  links.gpus_per_node = std::max(1, w.gpus / nodes);
  links.intra_node_gbps = gpu.interconnect_gbps;
  const PreparedJob job = prepare_job(m, pc, w, run.spec, run.spec.grad_accum);
  const StepTime t = estimate_step_time(m, pc, w, run.spec.grad_accum, gpu, links, job.time);
  r.json["time"] = time_json(t);
  r.json["time"]["gpu"] = gpu.id;
  r.json["time"]["wall_seconds"] = nullptr;
  r.notes.push_back("no offer in the loaded sheets lists " + gpu.id + ": time only (" + num(t.tokens_per_second, 0) + " tokens/s, MFU " +
                    num(100 * t.mfu, 0) + "%)");
}

// Nothing priced: say why in the job's terms (does not fit, no such price), not "no offer".
void explain_unpriced(const OfferSet& set, const RunSettings& run, Report& r) {
  const auto fit = std::find_if(set.excluded.begin(), set.excluded.end(), [](const PricedOffer& p) { return p.eval.fits; });
  const PricedOffer& why = fit != set.excluded.end() ? *fit : set.excluded.front();
  r.notes.push_back("no offer can run this job: " + exclusion_text(why.eval, *why.gpu, run.spec.bill.pricing) + " (" +
                    std::to_string(set.excluded.size()) + " offers checked; gpuplan compare --explain lists each)");
}

// The cost side: the chosen offers (--offer, --provider, --gpu), or the cheapest that fit.
void add_time_and_cost(const EstimateFlags& f, const ModelArch& m, const ParamCounts& pc, const Workload& w,
                       const std::vector<const Gpu*>& gpus, Report& r) {
  RunSettings run = build_run_settings(f.run, w);
  run.spec.gpus_fixed = f.workload.gpus_given;  // as compare, check and plan price it
  OfferFlags flags = f.filter;
  if (!f.gpu_names.empty())
    for (const Gpu* g : gpus) flags.gpus.push_back(g->id);
  OfferSet set = evaluate_offers(catalog(), m, pc, w, run, build_offer_filter(flags, catalog()));
  rank_offers(set.priced, false);
  collapse_regions(set.priced);
  for (const auto& w : price_warnings(set.priced, run)) warn(w);
  if (f.cost_rows < 1) bad_flag("--cost-rows", "expected 1 or more");
  const std::size_t rows = f.filter.offers.empty() ? static_cast<std::size_t>(f.cost_rows) : set.priced.size();
  const std::vector<PricedOffer> shown(set.priced.begin(), set.priced.begin() + static_cast<std::ptrdiff_t>(std::min(rows, set.priced.size())));

  r.json["cost"] = nlohmann::json::array();
  for (const auto& p : shown) r.json["cost"].push_back(io::offer_json(p, run));
  r.json["time"] = nullptr;
  if (const PricedOffer* best = best_offer(set.priced)) {
    r.json["time"] = time_json(best->eval.time);
    r.json["time"]["gpu"] = best->offer->gpu;
    r.json["time"]["wall_seconds"] = best->eval.cost ? nlohmann::json(best->eval.cost->wall_seconds) : nlohmann::json();
    r.tables.push_back(io::offers_table(shown, run, w, f.filter.offers.empty() ? "Cheapest offers that fit" : "Chosen offers"));
    if ((run.budget || run.spec.bill.deadline_seconds) && !best->meets_limits()) {
      r.notes.push_back("no offer meets the budget and deadline");
      exit_code() = 1;
    }
    if (!run.has_work()) r.notes.push_back("no run size given (--tokens, --steps or --dataset-tokens): costs are per step and per million tokens");
  } else if (!set.excluded.empty()) {
    explain_unpriced(set, run, r);
  } else if (gpus.size() == 1 && is_training(w.method)) {
    add_time_only(f, m, pc, w, run, *gpus.front(), r);
  }
  for (const auto& n : io::offer_notes(shown, w, run.spec.gpus_fixed, run)) r.notes.push_back(n);
  if (std::any_of(shown.begin(), shown.end(), [](const PricedOffer& p) { return p.pareto; }))
    r.notes.push_back("* after a cost: on the cost/time Pareto front (no offer is both cheaper and faster)");
}

void add_memory(const ResolvedModel& rm, const Workload& w, const MemoryBreakdown& mem, Report& r) {
  const ModelArch& m = rm.arch;
  const double total = mem.per_gpu_bytes();
  nlohmann::json comps = nlohmann::json::object();
  for (int c = 0; c < kMemComponentCount; ++c)
    comps[to_string(static_cast<MemComponent>(c))] = static_cast<std::int64_t>(std::llround(mem.bytes[static_cast<std::size_t>(c)]));
  r.json["model"] = {{"id", m.id}, {"name", m.name}, {"source", rm.source}};
  r.json["assumptions"] = rm.assumptions;
  r.json["workload"] = {{"method", to_string(w.method)}, {"precision", to_string(w.precision)},
                        {"optimizer", to_string(w.optimizer)}, {"micro_batch", w.micro_batch}, {"seq_len", w.seq_len},
                        {"attention", to_string(w.attention)}, {"checkpointing", to_string(w.checkpointing)},
                        {"gpus", w.gpus}, {"sharding", to_string(w.sharding)}, {"offload", to_string(w.offload)},
                        {"tensor_parallel", w.tensor_parallel}, {"pipeline_parallel", w.pipeline_parallel},
                        {"context_parallel", w.context_parallel}, {"expert_parallel", w.expert_parallel},
                        {"sequence_parallel", w.sequence_parallel}, {"lora_rank", w.lora_rank}};
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
  breakdown.csv_columns = {"component", "bytes", "share"};
  for (int c = 0; c < kMemComponentCount; ++c) {
    const double b = mem.bytes[static_cast<std::size_t>(c)];
    if (b <= 0) continue;
    breakdown.rows.push_back({component_label(static_cast<MemComponent>(c)), num(b / kGiB, 2), num(100 * b / total, 1) + "%",
                              io::bar(b / total, 30)});
    breakdown.csv_rows.push_back({to_string(static_cast<MemComponent>(c)), std::to_string(std::llround(b)), io::raw(b / total)});
  }
  breakdown.rows.push_back({"total per GPU", num(total / kGiB, 2), "100.0%", ""});
  breakdown.csv_rows.push_back({"total", std::to_string(std::llround(total)), "1"});
  r.tables.push_back(breakdown);
}

// Where it fits; returns whether any GPU fits.
bool add_fits(const ModelArch& m, const ParamCounts& pc, const Workload& w, double total, const std::vector<const Gpu*>& gpus,
              Report& r) {
  io::Table fits;
  fits.title = "Where it fits";
  fits.columns = {"gpu", "usable_gib", "fits", "headroom_gib", "max_micro_batch"};
  fits.align = {io::Align::left, io::Align::right, io::Align::left, io::Align::right, io::Align::right};
  fits.csv_columns = {"gpu", "usable_bytes", "fits", "headroom_bytes", "max_micro_batch"};
  r.json["fits"] = nlohmann::json::array();
  bool any_fit = false;
  for (const Gpu* g : gpus) {
    const double cap = static_cast<double>(g->usable_bytes());
    const bool ok = total <= cap;
    any_fit = any_fit || ok;
    const std::int64_t mmb = max_micro_batch(m, pc, w, cap);
    const auto headroom = static_cast<std::int64_t>(std::llround(cap - total));
    r.json["fits"].push_back({{"gpu", g->id}, {"usable_bytes", g->usable_bytes()}, {"fits", ok}, {"headroom_bytes", headroom},
                              {"max_micro_batch", mmb}});
    fits.rows.push_back({g->id, num(cap / kGiB, 2), ok ? "yes" : "no", num((cap - total) / kGiB, 1), std::to_string(mmb)});
    fits.csv_rows.push_back({g->id, std::to_string(g->usable_bytes()), ok ? "true" : "false", std::to_string(headroom), std::to_string(mmb)});
  }
  r.tables.push_back(fits);
  return any_fit;
}

// Ways out, sized against the one GPU asked for, or the largest that misses.
void add_advice(const EstimateFlags& f, const ModelArch& m, const ParamCounts& pc, const Workload& w, double total,
                const std::vector<const Gpu*>& gpus, Report& r) {
  r.json["advice"] = nlohmann::json::array();
  if (f.gpu_names.size() > 1) return;
  const Gpu* target = nullptr;
  for (const Gpu* g : gpus)
    if (total > static_cast<double>(g->usable_bytes()) && (!target || g->memory_bytes > target->memory_bytes)) target = g;
  if (!target) return;
  io::Table adv;
  adv.title = "Ways to fit on " + target->id + " (" + format_gib(static_cast<double>(target->usable_bytes()), 2) + " usable)";
  adv.columns = {"change", "per_gpu_gib", "fits", "why"};
  adv.align = {io::Align::left, io::Align::right, io::Align::left, io::Align::left};
  for (const auto& a : advise_memory(m, pc, w, static_cast<double>(target->usable_bytes()))) {
    adv.rows.push_back({a.change, num(a.per_gpu_bytes / kGiB, 2), a.fits ? "yes" : "no", a.explanation});
    r.json["advice"].push_back({{"gpu", target->id}, {"change", a.change}, {"per_gpu_bytes", static_cast<std::int64_t>(std::llround(a.per_gpu_bytes))},
                                {"fits", a.fits}, {"why", a.explanation}});
  }
  r.tables.push_back(adv);
}

void add_memory_notes(const ResolvedModel& rm, const Workload& w, const MemoryBreakdown& mem, Report& r) {
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
}

// The GPUs to check: those asked for (each must run the job's precision), or every one.
std::vector<const Gpu*> gpus_to_check(const EstimateFlags& f, const Workload& w) {
  std::vector<const Gpu*> gpus;
  for (const auto& n : f.gpu_names) {
    const Gpu& g = resolve_gpu(n);
    if (peak_tflops(g, w.precision) <= 0)
      bad_flag("--precision", g.id + " has no " + to_string(w.precision) + " tensor throughput in the catalog; choose another precision or GPU");
    gpus.push_back(&g);
  }
  if (gpus.empty())
    for (const auto& g : catalog().gpus) gpus.push_back(&g);
  return gpus;
}

void run_estimate(const EstimateFlags& f) {
  const ResolvedModel rm = resolve_model(f.workload.model);
  const ModelArch& m = rm.arch;
  const ParamCounts pc = count_params(m);
  const Workload w = build_workload(f.workload, m);
  const MemoryBreakdown mem = estimate_memory(m, pc, w);
  const double total = mem.per_gpu_bytes();
  // Byte counts are printed as exact integers; refuse inputs whose totals would not fit one
  // (an exabyte per GPU is no real job) rather than wrap.
  constexpr double kMaxReportableBytes = 1e18;
  if (!(total < kMaxReportableBytes) || !(mem.cpu_bytes < kMaxReportableBytes))
    bad_flag("--micro-batch", "the job needs more than 10^18 bytes per GPU; check --micro-batch, --seq-len and the model");
  const std::vector<const Gpu*> gpus = gpus_to_check(f, w);
  Report r;
  add_memory(rm, w, mem, r);
  add_fits(m, pc, w, total, gpus, r);
  add_advice(f, m, pc, w, total, gpus, r);
  add_time_and_cost(f, m, pc, w, gpus, r);
  add_memory_notes(rm, w, mem, r);
  add_error_bars(r, total, w);  // JSON "error_bars" and a note (cli/uncertainty.cpp)
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
  add_workload_options(*cmd, f->workload);
  add_run_options(*cmd, f->run);
  add_offer_filter_options(*cmd, f->filter, false);
  cmd->add_option("--top", f->cost_rows, "How many of the cheapest offers to show")->capture_default_str();
  cmd->add_option("--cost-rows", f->cost_rows, "Old spelling of --top")->group("");  // hidden alias
  cmd->add_option("--gpu", f->gpu_names, "GPU to check (repeatable; default: every GPU in the catalogs)");
  add_common_options(*cmd);
  cmd->callback([f] { run_estimate(*f); });
}

}  // namespace gpuplan::cli
