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
#include "cli/plan_launch.hpp"
#include "cli/run_flags.hpp"
#include "cli/workload_flags.hpp"
#include "gpuplan/plan.hpp"
#include "gpuplan/units.hpp"

namespace gpuplan::cli {
namespace {

struct PlanFlags {
  WorkloadFlags workload;
  RunFlags run;
  std::string objective = "cost", methods = "full,lora,qlora", precisions = "bf16", optimizers = "adamw,adamw-8bit";
  std::string pricings = "on-demand,reserved-1y", checkpointing = "none,full", shardings = "ddp,zero2,fsdp";
  std::string micro_batches = "1,2,4,8,16,32";
  LaunchFlags launch;
  std::vector<std::string> providers, gpus, regions;
  int max_nodes = 8, top = 5;
  long long global_batch = 0;
};

constexpr std::uint64_t kMaxSearch = 2'000'000'000ull;  // configurations: minutes even at 10^7/s

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

template <class E, class Parse>
std::vector<E> parse_list(const std::string& flag, const std::string& text, Parse parse, const char* choices) {
  std::vector<E> out;
  for (const auto& item : split(text)) out.push_back(pick(flag, item, parse(item), choices));
  if (out.empty()) bad_flag(flag, "needs at least one value");
  return out;
}

std::string money(double v, const std::string& cur) { return num(v, v >= 100 ? 0 : 2) + " " + cur; }
std::string hours(double s) { return s < 3600 ? num(s / 60, 0) + " min" : num(s / 3600, 1) + " h"; }

struct Described {
  nlohmann::json json;
  std::vector<std::string> row;
};

void run_plan(const PlanFlags& f) {
  const ResolvedModel rm = resolve_model(f.workload.model);
  const ModelArch& m = rm.arch;
  Workload base = build_workload(f.workload, m);
  RunSettings run = build_run_settings(f.run, base);
  if (!run.spec.tokens && !run.spec.steps) bad_flag("--tokens", "plan needs the run's size: --tokens, --steps or --dataset-tokens");

  PlanSpace space;
  space.methods = parse_list<Method>("--methods", f.methods, method_from_string, "full, lora, qlora, freeze, pretrain");
  if (std::find(space.methods.begin(), space.methods.end(), Method::inference) != space.methods.end())
    bad_flag("--methods", "plan searches training; use serve for inference");
  space.precisions = parse_list<Precision>("--precisions", f.precisions, precision_from_string, "fp32, fp16, bf16, fp8");
  space.optimizers = parse_list<Optimizer>("--optimizers", f.optimizers, optimizer_from_string,
                                           "adamw, adamw-8bit, paged-adamw-8bit, sgd, sgd-momentum, adafactor, lion");
  space.checkpointing = parse_list<Checkpointing>("--checkpointing-options", f.checkpointing, checkpointing_from_string, "none, selective, full");
  space.shardings = parse_list<Sharding>("--shardings", f.shardings, sharding_from_string, "ddp, zero1, zero2, zero3, fsdp");
  space.pricings = parse_list<Pricing>("--pricings", f.pricings, pricing_from_string, "on-demand, spot, reserved-1y, reserved-3y");
  space.micro_batches.clear();
  for (const auto& s : split(f.micro_batches)) {
    auto v = parse_int(s, 1, 1 << 16);
    if (!v) bad_flag("--micro-batches", v.error);
    space.micro_batches.push_back(*v.value);
  }
  if (space.micro_batches.empty()) bad_flag("--micro-batches", "needs at least one value");
  if (f.max_nodes < 1 || f.max_nodes > 1024) bad_flag("--max-nodes", "expected 1 to 1024");
  space.nodes.clear();
  for (int n = 1; n <= f.max_nodes; n *= 2) space.nodes.push_back(n);
  if (f.objective != "cost" && f.objective != "time") bad_choice("--objective", f.objective, "cost, time");
  if (f.top < 1) bad_flag("--top", "expected 1 or more");
  if (f.global_batch < 0) bad_flag("--global-batch", "must not be negative");

  PlanInputs in;
  in.model = m;
  in.params = count_params(m);
  in.base = base;
  in.global_batch = f.global_batch;
  in.objective = f.objective == "time" ? Objective::time : Objective::cost;
  in.bill = run.spec.bill;
  in.deadline_seconds = run.spec.bill.deadline_seconds;
  in.budget = run.budget;
  in.time = run.spec.time;
  in.checkpoint_write_gbps = run.spec.checkpoint_write_gbps;
  std::vector<std::string> providers;
  for (const auto& p : f.providers) {
    const auto l = catalog().find_provider(p);
    if (!l.found) bad_flag("--provider", lookup_failure("provider", p, l));
    providers.push_back(l.found->id);
  }
  std::vector<std::string> gpu_ids;
  for (const auto& g : f.gpus) gpu_ids.push_back(resolve_gpu(g).id);
  for (const Provider& p : catalog().providers) {
    if (!providers.empty() && std::find(providers.begin(), providers.end(), p.id) == providers.end()) continue;
    const double rate = to_display(1.0, p.currency, run, p.where);
    for (const Offer& o : p.offers) {
      if (!gpu_ids.empty() && std::find(gpu_ids.begin(), gpu_ids.end(), o.gpu) == gpu_ids.end()) continue;
      if (!f.regions.empty() && std::none_of(f.regions.begin(), f.regions.end(), [&](const std::string& r) { return o.in_region(r); }))
        continue;
      const auto g = catalog().find_gpu(o.gpu);
      if (g.found) in.offers.push_back({&o, &p, g.found, rate});
    }
  }
  if (in.offers.empty()) bad_flag("--provider", "no offer in the loaded sheets matches the filters");
  // tokens: with --steps, size the run from the user's global batch at the base micro-batch.
  in.tokens = run.spec.tokens ? *run.spec.tokens
                              : *run.spec.steps * static_cast<double>(base.seq_len) *
                                    static_cast<double>(f.global_batch > 0 ? f.global_batch : base.micro_batch * base.gpus);

  const std::uint64_t size = static_cast<std::uint64_t>(space.methods.size() * space.precisions.size() * space.optimizers.size() *
                                                         space.checkpointing.size() * space.shardings.size() *
                                                         space.micro_batches.size() * space.nodes.size() * space.pricings.size()) *
                             in.offers.size();
  if (size > kMaxSearch)
    bad_flag("--max-nodes", "the search space holds " + std::to_string(size) + " configurations (limit " + std::to_string(kMaxSearch) +
                                "); narrow it with --provider, --gpu, --methods, --micro-batches or --max-nodes");

  const PlanResult res = search_plans(in, space, static_cast<std::size_t>(std::max(f.top, 10)));
  const std::string& cur = run.currency;

  auto describe = [&](const Candidate& c) {
    const PlanOffer& po = in.offers[static_cast<std::size_t>(c.offer)];
    const Workload w = candidate_workload(in, space, c);
    Described d;
    d.json = {{"method", to_string(w.method)},
              {"precision", to_string(w.precision)},
              {"optimizer", to_string(w.optimizer)},
              {"checkpointing", to_string(w.checkpointing)},
              {"attention", to_string(w.attention)},
              {"sharding", to_string(w.sharding)},
              {"micro_batch", c.micro_batch},
              {"grad_accum", c.grad_accum},
              {"gpus", c.gpus},
              {"provider", po.provider->id},
              {"offer", po.offer->id},
              {"gpu", po.offer->gpu},
              {"pricing", to_string(space.pricings[c.pricing])},
              {"per_gpu_bytes", static_cast<std::int64_t>(std::llround(c.per_gpu_bytes))},
              {"step_seconds", c.step_seconds},
              {"wall_seconds", c.wall_seconds},
              {"gpu_hours", c.gpu_hours},
              {"mfu", c.mfu},
              {"cost", c.cost},
              {"currency", cur},
              {"meets_deadline", c.meets_deadline},
              {"meets_budget", c.meets_budget}};
    if (space.pricings[c.pricing] == Pricing::spot)
      d.json["spot"] = {{"checkpoint_interval_seconds", c.checkpoint_interval_seconds}, {"expected_preemptions", c.expected_preemptions}};
    d.row = {to_string(w.method), std::string(to_string(w.precision)) + "/" + to_string(w.optimizer), to_string(w.checkpointing),
             std::to_string(c.micro_batch) + "x" + std::to_string(c.grad_accum), std::to_string(c.gpus) + " " + to_string(w.sharding),
             po.offer->key(), to_string(space.pricings[c.pricing]), num(c.per_gpu_bytes / (1024.0 * 1024 * 1024), 1), hours(c.wall_seconds),
             money(c.cost, cur)};
    return d;
  };
  auto table = [&](const std::string& title, const std::vector<Candidate>& cs, std::size_t limit) {
    io::Table t;
    t.title = title;
    t.columns = {"method", "precision/optimizer", "ckpt", "batch", "gpus", "offer", "pricing", "GiB/GPU", "wall", "cost"};
    t.align.assign(t.columns.size(), io::Align::left);
    t.align[7] = t.align[8] = t.align[9] = io::Align::right;
    for (std::size_t i = 0; i < cs.size() && i < limit; ++i) t.rows.push_back(describe(cs[i]).row);
    return t;
  };

  Report r;
  r.json["model"] = {{"id", m.id}, {"name", m.name}, {"source", rm.source}};
  r.json["objective"] = f.objective;
  r.json["searched"] = {{"configurations", res.considered}, {"scored", res.evaluated}, {"offers", in.offers.size()}};
  r.json["runners_up"] = nlohmann::json::array();
  r.json["pareto"] = nlohmann::json::array();
  for (const auto& c : res.pareto) r.json["pareto"].push_back(describe(c).json);

  if (res.best.empty()) {
    // No feasible plan is an answer: say which constraint binds and by how much.
    r.json["plan"] = nullptr;
    std::vector<std::string> why;
    if (!res.cheapest) {
      why.push_back("nothing fits: no configuration of " + m.name + " fits any loaded offer's GPU memory");
    } else {
      if (in.budget && res.cheapest->cost > *in.budget)
        why.push_back("the cheapest plan that fits costs " + money(res.cheapest->cost, cur) + ", budget " + money(*in.budget, cur));
      if (in.deadline_seconds && res.fastest->wall_seconds > *in.deadline_seconds)
        why.push_back("the fastest plan misses the deadline by " + hours(res.fastest->wall_seconds - *in.deadline_seconds));
      if (why.empty()) why.push_back("no single plan meets both the budget and the deadline (the cheap ones are slow, the fast ones dear)");
      r.tables.push_back(table("Closest plans (cost/time front)", res.pareto, 5));
    }
    r.json["why_none"] = why;
    for (const auto& w : why) r.notes.push_back(w);
    r.notes.push_back("searched " + std::to_string(res.considered) + " configurations over " + std::to_string(in.offers.size()) + " offers");
    print_report(r);
    exit_code() = 1;
    return;
  }

  const Candidate& best = res.best.front();
  const Described bd = describe(best);
  r.json["plan"] = bd.json;
  for (std::size_t i = 1; i < res.best.size() && static_cast<int>(i) <= f.top; ++i) r.json["runners_up"].push_back(describe(res.best[i]).json);

  // The chosen settings, each with its reason: what the best plan with another value costs.
  const Workload bw = candidate_workload(in, space, best);
  const PlanOffer& bo = in.offers[static_cast<std::size_t>(best.offer)];
  io::Table chosen;
  chosen.title = "Plan: " + m.name + ", " + num(in.tokens / 1e9, 2) + "B tokens, by " + f.objective;
  chosen.columns = {"setting", "choice", "why"};
  chosen.align = {io::Align::left, io::Align::left, io::Align::left};
  auto alt_reason = [&](const std::vector<std::optional<Candidate>>& by, std::size_t chosen_index, auto name_of) {
    std::string why;
    for (std::size_t i = 0; i < by.size(); ++i) {
      if (i == chosen_index) continue;
      std::string part = name_of(i) + ": ";
      if (!by[i]) part += "no plan fits within the limits";
      else if (in.objective == Objective::cost)
        part += "best costs " + money(by[i]->cost, cur) + " (" + num(by[i]->cost / std::max(best.cost, 1e-9), 2) + "x)";
      else part += "best takes " + hours(by[i]->wall_seconds) + " (" + num(by[i]->wall_seconds / std::max(best.wall_seconds, 1e-9), 2) + "x)";
      why += (why.empty() ? "" : "; ") + part;
    }
    return why.empty() ? std::string("the only option searched") : why;
  };
  r.json["reasons"] = nlohmann::json::array();
  auto add_reason = [&](const std::string& setting, const std::string& choice, const std::string& why) {
    chosen.rows.push_back({setting, choice, why});
    r.json["reasons"].push_back({{"setting", setting}, {"choice", choice}, {"why", why}});
  };
  add_reason("method", to_string(bw.method), alt_reason(res.best_by_method, best.method, [&](std::size_t i) { return std::string(to_string(space.methods[i])); }));
  add_reason("precision", to_string(bw.precision), alt_reason(res.best_by_precision, best.precision, [&](std::size_t i) { return std::string(to_string(space.precisions[i])); }));
  add_reason("optimizer", to_string(bw.optimizer), alt_reason(res.best_by_optimizer, best.optimizer, [&](std::size_t i) { return std::string(to_string(space.optimizers[i])); }));
  add_reason("checkpointing", to_string(bw.checkpointing),
             alt_reason(res.best_by_checkpointing, best.checkpointing, [&](std::size_t i) { return std::string(to_string(space.checkpointing[i])); }));
  add_reason("sharding", std::to_string(best.gpus) + " GPUs, " + to_string(bw.sharding),
             alt_reason(res.best_by_sharding, best.sharding, [&](std::size_t i) { return std::string(to_string(space.shardings[i])); }));
  add_reason("batch", std::to_string(best.micro_batch) + " x " + std::to_string(best.grad_accum) + " accumulation",
             f.global_batch > 0 ? "micro-batch x accumulation x " + std::to_string(best.gpus) + " GPUs keeps the global batch of " +
                                      std::to_string(f.global_batch) + " sequences"
                                : "the best micro-batch searched (no --global-batch to keep)");
  add_reason("offer", bo.offer->key() + " (" + bo.offer->gpu + ")", "priced " + std::string(to_string(space.pricings[best.pricing])) + " at " +
                                                                       money(best.cost, cur) + " for the run");
  add_reason("pricing", to_string(space.pricings[best.pricing]),
             alt_reason(res.best_by_pricing, best.pricing, [&](std::size_t i) { return std::string(to_string(space.pricings[i])); }));
  r.tables.push_back(chosen);

  io::Table outcome;
  outcome.title = "Expected outcome";
  outcome.columns = {"", ""};
  outcome.align = {io::Align::left, io::Align::left};
  outcome.rows.push_back({"memory per GPU", num(best.per_gpu_bytes / (1024.0 * 1024 * 1024), 1) + " GiB of " +
                                                num(static_cast<double>(bo.gpu->memory_bytes) / (1024.0 * 1024 * 1024), 0)});
  outcome.rows.push_back({"step", num(best.step_seconds, 2) + " s, MFU " + num(100 * best.mfu, 0) + "%"});
  outcome.rows.push_back({"wall time", hours(best.wall_seconds) + (in.deadline_seconds ? " (deadline " + hours(*in.deadline_seconds) + ")" : "")});
  outcome.rows.push_back({"cost", money(best.cost, cur) + (in.budget ? " (budget " + money(*in.budget, cur) + ")" : "")});
  if (space.pricings[best.pricing] == Pricing::spot)
    outcome.rows.push_back({"spot", best.checkpoint_interval_seconds > 0 && best.expected_preemptions > 0
                                        ? "checkpoint every " + hours(best.checkpoint_interval_seconds) + ", " +
                                              num(best.expected_preemptions, 1) + " expected preemptions"
                                        : "no preemption rate known: priced as if never preempted"});
  r.tables.push_back(outcome);
  std::vector<Candidate> runners(res.best.begin() + 1, res.best.end());
  if (!runners.empty()) r.tables.push_back(table("Runners-up", runners, static_cast<std::size_t>(f.top)));
  r.tables.push_back(table("Cost/time Pareto front", res.pareto, 8));

  // The staged plan as next steps.
  r.json["next_steps"] = nlohmann::json::array();
  std::vector<std::string> steps;
  steps.push_back("run a 50-step baseline on one " + bo.offer->gpu + " with these settings and pass its measured MFU as --mfu to re-plan");
  if (bw.method == Method::full) steps.push_back("full fine-tuning won on cost here; still try LoRA/QLoRA on the same data if quality allows");
  else steps.push_back("start from " + std::string(to_string(bw.method)) + "; move to full fine-tuning only if your evaluation needs it");
  if (bw.checkpointing == Checkpointing::full) steps.push_back("activation checkpointing is on: it costs ~1/3 more compute but lets the micro-batch fit");
  if (best.gpus > 1) steps.push_back("scale out only after the single-GPU run is well utilised; the plan's scaling efficiency assumes the sheet's links");
  steps.push_back("compare providers on identical work: gpuplan compare with these settings");
  for (const auto& s : steps) {
    r.json["next_steps"].push_back(s);
    r.notes.push_back("next: " + s);
  }
  r.notes.push_back("searched " + std::to_string(res.considered) + " configurations (" + std::to_string(res.evaluated) + " fit and priced) over " +
                    std::to_string(in.offers.size()) + " offers");
  if (bo.offer->spot_preemptions_per_hour.has_value() == false && space.pricings[best.pricing] == Pricing::spot && !run.spec.bill.preemptions_per_hour)
    r.notes.push_back("the sheet gives no preemption rate for this offer: spot is priced as if never preempted (give --preemptions-per-hour)");

  if (emit_plan_launch(f.launch, {m, bw, best, bo, space.pricings[best.pricing], run}, r)) return;
  print_report(r);
  const bool ok = best.feasible();
  if (!ok) exit_code() = 1;
}

}  // namespace

void setup_plan(CLI::App& app) {
  auto f = std::make_shared<PlanFlags>();
  auto* cmd = app.add_subcommand("plan", "Search every configuration for the cheapest plan that meets the deadline and budget");
  cmd->footer(R"(Examples:
  gpuplan plan --model llama-3.1-8b --tokens 1B --deadline 3d --budget 200
  gpuplan plan --model qwen2.5-7b --tokens 2B --methods full --objective time --max-nodes 4
  gpuplan plan --model llama-3.1-8b --tokens 500M --global-batch 64 --emit deepspeed --out ds_config.json
  gpuplan plan --model llama-3.1-8b --tokens 500M --currency INR --region india --emit skypilot)");
  add_workload_options(*cmd, f->workload);
  add_run_options(*cmd, f->run);
  cmd->add_option("--objective", f->objective, "cost | time")->capture_default_str();
  cmd->add_option("--methods", f->methods, "Methods allowed (quality constraint), e.g. full or lora,qlora")->capture_default_str();
  cmd->add_option("--precisions", f->precisions, "Compute precisions to try, e.g. bf16,fp8")->capture_default_str();
  cmd->add_option("--optimizers", f->optimizers, "Optimizers to try")->capture_default_str();
  cmd->add_option("--checkpointing-options", f->checkpointing, "Checkpointing settings to try")->capture_default_str();
  cmd->add_option("--shardings", f->shardings, "Sharding strategies to try")->capture_default_str();
  cmd->add_option("--micro-batches", f->micro_batches, "Micro-batch sizes to try")->capture_default_str();
  cmd->add_option("--pricings", f->pricings, "Pricings to try")->capture_default_str();
  cmd->add_option("--max-nodes", f->max_nodes, "Most instances of one offer (1, 2, 4, ... up to this)")->capture_default_str();
  cmd->add_option("--global-batch", f->global_batch, "Sequences per optimizer step to keep (default: free)");
  cmd->add_option("--provider", f->providers, "Only this provider (repeatable)");
  cmd->add_option("--gpu", f->gpus, "Only this GPU (repeatable)");
  cmd->add_option("--region", f->regions, "Only offers whose region contains this text (repeatable)");
  cmd->add_option("--top", f->top, "Runners-up to show")->capture_default_str();
  add_launch_options(*cmd, f->launch);
  add_common_options(*cmd);
  cmd->callback([f] { run_plan(*f); });
}

}  // namespace gpuplan::cli
