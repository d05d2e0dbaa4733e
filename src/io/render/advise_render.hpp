#pragma once
// `gpuplan advise`'s report: the pattern and why, the placement per workload class, the
// buy-vs-rent numbers behind it, the answers with where each came from, and what would change
// the answer; as JSON and tables.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "gpuplan/advise.hpp"
#include "io/render/money_style.hpp"
#include "io/render/render.hpp"
#include "io/render/setup_notes.hpp"

namespace gpuplan::io {

// Where an answer came from. An answer given as text (a flag, the answers file, the prompt)
// is shown as given; a derived one is a number in AdviceAnswers or Advice, worded here.
enum class AnswerOrigin {
  flag,
  per_month_flag,  // --gpu-hours-per-month x 168/730: question 1 a week
  answers_file,    // `file`:`line`
  prompt,          // typed on the terminal
  demand_hours,    // question 1 measured in the --demand log `file`
  demand_steady,   // question 2: the log's GPU-hours under its p50 baseline
  demand_spread,   // question 2's ±: the spread of the log's weekly (or daily) GPU-hours
  computed_idle,   // question 6: one owned GPU idle a month, on buy-vs-rent's terms
};
struct AnswerRow {
  std::string key, question;
  AnswerOrigin origin = AnswerOrigin::flag;
  std::string text;  // as given (flag, answers_file, prompt)
  std::string file;  // answers_file, demand_*
  int line = 0;      // answers_file
};

// A derived answer rounded to what its row shows (hours to 2 decimals, shares to 0.1%, a month's
// hours a week to 6 decimals), so the rules decide on the number the reader sees: a spread
// shown as 30.0% is 30% to the 30-50% rule, as if it had been typed.
double shown_answer(AnswerOrigin origin, double value);

// What the --demand log measured, for the sources of its answers.
struct DemandFacts {
  double baseline_gpus = 0;
  DemandUncertainty uncertainty;
};

struct AdviseContext {
  std::string gpu, currency;
  std::vector<AnswerRow> answers;
  AdviceAnswers values;               // the answers as read: derived rows show these numbers
  std::optional<DemandFacts> demand;  // when answers came from a log
  const TcoAnalysis* training = nullptr;
  const TcoAnalysis* serving = nullptr;
};

// JSON spells the one amount in an answer (question 6) with the automatic grouping whatever
// --grouping says: the flag is for people's tables.
nlohmann::json advise_json(const Advice& a, const AdviseContext& c);
// The pattern with its reasons, the split, the numbers, the answers, what would change it.
std::vector<Table> advise_tables(const Advice& a, const AdviseContext& c, MoneyStyle style);
// The split alone (what --format csv prints).
Table advise_split_table(const Advice& a);
// buy-vs-rent's setup notes, then, without a job log, how the hours were priced.
std::vector<std::string> advise_notes(const std::vector<SetupNote>& demand, const std::vector<SetupNote>& inputs, bool divisible);

}  // namespace gpuplan::io
