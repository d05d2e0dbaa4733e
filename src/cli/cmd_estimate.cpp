// gpuplan estimate: per-GPU memory, component by component, and where the job fits.
#include <algorithm>
#include <cmath>
#include <memory>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/format_values.hpp"
#include "cli/model_source.hpp"
#include "cli/offer_rows.hpp"
#include "cli/run_flags.hpp"
#include "cli/workload_flags.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/memory.hpp"
#include "gpuplan/memory_advice.hpp"
#include "gpuplan/name_match.hpp"
#include "gpuplan/units.hpp"

namespace gpuplan::cli {
namespace {

struct EstimateFlags {
  WorkloadFlags workload;
  RunFlags run;
  std::vector<std::string> gpu_names, offers, providers;
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
          {"comm_seconds", t.comm_seconds}};
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

// The cost side: the chosen offers (--offer, --provider, --gpu), or the cheapest that fit.
void add_time_and_cost(const EstimateFlags& f, const ModelArch& m, const ParamCounts& pc, const Workload& w,
                       const std::vector<const Gpu*>& gpus, Report& r) {
  RunSettings run = build_run_settings(f.run, w);
  run.spec.gpus_fixed = true;  // estimate prices the job as given (--gpus)
  OfferFilter filter;
  for (const auto& p : f.providers) {
    const auto l = catalog().find_provider(p);
    if (!l.found) bad_flag("--provider", lookup_failure("provider", p, l));
    filter.providers.push_back(l.found->id);
  }
  for (const auto& o : f.offers) {
    const auto slash = o.find('/');
    if (slash == std::string::npos) bad_flag("--offer", "expected provider/offer, e.g. lambda/gpu-1x-h100-pcie, got \"" + o + "\"");
    const auto l = catalog().find_provider(o.substr(0, slash));
    if (!l.found) bad_flag("--offer", lookup_failure("provider", o.substr(0, slash), l));
    const std::string id = o.substr(slash + 1);
    if (std::none_of(l.found->offers.begin(), l.found->offers.end(), [&](const Offer& x) { return x.id == id; }))
      bad_flag("--offer", "provider " + l.found->id + " has no offer '" + id + "' (gpuplan providers show " + l.found->id + ")");
    filter.offers.push_back(l.found->id + "/" + id);
  }
  if (!f.gpu_names.empty())
    for (const Gpu* g : gpus) filter.gpus.push_back(g->id);
  OfferSet set = evaluate_offers(catalog(), m, pc, w, run, filter);
  rank_offers(set.priced, false);
  collapse_regions(set.priced);
  if (f.cost_rows < 1) bad_flag("--cost-rows", "expected 1 or more");
  const std::size_t rows = f.offers.empty() ? static_cast<std::size_t>(f.cost_rows) : set.priced.size();
  std::vector<PricedOffer> shown(set.priced.begin(), set.priced.begin() + static_cast<std::ptrdiff_t>(std::min(rows, set.priced.size())));

  r.json["cost"] = nlohmann::json::array();
  for (const auto& p : shown) r.json["cost"].push_back(offer_json(p, run));
  if (!shown.empty()) {
    r.json["time"] = time_json(shown.front().eval.time);
    r.json["time"]["gpu"] = shown.front().offer->gpu;
    r.json["time"]["wall_seconds"] = shown.front().eval.cost ? nlohmann::json(shown.front().eval.cost->wall_seconds) : nlohmann::json();
    r.tables.push_back(offers_table(shown, run, f.offers.empty() ? "Cheapest offers that fit" : "Chosen offers"));
  } else if (gpus.size() == 1 && is_training(w.method)) {
    Links links;
    // Without an offer the links are the GPU's own; --nodes splits the job across a network.
    const int nodes = std::max(1, f.run.nodes);
    if (w.gpus % nodes != 0) bad_flag("--nodes", "must divide --gpus");
    links.gpus_per_node = std::max(1, w.gpus / nodes);
    links.intra_node_gbps = gpus.front()->interconnect_gbps;
    TimeConstants k = run.spec.time;
    if (run.spec.mfu) {
      const TokenFlops fl = training_flops_per_token(m, pc, w);
      k.hfu = *run.spec.mfu * fl.hardware / fl.model;
    }
    const StepTime t = estimate_step_time(m, pc, w, run.spec.grad_accum, *gpus.front(), links, k);
    r.json["time"] = time_json(t);
    r.json["time"]["gpu"] = gpus.front()->id;
    r.json["time"]["wall_seconds"] = nullptr;
    r.notes.push_back("no offer in the loaded sheets prices " + gpus.front()->id + ": time only (" + num(t.tokens_per_second, 0) +
                      " tokens/s, MFU " + num(100 * t.mfu, 0) + "%)");
  } else {
    r.json["time"] = nullptr;
  }
  for (const auto& n : unpriced_notes(shown)) r.notes.push_back(n);
  if (!shown.empty()) {
    const PricedOffer& best = shown.front();
    if ((best.meets_budget && !*best.meets_budget) || (best.meets_deadline && !*best.meets_deadline)) exit_code() = 1;
    if (!run.has_work()) r.notes.push_back("no run size given (--tokens, --steps or --dataset-tokens): costs are per step and per million tokens");
  }
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
  add_time_and_cost(f, m, pc, w, gpus, r);
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
  add_workload_options(*cmd, f->workload);
  add_run_options(*cmd, f->run);
  cmd->add_option("--offer", f->offers, "Price on this offer, as provider/offer (repeatable; default: the cheapest that fit)");
  cmd->add_option("--provider", f->providers, "Price only on this provider's offers (repeatable)");
  cmd->add_option("--top", f->cost_rows, "How many of the cheapest offers to show")->capture_default_str();
  cmd->add_option("--cost-rows", f->cost_rows, "Old spelling of --top")->group("");  // hidden alias
  cmd->add_option("--gpu", f->gpu_names, "GPU to check (repeatable; default: every GPU in the catalogs)");
  add_common_options(*cmd);
  cmd->callback([f] { run_estimate(*f); });
}

}  // namespace gpuplan::cli
