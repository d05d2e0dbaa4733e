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
  OfferFlags filter;
  std::string objective = "cost", methods = "full,lora,qlora", precisions = "bf16", optimizers = "adamw,adamw-8bit";
  std::string pricings = "on-demand", checkpointing = "none,full", shardings = "ddp,zero2,fsdp";
  std::string micro_batches = "1,2,4,8,16,32";
  LaunchFlags launch;
  std::string tensor_parallels, pipeline_parallels;  // "" = by model size (see parallel_degrees)
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

template <class E>
std::vector<E> parse_list(const std::string& flag, const std::string& text) {
  std::vector<E> out;
  for (const auto& item : split(text)) out.push_back(pick_enum<E>(flag, item));
  if (out.empty()) bad_flag(flag, "needs at least one value");
  return out;
}

std::string money(double v, const std::string& cur) { return num(v, v >= 100 ? 0 : 2) + " " + cur; }
std::string hours(double s) { return s < 3600 ? num(s / 60, 0) + " min" : num(s / 3600, 1) + " h"; }

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

PlanSpace build_space(const PlanFlags& f) {
  PlanSpace space;
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
  if (f.max_nodes < 1 || f.max_nodes > 1024) bad_flag("--max-nodes", "expected 1 to 1024");
  space.nodes.clear();
  for (int n = 1; n <= f.max_nodes; n *= 2) space.nodes.push_back(n);
  return space;
}

// The offers the search may use, each with its sheet-to-display rate.
std::vector<PlanOffer> plan_offers(const PlanFlags& f, const Workload& base, const RunSettings& run) {
  const OfferFilter filter = build_offer_filter(f.filter, catalog());
  std::vector<PlanOffer> offers;
  for (const Provider& p : catalog().providers) {
    const double rate = to_display(1.0, p.currency, run, p.where);
    for (const Offer& o : p.offers) {
      if (!offer_matches(filter, p, o, base, run.spec)) continue;
      const auto g = catalog().find_gpu(o.gpu);
      if (g.found) offers.push_back({&o, &p, g.found, rate});
    }
  }
  if (offers.empty()) bad_flag("--provider", "no offer in the loaded sheets matches the filters");
  return offers;
}

PlanInputs build_inputs(const PlanFlags& f, const ResolvedModel& rm, const Workload& base, const RunSettings& run) {
  if (f.objective != "cost" && f.objective != "time") bad_choice("--objective", f.objective, "cost, time");
  if (f.top < 1) bad_flag("--top", "expected 1 or more");
  if (f.global_batch < 0) bad_flag("--global-batch", "must not be negative");
  PlanInputs in;
  in.model = rm.arch;
  in.params = count_params(rm.arch);
  in.base = base;
  in.global_batch = f.global_batch;
  in.objective = f.objective == "time" ? Objective::time : Objective::cost;
  in.run = run.spec;
  in.deadline_seconds = run.spec.bill.deadline_seconds;
  in.budget = run.budget;
  in.offers = plan_offers(f, base, run);
  // tokens: with --steps, size the run from the user's global batch at the base micro-batch.
  in.tokens = run.spec.tokens ? *run.spec.tokens
                              : *run.spec.steps * static_cast<double>(base.seq_len) *
                                    static_cast<double>(f.global_batch > 0 ? f.global_batch : base.micro_batch * base.gpus);
  return in;
}

void check_size(const PlanSpace& space, const PlanInputs& in) {
  const std::uint64_t size = static_cast<std::uint64_t>(space.methods.size() * space.precisions.size() * space.optimizers.size() *
                                                         space.checkpointing.size() * space.shardings.size() *
                                                         space.micro_batches.size() * space.nodes.size() * space.pricings.size() *
                                                         space.tensor_parallel.size() * space.pipeline_parallel.size()) *
                             in.offers.size();
  if (size > kMaxSearch)
    bad_flag("--max-nodes", "the search space holds " + std::to_string(size) + " configurations (limit " + std::to_string(kMaxSearch) +
                                "); narrow it with --provider, --gpu, --methods, --micro-batches or --max-nodes");
}

struct PlanView {
  const PlanInputs& in;
  const PlanSpace& space;
  const std::string& currency;
};

nlohmann::json candidate_json(const PlanView& v, const Candidate& c) {
  const PlanOffer& po = v.in.offers[static_cast<std::size_t>(c.offer)];
  const Workload w = candidate_workload(v.in, v.space, c);
  nlohmann::json j = {{"method", to_string(w.method)},         {"precision", to_string(w.precision)},
                      {"optimizer", to_string(w.optimizer)},   {"checkpointing", to_string(w.checkpointing)},
                      {"attention", to_string(w.attention)},   {"sharding", to_string(w.sharding)},
                      {"micro_batch", c.micro_batch},          {"grad_accum", c.grad_accum},
                      {"tensor_parallel", w.tensor_parallel},  {"pipeline_parallel", w.pipeline_parallel},
                      {"gpus", c.gpus},                        {"provider", po.provider->id},
                      {"offer", po.offer->id},                 {"gpu", po.offer->gpu},
                      {"pricing", to_string(v.space.pricings[c.pricing])},
                      {"per_gpu_bytes", static_cast<std::int64_t>(std::llround(c.per_gpu_bytes))},
                      {"step_seconds", c.step_seconds},        {"wall_seconds", c.wall_seconds},
                      {"gpu_hours", c.gpu_hours},              {"mfu", c.mfu},
                      {"cost", c.cost},                        {"currency", v.currency},
                      {"meets_deadline", c.meets_deadline},    {"meets_budget", c.meets_budget}};
  if (v.space.pricings[c.pricing] == Pricing::spot)
    j["spot"] = {{"checkpoint_interval_seconds", c.checkpoint_interval_seconds}, {"expected_preemptions", c.expected_preemptions}};
  return j;
}

// "8 fsdp", "64 tp8 pp2 ddp".
std::string gpus_text(int gpus, const Workload& w) {
  std::string s = std::to_string(gpus);
  if (w.tensor_parallel > 1) s += " tp" + std::to_string(w.tensor_parallel);
  if (w.pipeline_parallel > 1) s += " pp" + std::to_string(w.pipeline_parallel);
  return s + " " + to_string(w.sharding);
}

io::Table candidates_table(const PlanView& v, const std::string& title, const std::vector<Candidate>& cs, std::size_t limit) {
  io::Table t;
  t.title = title;
  t.columns = {"method", "precision/optimizer", "ckpt", "batch", "gpus", "offer", "pricing", "GiB/GPU", "wall", "cost"};
  t.csv_columns = {"method", "precision", "optimizer", "checkpointing", "micro_batch", "grad_accum", "gpus", "sharding",
                   "offer", "pricing", "per_gpu_bytes", "wall_seconds", "cost_" + v.currency};
  t.align.assign(t.columns.size(), io::Align::left);
  t.align[7] = t.align[8] = t.align[9] = io::Align::right;
  t.cuttable = {5};  // provider/offer keys run long
  for (std::size_t i = 0; i < cs.size() && i < limit; ++i) {
    const Candidate& c = cs[i];
    const PlanOffer& po = v.in.offers[static_cast<std::size_t>(c.offer)];
    const Workload w = candidate_workload(v.in, v.space, c);
    const char* pricing = to_string(v.space.pricings[c.pricing]);
    t.rows.push_back({to_string(w.method), std::string(to_string(w.precision)) + "/" + to_string(w.optimizer), to_string(w.checkpointing),
                      std::to_string(c.micro_batch) + "x" + std::to_string(c.grad_accum), gpus_text(c.gpus, w),
                      po.offer->key(), pricing, num(c.per_gpu_bytes / kGiB, 1), hours(c.wall_seconds), money(c.cost, v.currency)});
    t.csv_rows.push_back({to_string(w.method), to_string(w.precision), to_string(w.optimizer), to_string(w.checkpointing),
                          std::to_string(c.micro_batch), std::to_string(c.grad_accum), std::to_string(c.gpus), to_string(w.sharding),
                          po.offer->key(), pricing, std::to_string(std::llround(c.per_gpu_bytes)), io::raw(c.wall_seconds), io::raw(c.cost)});
  }
  return t;
}

// No feasible plan is an answer: say which constraint binds and by how much. Exit 1.
void report_none(const PlanView& v, const PlanResult& res, const std::string& model_name, Report& r) {
  const PlanInputs& in = v.in;
  r.json["plan"] = nullptr;
  std::vector<std::string> why;
  if (!res.cheapest) {
    why.push_back("nothing fits: no configuration of " + model_name + " fits any loaded offer's GPU memory");
  } else {
    if (in.budget && res.cheapest->cost > *in.budget)
      why.push_back("the cheapest plan that fits costs " + money(res.cheapest->cost, v.currency) + ", budget " + money(*in.budget, v.currency));
    if (in.deadline_seconds && res.fastest->wall_seconds > *in.deadline_seconds)
      why.push_back("the fastest plan misses the deadline by " + hours(res.fastest->wall_seconds - *in.deadline_seconds));
    if (why.empty()) why.push_back("no single plan meets both the budget and the deadline (the cheap ones are slow, the fast ones dear)");
    r.tables.push_back(candidates_table(v, "Closest plans (cost/time front)", res.pareto, 5));
  }
  r.json["why_none"] = why;
  for (const auto& w : why) r.notes.push_back(w);
  r.notes.push_back("searched " + std::to_string(res.considered) + " configurations over " + std::to_string(in.offers.size()) + " offers");
  exit_code() = 1;
}

std::string alternative_text(const PlanView& v, const SettingAlternative& a, const Candidate& best) {
  std::string part = a.value + ": ";
  if (!a.best) return part + "no plan fits within the limits";
  if (v.in.objective == Objective::cost)
    return part + "best costs " + money(a.best->cost, v.currency) + " (" + num(a.best->cost / std::max(best.cost, 1e-9), 2) + "x)";
  return part + "best takes " + hours(a.best->wall_seconds) + " (" + num(a.best->wall_seconds / std::max(best.wall_seconds, 1e-9), 2) + "x)";
}

// The chosen settings, each with its reason: what the best plan with another value costs.
io::Table reasons_table(const PlanView& v, const PlanResult& res, const Candidate& best, const std::string& title, Report& r) {
  io::Table chosen;
  chosen.title = title;
  chosen.columns = {"setting", "choice", "why"};
  chosen.align = {io::Align::left, io::Align::left, io::Align::left};
  r.json["reasons"] = nlohmann::json::array();
  auto add = [&](const std::string& setting, const std::string& choice, const std::string& why) {
    chosen.rows.push_back({setting, choice, why});
    r.json["reasons"].push_back({{"setting", setting}, {"choice", choice}, {"why", why}});
  };
  const PlanOffer& bo = v.in.offers[static_cast<std::size_t>(best.offer)];
  for (const SettingReason& s : explain_plan(res, v.space, best)) {
    std::string why;
    for (const auto& a : s.others) why += (why.empty() ? "" : "; ") + alternative_text(v, a, best);
    if (why.empty()) why = "the only option searched";
    if (s.setting == "sharding") add(s.setting, io::count_of(best.gpus, "GPU") + ", " + s.choice, why);
    else add(s.setting, s.choice, why);
    if (s.setting == "sharding") {
      add("batch", std::to_string(best.micro_batch) + " x " + std::to_string(best.grad_accum) + " accumulation",
          v.in.global_batch > 0 ? "micro-batch x accumulation x " + io::count_of(best.gpus, "GPU") + " keeps the global batch of " +
                                      std::to_string(v.in.global_batch) + " sequences"
                                : "the best micro-batch searched (no --global-batch to keep)");
      add("offer", bo.offer->key() + " (" + bo.offer->gpu + ")",
          "priced " + std::string(to_string(v.space.pricings[best.pricing])) + " at " + money(best.cost, v.currency) + " for the run");
    }
  }
  return chosen;
}

io::Table outcome_table(const PlanView& v, const Candidate& best) {
  const PlanOffer& bo = v.in.offers[static_cast<std::size_t>(best.offer)];
  io::Table outcome;
  outcome.title = "Expected outcome";
  outcome.columns = {"", ""};
  outcome.align = {io::Align::left, io::Align::left};
  outcome.rows.push_back({"memory per GPU", num(best.per_gpu_bytes / kGiB, 1) + " GiB of " + num(static_cast<double>(bo.gpu->usable_bytes()) / kGiB, 1) + " usable"});
  outcome.rows.push_back({"step", num(best.step_seconds, 2) + " s, MFU " + num(100 * best.mfu, 0) + "%"});
  outcome.rows.push_back({"wall time", hours(best.wall_seconds) + (v.in.deadline_seconds ? " (deadline " + hours(*v.in.deadline_seconds) + ")" : "")});
  outcome.rows.push_back({"cost", money(best.cost, v.currency) + (v.in.budget ? " (budget " + money(*v.in.budget, v.currency) + ")" : "")});
  if (v.space.pricings[best.pricing] == Pricing::spot)
    outcome.rows.push_back({"spot", best.checkpoint_interval_seconds > 0 && best.expected_preemptions > 0
                                        ? "checkpoint every " + hours(best.checkpoint_interval_seconds) + ", " +
                                              num(best.expected_preemptions, 1) + " expected preemptions"
                                        : "no preemption rate known: priced as if never preempted"});
  return outcome;
}

// The staged plan as next steps.
void add_next_steps(const PlanView& v, const Candidate& best, Report& r) {
  const Workload bw = candidate_workload(v.in, v.space, best);
  const PlanOffer& bo = v.in.offers[static_cast<std::size_t>(best.offer)];
  std::vector<std::string> steps;
  steps.push_back("run a 50-step baseline on one " + bo.offer->gpu + " with these settings and pass its measured MFU as --mfu to re-plan");
  if (bw.method == Method::full) steps.push_back("full fine-tuning won on cost here; still try LoRA/QLoRA on the same data if quality allows");
  else steps.push_back("start from " + std::string(to_string(bw.method)) + "; move to full fine-tuning only if your evaluation needs it");
  if (bw.checkpointing == Checkpointing::full) steps.push_back("activation checkpointing is on: it costs ~1/3 more compute but lets the micro-batch fit");
  if (best.gpus > 1) steps.push_back("scale out only after the single-GPU run is well utilised; the plan's scaling efficiency assumes the sheet's links");
  steps.push_back("compare providers on identical work: gpuplan compare with these settings");
  r.json["next_steps"] = steps;
  for (const auto& s : steps) r.notes.push_back("next: " + s);
}

void report_plan(const PlanFlags& f, const PlanView& v, const PlanResult& res, const ModelArch& m, Report& r) {
  const Candidate& best = res.best.front();
  r.json["plan"] = candidate_json(v, best);
  for (std::size_t i = 1; i < res.best.size() && static_cast<int>(i) <= f.top; ++i) r.json["runners_up"].push_back(candidate_json(v, res.best[i]));
  r.tables.push_back(reasons_table(v, res, best, "Plan: " + m.name + ", " + num(v.in.tokens / 1e9, 2) + "B tokens, by " + f.objective, r));
  r.tables.push_back(outcome_table(v, best));
  const std::vector<Candidate> runners(res.best.begin() + 1, res.best.end());
  if (!runners.empty()) r.tables.push_back(candidates_table(v, "Runners-up", runners, static_cast<std::size_t>(f.top)));
  r.tables.push_back(candidates_table(v, "Cost/time Pareto front", res.pareto, 8));
  add_next_steps(v, best, r);
  r.notes.push_back("searched " + std::to_string(res.considered) + " configurations (" + std::to_string(res.evaluated) +
                    " fit and priced) over " + std::to_string(v.in.offers.size()) + " offers");
  const PlanOffer& bo = v.in.offers[static_cast<std::size_t>(best.offer)];
  if (!bo.offer->spot_preemptions_per_hour && v.space.pricings[best.pricing] == Pricing::spot && !v.in.run.bill.preemptions_per_hour)
    r.notes.push_back("the sheet gives no preemption rate for this offer: spot is priced as if never preempted (give --preemptions-per-hour)");
  if (!best.feasible()) exit_code() = 1;
}

void run_plan(const PlanFlags& f) {
  const ResolvedModel rm = resolve_model(f.workload.model);
  const Workload base = build_workload(f.workload, rm.arch);
  const RunSettings run = build_run_settings(f.run, base);
  if (!run.spec.tokens && !run.spec.steps) bad_flag("--tokens", "plan needs the run's size: --tokens, --steps or --dataset-tokens");
  static const std::vector<std::string> kEmits = {"deepspeed", "accelerate", "torchrun", "skypilot", "slurm"};
  if (!f.launch.emit.empty() && std::find(kEmits.begin(), kEmits.end(), f.launch.emit) == kEmits.end())
    bad_choice("--emit", f.launch.emit, "deepspeed, accelerate, torchrun, skypilot, slurm");
  if (f.launch.emit.empty() && !f.launch.out.empty()) bad_flag("--out", "needs --emit");
  const PlanSpace space = build_space(f);
  const PlanInputs in = build_inputs(f, rm, base, run);
  check_size(space, in);
  const PlanResult res = search_plans(in, space, static_cast<std::size_t>(std::max(f.top, 10)));
  const PlanView v{in, space, run.currency};

  Report r;
  r.json["model"] = {{"id", rm.arch.id}, {"name", rm.arch.name}, {"source", rm.source}};
  r.json["objective"] = f.objective;
  r.json["searched"] = {{"configurations", res.considered}, {"scored", res.evaluated}, {"offers", in.offers.size()}};
  r.json["runners_up"] = nlohmann::json::array();
  r.json["pareto"] = nlohmann::json::array();
  for (const auto& c : res.pareto) r.json["pareto"].push_back(candidate_json(v, c));
  if (res.best.empty()) {
    report_none(v, res, rm.arch.name, r);
  } else {
    report_plan(f, v, res, rm.arch, r);
    const Candidate& best = res.best.front();
    const Workload bw = candidate_workload(in, space, best);
    const PlanOffer& bo = in.offers[static_cast<std::size_t>(best.offer)];
    if (emit_plan_launch(f.launch, {rm.arch, bw, best, bo, space.pricings[best.pricing], run}, r)) return;
  }
  print_report(r);
}

// Singular flags (--method qlora) narrow the plural search lists to that one value; giving
// both is ambiguous.
void narrow(CLI::App& cmd, const char* singular, const char* plural, const std::string& value, std::string& list) {
  if (cmd.get_option(singular)->count() == 0) return;
  if (cmd.get_option(plural)->count() > 0) bad_flag(singular, std::string("give ") + singular + " or " + plural + ", not both");
  list = value;
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
  add_common_options(*cmd);
  cmd->callback([f, cmd] {
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
    g.workload.tensor_parallel = g.workload.pipeline_parallel = 1;  // searched per candidate
    parallel_degrees(g, resolve_model(g.workload.model).arch);
    run_plan(g);
  });
}

}  // namespace gpuplan::cli
