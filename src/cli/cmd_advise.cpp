// gpuplan advise: seed 001's eight questions answered from flags, an answers YAML file, a job
// log (--demand: the measurable ones) or a prompt on a terminal; the pattern, the placement
// per workload class, buy-vs-rent's numbers behind it and what would change the answer. The
// decision is advise() (src/core/advise.cpp) over analyse_tco; rendering src/io/render/advise_render.cpp.
#include <unistd.h>

#include <cctype>
#include <iostream>
#include <map>
#include <memory>

#include "cli/buy_vs_rent_inputs.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/format_values.hpp"
#include "gpuplan/advise.hpp"
#include "gpuplan/tco_analysis.hpp"
#include "gpuplan/tco_defaults.hpp"
#include "io/render/advise_render.hpp"
#include "io/render/purchase_report.hpp"
#include "io/usage/advice_answers.hpp"
#include "io/usage/job_log.hpp"

namespace gpuplan::cli {
namespace {

struct AdviseFlags {
  BuyVsRentFlags costs;  // --gpu, --demand and the ownership / rent terms
  std::map<std::string, std::string> answers;  // key -> flag text
  std::string answers_file;
  std::string gpu_hours_per_month;  // question 1 a month: x 168/730 a week
};

// One answer and where it came from: text to read (a flag, the answers file, the prompt), or a
// number already measured or converted (the --demand log, --gpu-hours-per-month).
struct Answered {
  io::AnswerOrigin origin = io::AnswerOrigin::flag;
  std::string text;
  double value = 0;  // derived answers
  std::string file;
  int line = 0;
  bool derived() const {
    return origin == io::AnswerOrigin::per_month_flag || origin == io::AnswerOrigin::demand_hours ||
           origin == io::AnswerOrigin::demand_steady || origin == io::AnswerOrigin::demand_spread;
  }
};

Answered given(io::AnswerOrigin origin, const std::string& text, const std::string& file = {}, int line = 0) {
  return Answered{origin, text, 0, file, line};
}

Answered derived(io::AnswerOrigin origin, double value, const std::string& file = {}) { return Answered{origin, "", value, file, 0}; }

io::DemandFacts from_demand(const std::string& file, std::map<std::string, Answered>& got) {
  const io::JobLog log = io::load_job_log(file);
  const DemandSummary d = summarise_demand(log.jobs);
  if (d.jobs == 0) throw InputError(SourceLocation{file, 0, 0}, "", "no job that used a GPU and ran (check AllocTRES/gpus)");
  const io::DemandFacts facts{d.baseline_gpus, demand_uncertainty(d)};
  got.emplace("gpu_hours_per_week", derived(io::AnswerOrigin::demand_hours, d.gpu_hours_per_week, file));
  got.emplace("steady_share", derived(io::AnswerOrigin::demand_steady, steady_share(d), file));
  got.emplace("uncertainty", derived(io::AnswerOrigin::demand_spread, facts.uncertainty.value, file));
  return facts;
}

// A derived answer's number into its field: the three questions a log or a unit converts.
void set_derived(AdviceAnswers& a, const std::string& key, double value) {
  if (key == "gpu_hours_per_week") a.gpu_hours_per_week = value;
  else if (key == "steady_share") a.steady_share = value;
  else if (key == "uncertainty") a.uncertainty = value;
  else throw std::logic_error("no derived answer to " + key);
}

bool needed(const std::string& key, const std::map<std::string, Answered>& got) {
  if (key != "inference_gpus") return true;
  const auto it = got.find("low_latency_inference");
  AdviceAnswers scratch;
  return it != got.end() && !io::apply_answer(scratch, it->first, it->second.text) && scratch.low_latency_inference;
}

// Asks every missing question on the terminal, re-asking on an invalid answer.
void prompt(std::map<std::string, Answered>& got) {
  for (const auto& q : io::advice_questions()) {
    if (got.count(q.key) || !needed(q.key, got)) continue;
    for (int tries = 0;; ++tries) {
      std::cerr << q.question << " [e.g. " << q.example << "]: " << std::flush;
      std::string line;
      if (!std::getline(std::cin, line)) throw InputError(std::string("no answer to \"") + q.question + "\" (end of input)");
      while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
      while (!line.empty() && std::isspace(static_cast<unsigned char>(line.front()))) line.erase(0, 1);
      AdviceAnswers scratch;
      const auto problem = io::apply_answer(scratch, q.key, line);
      if (!problem) {
        got[q.key] = given(io::AnswerOrigin::prompt, line);
        break;
      }
      std::cerr << "  " << *problem << "\n";
      if (tries >= 4) throw InputError(std::string("no valid answer to \"") + q.question + "\"");
    }
  }
}

struct Collected {
  std::map<std::string, Answered> answers;
  std::optional<io::DemandFacts> demand;
};

Collected collect(const AdviseFlags& f) {
  Collected c;
  auto& got = c.answers;
  for (const auto& [key, text] : f.answers)
    if (!text.empty()) got[key] = given(io::AnswerOrigin::flag, text);
  if (!f.gpu_hours_per_month.empty()) {
    if (got.count("gpu_hours_per_week")) bad_flag("--gpu-hours-per-month", "give --gpu-hours-per-week or --gpu-hours-per-month, not both");
    auto v = parse_count(f.gpu_hours_per_month);
    if (!v) bad_flag("--gpu-hours-per-month", v.error);
    got["gpu_hours_per_week"] = derived(io::AnswerOrigin::per_month_flag, per_month_to_per_week(*v.value));
  }
  if (!f.answers_file.empty())
    for (const auto& [key, a] : io::load_advice_answers(f.answers_file))
      got.emplace(key, given(io::AnswerOrigin::answers_file, a.text, a.where.path, a.where.line));
  if (!f.costs.demand.empty()) c.demand = from_demand(f.costs.demand, got);
  std::string missing;
  for (const auto& q : io::advice_questions())
    if (!got.count(q.key) && needed(q.key, got)) missing += std::string(missing.empty() ? "" : ", ") + q.flag;
  if (missing.empty()) return c;
  if (::isatty(STDIN_FILENO) == 0)
    throw InputError("missing answers: " + missing + " (give them as flags, in --answers FILE, derive the measurable ones with --demand FILE, or run on a terminal to be asked)");
  prompt(got);
  return c;
}

TcoAnalysis analyse(const BuyVsRentSetup& s) { return analyse_buy_vs_rent(s).a; }

int run_advise(const Context& ctx, const AdviseFlags& f) {
  const Collected got = collect(f);
  AdviceAnswers a;
  std::vector<io::AnswerRow> rows;
  for (const auto& q : io::advice_questions()) {
    const auto it = got.answers.find(q.key);
    if (it == got.answers.end()) continue;
    const Answered& x = it->second;
    if (x.derived()) set_derived(a, q.key, io::shown_answer(x.origin, x.value));
    else if (auto problem = io::apply_answer(a, q.key, x.text)) bad_flag(q.flag, *problem);
    rows.push_back({q.key, q.question, x.origin, x.text, x.file, x.line});
  }
  BuyVsRentFlags costs = f.costs;
  if (got.answers.at("gpu_hours_per_week").origin != io::AnswerOrigin::demand_hours) {  // hours given: steady demand at that rate
    costs.demand.clear();
    costs.known.gpu_hours_per_week = a.gpu_hours_per_week;
  }
  costs.known.uncertainty = a.uncertainty;
  const BuyVsRentSetup s = build_buy_vs_rent(ctx, costs);
  const TcoAnalysis training = analyse(s);
  std::optional<TcoAnalysis> serving;
  if (a.low_latency_inference && a.inference_gpus > 0) {
    BuyVsRentFlags sc = f.costs;
    sc.demand.clear();
    sc.gpu_hours.clear();
    sc.known.utilization = 1.0;  // serving GPUs are held around the clock
    sc.known.count = a.inference_gpus;
    sc.uncertainty.clear();
    serving = analyse(build_buy_vs_rent(ctx, sc));
  }
  const Advice advice = advise(a, s.in, training, serving ? &*serving : nullptr);
  rows.push_back({"cost_of_idle", "6. What is the cost of idle hardware?", io::AnswerOrigin::computed_idle, "", "", 0});
  io::AdviseContext c{s.gpu->id, s.run.currency, rows, a, got.demand, &training, serving ? &*serving : nullptr};
  Report r;
  r.json = io::advise_json(advice, c);
  r.json["purchase"] = io::purchase_json(s.purchase);  // the owned side's price, duty and tax, as buy-vs-rent shows them
  r.json["warnings"] = s.price_warnings;
  for (const auto& w : s.price_warnings) ctx.warn(w);
  r.csv = io::advise_split_table(advice);
  for (auto& t : io::advise_tables(advice, c, ctx.money_style())) r.tables.push_back(std::move(t));
  r.notes = io::advise_notes(s.demand_notes, s.notes, costs.demand.empty());
  ctx.print_report(r);
  return 0;
}

}  // namespace

void setup_advise(CLI::App& app, Context& ctx) {
  auto f = std::make_shared<AdviseFlags>();
  auto* cmd = app.add_subcommand("advise", "Eight questions on demand, risk and team: cloud-first, owned baseline + burst, or cloud training + owned serving");
  cmd->footer(R"(Examples:
  gpuplan advise --gpu h100-sxm --gpu-price 25000 --demand jobs.txt --interruptible 60% --checkpoints yes --low-latency-inference no --cost-of-waiting medium --churn 24 --ops slurm
  gpuplan advise --gpu rtx-4090 --answers answers.yaml

Answers come from flags first, then --answers FILE (the same names: gpu_hours_per_week: 300),
then --demand FILE (GPU-hours a week, steady share, uncertainty), then a prompt on a terminal;
without a terminal a missing answer is an error naming its flag. Question 6 (the cost of idle
hardware) is computed from the ownership terms. The ownership flags are buy-vs-rent's.)");
  add_buy_vs_rent_options(*cmd, f->costs);
  // Demand is question 1 (or --demand); --uncertainty is question 2's, asked like the others.
  for (const char* name : {"--gpu-hours-per-month", "--gpu-hours-per-week", "--utilization", "--utilisation", "--uncertainty"})
    remove_option(*cmd, name);
  for (const auto& q : io::advice_questions()) cmd->add_option(q.flag, f->answers[q.key], q.question);
  cmd->add_option("--gpu-hours-per-month", f->gpu_hours_per_month, "Question 1 as GPU-hours a month (730 h): x 168/730 a week");
  cmd->add_option("--answers", f->answers_file, "YAML file of answers (keys as the flags, with _: steady_share: 40%)");
  add_common_options(*cmd, ctx, kCatalogs);
  on_parsed(*cmd, ctx, [&ctx, f] { return run_advise(ctx, *f); });
}

}  // namespace gpuplan::cli
