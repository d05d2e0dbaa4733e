// gpuplan plan: search methods, precisions, optimizers, checkpointing, micro-batches, sharding,
// instance counts, offers and pricings for the cheapest (or fastest) plan that meets the
// deadline and budget; explain the choice; emit the launch configuration.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <memory>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/format_values.hpp"
#include "cli/model_source.hpp"
#include "cli/owned_offer.hpp"
#include "cli/plan_launch.hpp"
#include "cli/run_flags.hpp"
#include "cli/workload_flags.hpp"
#include "gpuplan/engine_support.hpp"
#include "gpuplan/plan.hpp"
#include "gpuplan/units.hpp"
#include "io/render/price_warning_text.hpp"
#include "io/render/plan_report.hpp"

namespace gpuplan::cli {
namespace {

struct PlanFlags {
  WorkloadFlags workload;
  RunFlags run;
  OfferFlags filter;
  OwnedOfferFlags owned;
  std::string objective = "cost", methods = "full,lora,qlora", precisions = "bf16", optimizers = "adamw,adamw-8bit";
  std::string pricings = "on-demand", checkpointing = "none,full", shardings = "ddp,zero2,fsdp";
  std::string micro_batches = "1,2,4,8,16,32";
  LaunchFlags launch;
  std::string tensor_parallels, pipeline_parallels;  // "" = by model size (see parallel_degrees)
  int max_nodes = 8, top = 5;
  long long global_batch = 0;
  bool grad_accum_given = false;  // --grad-accum on the command line: keep it in every candidate
};

constexpr std::uint64_t kMaxSearch = 2'000'000'000ull;  // configurations: minutes even at 10^7/s

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

template <class E>
std::vector<E> parse_list(const std::string& flag, const std::string& text) {
  std::vector<E> out;
  for (const auto& item : split(text)) out.push_back(pick_enum<E>(flag, item));
  if (out.empty()) bad_flag(flag, "needs at least one value");
  return out;
}


std::vector<int> int_list(const std::string& flag, const std::string& text) {
  std::vector<int> out;
  for (const auto& s : split(text)) {
    auto v = parse_int(s, 1, 1024);
    if (!v) bad_flag(flag, v.error);
    out.push_back(static_cast<int>(*v.value));
  }
  if (out.empty()) bad_flag(flag, "needs at least one value");
  return out;
}

// Dense models past ~30B parameters are trained with tensor and pipeline parallelism
// (Megatron, NeMo, Llama 3); smaller ones run data parallel with sharding.
void parallel_degrees(PlanFlags& f, const ModelArch& m) {
  const bool large_dense = count_params(m).total() >= 30e9 && m.experts <= 1;
  if (f.tensor_parallels.empty()) f.tensor_parallels = large_dense ? "1,2,4,8" : "1";
  if (f.pipeline_parallels.empty()) f.pipeline_parallels = large_dense ? "1,2,4,8" : "1";
}

// The GPU counts and instance counts: as given (--gpus, --nodes), else powers of two up to
// --max-nodes instances of each offer.
void gpu_space(const PlanFlags& f, PlanSpace& space) {
  if (f.max_nodes < 1 || f.max_nodes > 1024) bad_flag("--max-nodes", "expected 1 to 1024");
  space.nodes.clear();
  if (f.run.nodes > 0) {
    if (f.run.nodes > f.max_nodes) bad_flag("--nodes", "is more than --max-nodes " + std::to_string(f.max_nodes));
    space.nodes.push_back(f.run.nodes);
  } else if (f.workload.gpus_given) {
    for (int n = 1; n <= f.max_nodes; ++n) space.nodes.push_back(n);
  } else {
    for (int n = 1; n <= f.max_nodes; n *= 2) space.nodes.push_back(n);
  }
  if (f.workload.gpus_given) space.gpu_counts = {f.workload.gpus};
  if (f.workload.gpus_given && f.run.nodes > 0 && f.workload.gpus % f.run.nodes != 0)
    bad_flag("--nodes", "must divide --gpus " + std::to_string(f.workload.gpus));
}

PlanSpace build_space(const PlanFlags& f, const Workload& base) {
  PlanSpace space;
  space.attention = {base.attention};
  space.methods = parse_list<Method>("--methods", f.methods);
  if (std::find(space.methods.begin(), space.methods.end(), Method::inference) != space.methods.end())
    bad_flag("--methods", "plan searches training; use serve for inference");
  space.precisions = parse_list<Precision>("--precisions", f.precisions);
  space.optimizers = parse_list<Optimizer>("--optimizers", f.optimizers);
  space.checkpointing = parse_list<Checkpointing>("--checkpointing-options", f.checkpointing);
  space.shardings = parse_list<Sharding>("--shardings", f.shardings);
  space.pricings = parse_list<Pricing>("--pricings", f.pricings);
  space.micro_batches.clear();
  for (const auto& s : split(f.micro_batches)) {
    auto v = parse_int(s, 1, 1 << 16);
    if (!v) bad_flag("--micro-batches", v.error);
    space.micro_batches.push_back(*v.value);
  }
  if (space.micro_batches.empty()) bad_flag("--micro-batches", "needs at least one value");
  space.tensor_parallel = int_list("--tensor-parallels", f.tensor_parallels);
  space.pipeline_parallel = int_list("--pipeline-parallels", f.pipeline_parallels);
  gpu_space(f, space);
  return space;
}

// The offers the search may use, each with its sheet-to-display rate.
// The owner's GPUs (--owned) are one more, one machine at most, whatever the filters keep.
std::vector<PlanOffer> plan_offers(const Catalog& catalog, const PlanFlags& f, const Workload& base, const RunSettings& run,
                                   const std::optional<OwnedOffer>& owned) {
  const OfferFilter filter = build_offer_filter(f.filter, catalog);
  std::vector<PlanOffer> offers;
  for (const Provider& p : catalog.providers) {
    const double rate = to_display(1.0, p.currency, run, p.where);
    for (const Offer& o : p.offers) {
      if (!offer_matches(filter, p, o, base, run.spec)) continue;
      const auto g = catalog.find_gpu(o.gpu);
      if (g.found) offers.push_back({&o, &p, g.found, rate});
    }
  }
  if (owned) offers.push_back(owned_plan_offer(*owned));
  if (offers.empty()) bad_flag("--provider", "no offer in the loaded sheets matches the filters");
  return offers;
}

PlanInputs build_inputs(const Catalog& catalog, const PlanFlags& f, const ResolvedModel& rm, const Workload& base, const RunSettings& run,
                        const std::optional<OwnedOffer>& owned) {
  if (f.objective != "cost" && f.objective != "time") bad_choice("--objective", f.objective, "cost, time");
  if (f.top < 1) bad_flag("--top", "expected 1 or more");
  if (f.global_batch < 0) bad_flag("--global-batch", "must not be negative");
  if (f.grad_accum_given && f.global_batch > 0)
    bad_flag("--grad-accum", "give --grad-accum or --global-batch, not both (the global batch sets the accumulation)");
  PlanInputs in;
  in.model = rm.arch;
  in.params = count_params(rm.arch);
  in.base = base;
  in.global_batch = f.global_batch;
  if (f.grad_accum_given) in.grad_accum = run.spec.grad_accum;
  in.objective = f.objective == "time" ? Objective::time : Objective::cost;
  in.run = run.spec;
  in.deadline_seconds = run.spec.bill.deadline_seconds;
  in.budget = run.budget;
  in.offers = plan_offers(catalog, f, base, run, owned);
  // tokens: with --steps, size the run from the user's global batch at the base micro-batch.
  in.tokens = run.spec.tokens ? *run.spec.tokens
                              : *run.spec.steps * static_cast<double>(base.seq_len) *
                                    static_cast<double>(f.global_batch > 0 ? f.global_batch
                                                                           : base.micro_batch * base.gpus * std::max(1, in.grad_accum));
  return in;
}

void check_size(const PlanSpace& space, const PlanInputs& in) {
  const std::uint64_t size = static_cast<std::uint64_t>(space.methods.size() * space.precisions.size() * space.optimizers.size() *
                                                         space.checkpointing.size() * space.shardings.size() *
                                                         space.micro_batches.size() * (space.gpu_counts.empty() ? space.nodes.size() : 1) *
                                                         space.pricings.size() *
                                                         space.tensor_parallel.size() * space.pipeline_parallel.size()) *
                             in.offers.size();
  if (size > kMaxSearch)
    bad_flag("--max-nodes", "the search space holds " + std::to_string(size) + " configurations (limit " + std::to_string(kMaxSearch) +
                                "); narrow it with --provider, --gpu, --methods, --micro-batches or --max-nodes");
}

// The stale-price and mixed-tax warnings of every pricing command, for the sheets of the
// plans shown.
void add_price_warnings(const Context& ctx, Report& r, const PlanInputs& in, const PlanResult& res, const RunSettings& run) {
  std::vector<const Provider*> sheets;
  for (const Candidate& c : res.best) sheets.push_back(in.offers[static_cast<std::size_t>(c.offer)].provider);
  const std::vector<std::string> warnings = io::price_warning_texts(price_warnings(sheets, run));
  for (const auto& w : warnings) ctx.warn(w);
  r.json["warnings"] = warnings;
}

// --offload with searched optimizers and shardings: refused only when no listed pair can run it
// (the search skips the pairs that cannot, so no plan prices an offload no engine runs).
void check_offload(const PlanSpace& space, Workload w) {
  if (w.offload == Offload::none) return;
  std::string why;
  for (const Optimizer o : space.optimizers)
    for (const Sharding s : space.shardings)
      for (const int gpus : {1, 2}) {
        w.optimizer = o;
        w.sharding = s;
        w.gpus = gpus;
        const std::string problem = offload_problem(w);
        if (problem.empty()) return;
        if (why.empty()) why = problem;
      }
  bad_flag("--offload", why + " (with every listed optimizer and sharding)");
}

// The base workload is checked before the search: its sharding is the first listed one that
// can hold the offload (the search tries them all).
void base_sharding(PlanFlags& g) {
  if (g.workload.offload != "optimizer+params") return;
  for (const auto& s : split(g.shardings))
    if (s == "zero3" || s == "fsdp") {
      g.workload.sharding = s;
      return;
    }
}

int run_plan(const Context& ctx, const PlanFlags& f, const ResolvedModel& rm) {
  const Workload base = build_workload(ctx, f.workload, rm.arch);
  const RunSettings run = build_run_settings(ctx, f.run, base);
  if (!run.spec.tokens && !run.spec.steps) bad_flag("--tokens", "plan needs the run's size: --tokens, --steps or --dataset-tokens");
  check_launch_engine(f.launch);
  const PlanSpace space = build_space(f, base);
  check_offload(space, base);
  const std::optional<OwnedOffer> owned = build_owned_offer(ctx, f.owned, run);
  const PlanInputs in = build_inputs(ctx.catalog(), f, rm, base, run, owned);
  check_size(space, in);
  const PlanResult res = search_plans(in, space, static_cast<std::size_t>(std::max(f.top, 10)));
  io::PlanReport v{in, space, res, run.currency, f.objective, rm.arch.id, rm.arch.name, rm.source, f.top, {}};
  if (!res.best.empty()) v.pipeline = evaluate_candidate(in, space, res.best.front()).pipeline;
  const io::MoneyStyle style = ctx.money_style();
  Report r{io::plan_json(v), io::plan_tables(v, style), io::plan_notes(v, style), io::plan_csv_table(v, style)};
  add_price_warnings(ctx, r, in, res, run);
  if (owned) {
    r.json["owned"] = io::owned_json(owned_block(*owned));
    for (const auto& n : io::owned_notes(owned_block(*owned), style)) r.notes.push_back(n);
  }
  const int code = res.best.empty() || !res.best.front().feasible() ? 1 : 0;
  if (!res.best.empty()) {
    const Candidate& best = res.best.front();
    const Workload bw = candidate_workload(in, space, best);
    const PlanOffer& bo = in.offers[static_cast<std::size_t>(best.offer)];
    if (emit_plan_launch(ctx, f.launch, {rm.arch, bw, best, bo, space.pricings[best.pricing], run}, r)) return code;
  }
  ctx.print_report(r);
  return code;
}

// Singular flags (--method qlora) narrow the plural search lists to that one value; giving
// both is ambiguous.
void narrow(CLI::App& cmd, const char* singular, const char* plural, const std::string& value, std::string& list) {
  if (cmd.get_option(singular)->count() == 0) return;
  if (cmd.get_option(plural)->count() > 0) bad_flag(singular, std::string("give ") + singular + " or " + plural + ", not both");
  list = value;
}

}  // namespace

void setup_plan(CLI::App& app, Context& ctx) {
  auto f = std::make_shared<PlanFlags>();
  auto* cmd = app.add_subcommand("plan", "Search every configuration for the cheapest plan that meets the deadline and budget");
  cmd->footer(R"(Examples:
  gpuplan plan --model llama-3.1-8b --tokens 1B --deadline 3d --budget 200
  gpuplan plan --model qwen2.5-7b --tokens 2B --methods full --objective time --max-nodes 4
  gpuplan plan --model llama-3.1-8b --tokens 500M --global-batch 64 --emit deepspeed --out ds_config.json
  gpuplan plan --model llama-3.1-8b --tokens 500M --currency INR --region india --emit skypilot
  gpuplan plan --model llama-3.1-8b --tokens 200M --methods qlora --owned rtx-4090 --owned-utilization 30%)");
  add_workload_options(*cmd, f->workload);
  remove_option(*cmd, "--kv-cache-dtype");  // plan searches training: there is no KV cache to size
  add_run_options(*cmd, f->run);
  add_offer_filter_options(*cmd, f->filter);
  cmd->add_option("--objective", f->objective, "cost | time")->capture_default_str();
  cmd->add_option("--methods", f->methods, "Methods allowed (quality constraint), e.g. full or lora,qlora")->capture_default_str();
  cmd->add_option("--precisions", f->precisions, "Compute precisions to try, e.g. bf16,fp8")->capture_default_str();
  cmd->add_option("--optimizers", f->optimizers, "Optimizers to try")->capture_default_str();
  cmd->add_option("--checkpointing-options", f->checkpointing, "Checkpointing settings to try")->capture_default_str();
  cmd->add_option("--shardings", f->shardings, "Sharding strategies to try")->capture_default_str();
  cmd->add_option("--micro-batches", f->micro_batches, "Micro-batch sizes to try")->capture_default_str();
  cmd->add_option("--pricings", f->pricings, "Pricings to try, e.g. on-demand,spot (spot only when listed)")->capture_default_str();
  cmd->add_option("--tensor-parallels", f->tensor_parallels, "Tensor-parallel degrees to try (default: 1,2,4,8 for dense models of 30B+, else 1)");
  cmd->add_option("--pipeline-parallels", f->pipeline_parallels, "Pipeline stages to try (default: 1,2,4,8 for dense models of 30B+, else 1)");
  cmd->add_option("--max-nodes", f->max_nodes, "Most instances of one offer (1, 2, 4, ... up to this)")->capture_default_str();
  cmd->add_option("--global-batch", f->global_batch, "Sequences per optimizer step to keep (default: free)");
  cmd->add_option("--top", f->top, "Runners-up to show")->capture_default_str();
  add_launch_options(*cmd, f->launch);
  add_owned_offer_options(*cmd, f->owned);
  add_common_options(*cmd, ctx, kCatalogs | kProfile);
  on_parsed(*cmd, ctx, [&ctx, f, cmd] {
    PlanFlags g = *f;
    narrow(*cmd, "--method", "--methods", g.workload.method, g.methods);
    narrow(*cmd, "--precision", "--precisions", g.workload.precision, g.precisions);
    narrow(*cmd, "--optimizer", "--optimizers", g.workload.optimizer, g.optimizers);
    narrow(*cmd, "--checkpointing", "--checkpointing-options", g.workload.checkpointing, g.checkpointing);
    narrow(*cmd, "--sharding", "--shardings", g.workload.sharding, g.shardings);
    narrow(*cmd, "--micro-batch", "--micro-batches", g.workload.micro_batch, g.micro_batches);
    narrow(*cmd, "--pricing", "--pricings", g.run.pricing, g.pricings);
    narrow(*cmd, "--tensor-parallel", "--tensor-parallels", std::to_string(g.workload.tensor_parallel), g.tensor_parallels);
    narrow(*cmd, "--pipeline-parallel", "--pipeline-parallels", std::to_string(g.workload.pipeline_parallel), g.pipeline_parallels);
    g.workload.qlora_searched = g.methods.find("qlora") != std::string::npos;
    g.grad_accum_given = cmd->get_option("--grad-accum")->count() > 0;
    g.workload.tensor_parallel = g.workload.pipeline_parallel = 1;  // searched per candidate
    // The base is checked before the search picks GPU counts: it gets the fewest GPUs its fixed
    // context and expert degrees need (each candidate's count must be a multiple of them).
    if (!g.workload.gpus_given) g.workload.gpus = std::max(1, g.workload.context_parallel) * std::max(1, g.workload.expert_parallel);
    base_sharding(g);
    const ResolvedModel rm = resolve_model(ctx, g.workload.model);
    parallel_degrees(g, rm.arch);
    return run_plan(ctx, g, rm);
  });
}

}  // namespace gpuplan::cli
