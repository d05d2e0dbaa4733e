#include "io/render/advise_render.hpp"

#include <fmt/format.h>

#include <cmath>

#include "gpuplan/units.hpp"
#include "io/render/advise_words.hpp"
#include "io/render/tco_render.hpp"

namespace gpuplan::io {
namespace {

using nlohmann::json;

json opt(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json tco_numbers(const TcoAnalysis& t) {
  return {{"verdict", to_string(t.decision.verdict)},
          {"owned_gpus", t.decision.owned_gpus},
          {"rent_per_month", t.rent.total},
          {"own_fleet_per_month", t.buy.total},
          {"chosen_per_month", t.choice.total},
          {"spot_per_month", t.spot ? json(t.spot->total) : json(nullptr)},
          {"break_even_gpu_hours_per_month", opt(t.break_even_gpu_hours)},
          {"payback_months", opt(t.payback_months)},
          {"uncertainty_rule_applied", t.decision.rule_applied}};
}

double rounded(double v, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::round(v * scale) / scale;
}

std::string answer_text(const AnswerRow& r, const Advice& a, const AdviseContext& c, MoneyStyle style) {
  switch (r.origin) {
    case AnswerOrigin::flag:
    case AnswerOrigin::answers_file:
    case AnswerOrigin::prompt: return r.text;
    case AnswerOrigin::per_month_flag: return num(c.values.gpu_hours_per_week, 6);
    case AnswerOrigin::demand_hours: return num(c.values.gpu_hours_per_week, 2);
    case AnswerOrigin::demand_steady: return num(100 * c.values.steady_share, 1) + "%";
    case AnswerOrigin::demand_spread: return num(100 * c.values.uncertainty, 1) + "%";
    case AnswerOrigin::computed_idle: return money_text(a.idle_gpu_per_month, c.currency, 0, style) + " per owned GPU-month";
  }
  return {};
}

std::string spread_basis(const DemandUncertainty& u) {
  std::string out = "coefficient of variation of " + std::to_string(u.periods) +
                    (u.weekly ? " whole weeks' GPU-hours" : " days' GPU-hours (under 3 weeks of log)");
  if (u.capped()) out += "; measured " + num(100 * u.measured, 1) + "%, capped at 100% (the low end of demand is already zero)";
  return out;
}

std::string source_text(const AnswerRow& r, const AdviseContext& c) {
  switch (r.origin) {
    case AnswerOrigin::flag: return "flag";
    case AnswerOrigin::per_month_flag: return "flag --gpu-hours-per-month x 168/730";
    case AnswerOrigin::answers_file: return r.file + ":" + std::to_string(r.line);
    case AnswerOrigin::prompt: return "prompt";
    case AnswerOrigin::demand_hours: return "demand " + r.file;
    case AnswerOrigin::demand_steady:
      return "demand " + r.file + ": GPU-hours under the p50 of GPUs busy (" + num(c.demand ? c.demand->baseline_gpus : 0, 0) + ")";
    case AnswerOrigin::demand_spread: return "demand " + r.file + ": " + spread_basis(c.demand ? c.demand->uncertainty : DemandUncertainty{});
    case AnswerOrigin::computed_idle: return "computed (buy-vs-rent terms)";
  }
  return {};
}

Table numbers_table(const Advice& a, const AdviseContext& c, MoneyStyle style) {
  Table t;
  t.title = "The buy-vs-rent numbers behind it (" + c.gpu + ", per month)";
  t.columns = {"figure", "value"};
  auto m = [&](double v) { return money_text(v, c.currency, 0, style); };
  const TcoAnalysis& x = *c.training;
  t.rows.push_back({"training: buy-vs-rent verdict", std::string(to_string(x.decision.verdict)) + " (" + std::to_string(x.decision.owned_gpus) + " owned)"});
  t.rows.push_back({"training: rent everything", m(x.rent.total)});
  t.rows.push_back({"training: own the fleet (" + std::to_string(x.buy.owned_gpus) + " GPUs)", m(x.buy.total)});
  t.rows.push_back({"training: the verdict's option", m(x.choice.total)});
  if (x.spot) t.rows.push_back({"training: rent everything on spot", m(x.spot->total)});
  if (x.break_even_gpu_hours) t.rows.push_back({"break-even (steady GPU-hours a week)", num(per_month_to_per_week(*x.break_even_gpu_hours), 0)});
  if (x.payback_months) t.rows.push_back({"payback", num(*x.payback_months, 1) + " months"});
  t.rows.push_back({"6. cost of idle hardware: one owned GPU idle", m(a.idle_gpu_per_month)});
  if (c.serving) {
    t.rows.push_back({"serving: buy-vs-rent verdict", std::string(to_string(c.serving->decision.verdict))});
    t.rows.push_back({"serving: rent / own", m(c.serving->rent.total) + " / " + m(c.serving->buy.total)});
  }
  return t;
}

Table list_table(const std::string& title, const std::string& column, const std::vector<std::string>& lines) {
  Table t;
  t.title = title;
  t.columns = {column};
  for (const auto& l : lines) t.rows.push_back({l});
  return t;
}

std::vector<std::string> reason_lines(const Advice& a) {
  std::vector<std::string> out;
  for (const auto& r : a.reasons) out.push_back(reason_text(r));
  return out;
}

std::vector<std::string> change_lines(const Advice& a) {
  std::vector<std::string> out;
  for (const auto& c : a.would_change) out.push_back(change_text(c));
  return out;
}

}  // namespace

Table advise_split_table(const Advice& a) {
  Table t;
  t.title = "Split per workload class";
  t.columns = {"workload", "GPU-h/week", "run on", "why"};
  t.align = {Align::left, Align::right, Align::left, Align::left};
  t.csv_columns = {"workload", "gpu_hours_per_week", "run_on", "why"};
  for (const auto& w : a.split) {
    const std::string workload = workload_text(w.workload), why = placement_why_text(w);
    t.rows.push_back({workload, num(w.gpu_hours_per_week, 0), to_string(w.where), why});
    t.csv_rows.push_back({workload, num(w.gpu_hours_per_week, 2), to_string(w.where), why});
  }
  return t;
}

double shown_answer(AnswerOrigin origin, double value) {
  switch (origin) {
    case AnswerOrigin::per_month_flag: return rounded(value, 6);
    case AnswerOrigin::demand_hours: return rounded(value, 2);
    case AnswerOrigin::demand_steady:
    case AnswerOrigin::demand_spread: return rounded(value, 3);
    case AnswerOrigin::flag:
    case AnswerOrigin::answers_file:
    case AnswerOrigin::prompt:
    case AnswerOrigin::computed_idle: return value;
  }
  return value;
}

std::vector<std::string> advise_notes(const std::vector<SetupNote>& demand, const std::vector<SetupNote>& inputs, bool divisible) {
  std::vector<std::string> out;
  for (const auto& n : demand) out.push_back(setup_note_text(n));
  for (const auto& n : inputs) out.push_back(setup_note_text(n));
  if (divisible)
    out.push_back("divisible-hours model: buy-vs-rent prices the GPU-hours a week as spread evenly over the month and over any GPUs; "
                  "--demand FILE replays the measured jobs whole instead (as buy-vs-rent and replay do with that log)");
  return out;
}

json advise_json(const Advice& a, const AdviseContext& c) {
  json split = json::array(), answers = json::array();
  for (const auto& w : a.split)
    split.push_back({{"workload", workload_text(w.workload)},
                     {"gpu_hours_per_week", w.gpu_hours_per_week},
                     {"run_on", to_string(w.where)},
                     {"why", placement_why_text(w)}});
  for (const auto& r : c.answers)
    answers.push_back({{"key", r.key}, {"question", r.question}, {"answer", answer_text(r, a, c, kJsonMoney)}, {"source", source_text(r, c)}});
  json out = {{"pattern", to_string(a.pattern)},
              {"gpu", c.gpu},
              {"currency", c.currency},
              {"reasons", reason_lines(a)},
              {"split", split},
              {"would_change", change_lines(a)},
              {"answers", answers},
              {"idle_gpu_per_month", a.idle_gpu_per_month},
              {"rules", {{"uncertainty_30_50", a.uncertainty_rule}, {"checkpoint_before_spot", a.checkpoint_rule}}},
              {"training", tco_numbers(*c.training)}};
  out["serving"] = c.serving ? tco_numbers(*c.serving) : json(nullptr);
  return out;
}

std::vector<Table> advise_tables(const Advice& a, const AdviseContext& c, MoneyStyle style) {
  std::vector<Table> out;
  out.push_back(list_table(std::string("Pattern: ") + to_string(a.pattern), "why", reason_lines(a)));
  out.push_back(advise_split_table(a));
  out.push_back(numbers_table(a, c, style));
  Table ans;
  ans.title = "Answers";
  ans.columns = {"question", "answer", "from"};
  ans.cuttable = {0};  // questions lead with their number; --wide prints them whole
  ans.min_cut = 40;   // ... and stay readable: the trailing "from" column wraps instead
  for (const auto& r : c.answers) ans.rows.push_back({r.question, answer_text(r, a, c, style), source_text(r, c)});
  out.push_back(ans);
  if (!a.would_change.empty()) out.push_back(list_table("What would change the answer", "if", change_lines(a)));
  return out;
}

}  // namespace gpuplan::io
