// plan's report: the best plan with its reasons, the expected outcome, runners-up and the
// cost/time front; or, when nothing meets the limits, which limit binds and by how much.
#include "io/render/plan_report.hpp"

#include <algorithm>
#include <cmath>

#include "gpuplan/units.hpp"
#include "io/render/format.hpp"
#include "io/render/pipeline_render.hpp"
#include "io/render/plan_words.hpp"

namespace gpuplan::io {
namespace {

using PlanView = PlanReport;

std::string plan_money(double v, const std::string& cur, MoneyStyle style) { return money_text(v, cur, v >= 100 ? 0 : 2, style); }
std::string hours(double s) { return s < 3600 ? num(s / 60, 0) + " min" : num(s / 3600, 1) + " h"; }

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
  j["offload"] = to_string(w.offload);
  j["global_batch"] = c.micro_batch * c.grad_accum * data_parallel(w);
  j["layout"] = {{"data_parallel", data_parallel(w)},         {"tensor_parallel", w.tensor_parallel},
                 {"pipeline_parallel", w.pipeline_parallel},  {"virtual_pipeline", w.virtual_pipeline},
                 {"context_parallel", w.context_parallel},    {"expert_parallel", w.expert_parallel},
                 {"sequence_parallel", w.sequence_parallel}};
  if (v.space.pricings[c.pricing] == Pricing::spot)
    j["spot"] = {{"checkpoint_interval_seconds", c.checkpoint_interval_seconds}, {"expected_preemptions", c.expected_preemptions}};
  return j;
}

// "tp8 x pp2 x dp4": the model-parallel degrees above 1, then the data-parallel replicas.
std::string layout_text(const Workload& w) {
  std::string s;
  auto add = [&](const char* what, int n) {
    if (n > 1) s += what + std::to_string(n) + " x ";
  };
  add("tp", w.tensor_parallel);
  add("pp", w.pipeline_parallel);
  add("cp", w.context_parallel);
  add("ep", w.expert_parallel);
  return s + "dp" + std::to_string(data_parallel(w)) + (w.sequence_parallel && w.tensor_parallel > 1 ? " sp" : "");
}

// "8 fsdp", "64 tp8 x pp2 x dp4 ddp", "16 zero2 +offload".
std::string gpus_text(int gpus, const Workload& w) {
  std::string s = std::to_string(gpus);
  if (w.tensor_parallel > 1 || w.pipeline_parallel > 1 || w.context_parallel > 1 || w.expert_parallel > 1) s += " " + layout_text(w);
  s += std::string(" ") + to_string(w.sharding);
  if (w.offload != Offload::none) s += std::string(" +offload ") + to_string(w.offload);
  return s;
}

Table candidates_table(const PlanView& v, const std::string& title, const std::vector<Candidate>& cs, std::size_t limit, MoneyStyle style) {
  Table t;
  t.title = title;
  t.columns = {"method", "precision/optimizer", "ckpt", "batch", "gpus", "offer", "pricing", "GiB/GPU", "wall", "cost"};
  t.csv_columns = {"method", "precision", "optimizer", "checkpointing", "micro_batch", "grad_accum", "gpus", "sharding",
                   "offer", "pricing", "per_gpu_bytes", "wall_seconds", "cost_" + v.currency};
  t.align.assign(t.columns.size(), Align::left);
  t.align[7] = t.align[8] = t.align[9] = Align::right;
  t.cuttable = {5};      // provider/offer keys run long
  t.droppable = {2, 3};  // checkpointing and batch: the reasons table gives them for the best plan
  for (std::size_t i = 0; i < cs.size() && i < limit; ++i) {
    const Candidate& c = cs[i];
    const PlanOffer& po = v.in.offers[static_cast<std::size_t>(c.offer)];
    const Workload w = candidate_workload(v.in, v.space, c);
    const char* pricing = to_string(v.space.pricings[c.pricing]);
    t.rows.push_back({to_string(w.method), std::string(to_string(w.precision)) + "/" + to_string(w.optimizer), to_string(w.checkpointing),
                      std::to_string(c.micro_batch) + "x" + std::to_string(c.grad_accum), gpus_text(c.gpus, w),
                      po.offer->key(), pricing, num(c.per_gpu_bytes / kGiB, 1), hours(c.wall_seconds), plan_money(c.cost, v.currency, style)});
    t.csv_rows.push_back({to_string(w.method), to_string(w.precision), to_string(w.optimizer), to_string(w.checkpointing),
                          std::to_string(c.micro_batch), std::to_string(c.grad_accum), std::to_string(c.gpus), to_string(w.sharding),
                          po.offer->key(), pricing, std::to_string(std::llround(c.per_gpu_bytes)), raw(c.wall_seconds), raw(c.cost)});
  }
  return t;
}

// No feasible plan is an answer: which constraint binds and by how much.
std::vector<std::string> why_none(const PlanView& v, MoneyStyle style) {
  const PlanInputs& in = v.in;
  const PlanResult& res = v.res;
  std::vector<std::string> why;
  if (!res.cheapest) {
    why.push_back("nothing fits: no configuration of " + v.model_name + " fits any loaded offer's GPU memory");
    return why;
  }
  if (in.budget && res.cheapest->cost > *in.budget)
    why.push_back("the cheapest plan that fits costs " + plan_money(res.cheapest->cost, v.currency, style) + ", budget " + plan_money(*in.budget, v.currency, style));
  if (in.deadline_seconds && res.fastest->wall_seconds > *in.deadline_seconds)
    why.push_back("the fastest plan misses the deadline by " + hours(res.fastest->wall_seconds - *in.deadline_seconds));
  if (why.empty()) why.push_back("no single plan meets both the budget and the deadline (the cheap ones are slow, the fast ones dear)");
  return why;
}

std::string alternative_text(const PlanView& v, const SettingAlternative& a, const Candidate& best, MoneyStyle style) {
  std::string part = a.value + ": ";
  if (!a.best) return part + "no plan fits within the limits";
  if (v.in.objective == Objective::cost)
    return part + "best costs " + plan_money(a.best->cost, v.currency, style) + " (" + num(a.best->cost / std::max(best.cost, 1e-9), 2) + "x)";
  return part + "best takes " + hours(a.best->wall_seconds) + " (" + num(a.best->wall_seconds / std::max(best.wall_seconds, 1e-9), 2) + "x)";
}

// The chosen settings, each with its reason: what the best plan with another value costs.
std::vector<std::vector<std::string>> reasons(const PlanView& v, const Candidate& best, MoneyStyle style) {
  std::vector<std::vector<std::string>> rows;
  const PlanOffer& bo = v.in.offers[static_cast<std::size_t>(best.offer)];
  for (const SettingReason& s : explain_plan(v.res, v.space, best)) {
    std::string why;
    for (const auto& a : s.others) why += (why.empty() ? "" : "; ") + alternative_text(v, a, best, style);
    if (why.empty()) why = "the only option searched";
    if (s.setting != PlanSetting::sharding) {
      rows.push_back({to_string(s.setting), s.choice, why});
      continue;
    }
    const Workload bw = candidate_workload(v.in, v.space, best);
    rows.push_back({to_string(s.setting), count_of(best.gpus, "GPU") + " (" + layout_text(bw) + "), " + s.choice, why});
    if (bw.offload != Offload::none)
      rows.push_back({"offload", to_string(bw.offload), "given with --offload: " + std::string(bw.offload == Offload::optimizer
                                                                                               ? "optimizer states and step on the CPU"
                                                                                               : "parameters, gradients and optimizer on the CPU")});
    rows.push_back({"batch", std::to_string(best.micro_batch) + " x " + std::to_string(best.grad_accum) + " accumulation",
                    v.in.global_batch > 0 ? "micro-batch x accumulation x " + count_of(best.gpus, "GPU") + " keeps the global batch of " +
                                                std::to_string(v.in.global_batch) + " sequences"
                                          : "the best micro-batch searched (no --global-batch to keep)"});
    rows.push_back({"offer", bo.offer->key() + " (" + bo.offer->gpu + ")",
                    "priced " + std::string(to_string(v.space.pricings[best.pricing])) + " at " + plan_money(best.cost, v.currency, style) + " for the run"});
  }
  return rows;
}

Table reasons_table(const PlanView& v, const Candidate& best, MoneyStyle style) {
  Table t;
  t.title = "Plan: " + v.model_name + ", " + num(v.in.tokens / 1e9, 2) + "B tokens, by " + v.objective;
  t.columns = {"setting", "choice", "why"};
  t.align = {Align::left, Align::left, Align::left};
  t.rows = reasons(v, best, style);
  return t;
}

Table outcome_table(const PlanView& v, const Candidate& best, MoneyStyle style) {
  const PlanOffer& bo = v.in.offers[static_cast<std::size_t>(best.offer)];
  Table outcome;
  outcome.title = "Expected outcome";
  outcome.columns = {"", ""};
  outcome.align = {Align::left, Align::left};
  outcome.csv_columns = {"quantity", "value", "unit"};
  auto add = [&](const std::string& what, const std::string& text, const std::string& csv_name, double value, const std::string& unit) {
    outcome.rows.push_back({what, text});
    outcome.csv_rows.push_back({csv_name, raw(value), unit});
  };
  add("memory per GPU", num(best.per_gpu_bytes / kGiB, 1) + " GiB of " + num(static_cast<double>(bo.gpu->usable_bytes()) / kGiB, 1) + " usable",
      "per_gpu_bytes", best.per_gpu_bytes, "bytes");
  add("step", num(best.step_seconds, 2) + " s, MFU " + num(100 * best.mfu, 0) + "%", "step_seconds", best.step_seconds, "s");
  add("wall time", hours(best.wall_seconds) + (v.in.deadline_seconds ? " (deadline " + hours(*v.in.deadline_seconds) + ")" : ""),
      "wall_seconds", best.wall_seconds, "s");
  add("cost", plan_money(best.cost, v.currency, style) + (v.in.budget ? " (budget " + plan_money(*v.in.budget, v.currency, style) + ")" : ""), "cost",
      best.cost, v.currency);
  if (v.space.pricings[best.pricing] == Pricing::spot)
    add("spot",
        best.checkpoint_interval_seconds > 0 && best.expected_preemptions > 0
            ? "checkpoint every " + hours(best.checkpoint_interval_seconds) + ", " + num(best.expected_preemptions, 1) + " expected preemptions"
            : "no preemption rate known: priced as if never preempted",
        "expected_preemptions", best.expected_preemptions, "count");
  return outcome;
}

std::string searched_text(const PlanView& v) {
  if (v.res.best.empty())
    return "searched " + std::to_string(v.res.considered) + " configurations over " + std::to_string(v.in.offers.size()) + " offers";
  return "searched " + std::to_string(v.res.considered) + " configurations (" + std::to_string(v.res.evaluated) +
         " fit and priced) over " + std::to_string(v.in.offers.size()) + " offers";
}

}  // namespace

nlohmann::json plan_json(const PlanReport& v) {
  const MoneyStyle style = kJsonMoney;
  nlohmann::json j;
  j["model"] = {{"id", v.model_id}, {"name", v.model_name}, {"source", v.model_source}};
  j["objective"] = v.objective;
  j["searched"] = {{"configurations", v.res.considered}, {"scored", v.res.evaluated}, {"offers", v.in.offers.size()}};
  j["runners_up"] = nlohmann::json::array();
  j["pareto"] = nlohmann::json::array();
  for (const auto& c : v.res.pareto) j["pareto"].push_back(candidate_json(v, c));
  if (v.res.best.empty()) {
    j["plan"] = nullptr;
    j["why_none"] = why_none(v, style);
    return j;
  }
  const Candidate& best = v.res.best.front();
  j["plan"] = candidate_json(v, best);
  for (std::size_t i = 1; i < v.res.best.size() && static_cast<int>(i) <= v.top; ++i) j["runners_up"].push_back(candidate_json(v, v.res.best[i]));
  j["reasons"] = nlohmann::json::array();
  for (const auto& row : reasons(v, best, style)) j["reasons"].push_back({{"setting", row[0]}, {"choice", row[1]}, {"why", row[2]}});
  j["next_steps"] = nlohmann::json::array();
  for (const PlanStep& s : plan_next_steps(v.in, v.space, best)) j["next_steps"].push_back(next_step_text(s));
  j["pipeline"] = v.pipeline ? pipeline_json(*v.pipeline) : nlohmann::json(nullptr);
  return j;
}

std::vector<Table> plan_tables(const PlanReport& v, MoneyStyle style) {
  if (v.res.best.empty()) {
    if (!v.res.cheapest) return {};
    return {candidates_table(v, "Closest plans (cost/time front)", v.res.pareto, 5, style)};
  }
  const Candidate& best = v.res.best.front();
  std::vector<Table> tables = {reasons_table(v, best, style), outcome_table(v, best, style)};
  const std::vector<Candidate> runners(v.res.best.begin() + 1, v.res.best.end());
  if (!runners.empty()) tables.push_back(candidates_table(v, "Runners-up", runners, static_cast<std::size_t>(v.top), style));
  tables.push_back(candidates_table(v, "Cost/time Pareto front", v.res.pareto, 8, style));
  return tables;
}

Table plan_csv_table(const PlanReport& v, MoneyStyle style) {
  if (v.res.best.empty()) return candidates_table(v, "Closest plans", v.res.pareto, v.res.pareto.size(), style);
  return candidates_table(v, "Plans", v.res.best, static_cast<std::size_t>(v.top) + 1, style);
}

std::vector<std::string> plan_notes(const PlanReport& v, MoneyStyle style) {
  std::vector<std::string> notes;
  if (v.res.best.empty()) {
    notes = why_none(v, style);
    notes.push_back(searched_text(v));
    return notes;
  }
  const Candidate& best = v.res.best.front();
  for (const PlanStep& s : plan_next_steps(v.in, v.space, best)) notes.push_back("next: " + next_step_text(s));
  notes.push_back(searched_text(v));
  const PlanOffer& bo = v.in.offers[static_cast<std::size_t>(best.offer)];
  if (v.pipeline)
    for (auto& n : pipeline_notes(bo.offer->key(), *v.pipeline)) notes.push_back(std::move(n));
  if (!bo.offer->spot_preemptions_per_hour && v.space.pricings[best.pricing] == Pricing::spot && !v.in.run.bill.preemptions_per_hour)
    notes.push_back("the sheet gives no preemption rate for this offer: spot is priced as if never preempted (give --preemptions-per-hour)");
  return notes;
}

}  // namespace gpuplan::io
