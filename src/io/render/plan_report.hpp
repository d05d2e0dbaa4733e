#pragma once
// plan's report: the search result spelled as JSON, tables and notes. The choice, its reasons
// (explain_plan) and next steps (plan_next_steps) come from the core as codes and numbers; this
// chooses their words (plan_words for the next steps).
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "gpuplan/plan.hpp"
#include "io/render/money_style.hpp"
#include "io/render/render.hpp"

namespace gpuplan::io {

struct PlanReport {
  const PlanInputs& in;
  const PlanSpace& space;
  const PlanResult& res;
  std::string currency;
  std::string objective;  // "cost" or "time", as asked
  std::string model_id, model_name, model_source;
  int top = 5;  // runners-up shown
  // The chosen plan's input pipeline (evaluate_candidate), as estimate and compare show it.
  std::optional<PipelineFigures> pipeline;
};

// JSON's reasons spell money with the automatic grouping whatever --grouping says (it is for
// people); `style` spells the money in the tables' cells and the notes.
nlohmann::json plan_json(const PlanReport& r);
std::vector<Table> plan_tables(const PlanReport& r, MoneyStyle style);
std::vector<std::string> plan_notes(const PlanReport& r, MoneyStyle style);
// For CSV: the best plan and the runners-up (or, with none, the closest plans), raw numbers.
Table plan_csv_table(const PlanReport& r, MoneyStyle style);

}  // namespace gpuplan::io
