#pragma once
// check's and diff's reports: experiment specs priced by the engine and judged by the budget
// rules (gpuplan/budget.hpp), spelled as JSON, a table, notes and GitHub annotations.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "gpuplan/budget.hpp"
#include "gpuplan/input_pipeline.hpp"
#include "io/render/money_style.hpp"
#include "io/render/render.hpp"

namespace gpuplan::io {

struct CheckedSpec {
  ExperimentCheck check;
  double per_gpu_bytes = 0;
  std::string model;
  std::optional<PipelineFigures> pipeline;  // on the offer it is priced on (training only)
};

struct CheckReport {
  std::string period, currency;
  std::vector<CheckedSpec> specs;
  std::vector<RuleResult> rules;
  bool policy_given = false;
  std::string changed_against;  // --changed BASE: only the specs changed against it were checked
  std::size_t specs_found = 0;  // before --changed kept the changed ones
  bool pass() const;
};
nlohmann::json check_json(const CheckReport& r);
Table check_table(const CheckReport& r);
std::vector<std::string> check_notes(const CheckReport& r);
// One `::error file=...,line=...::message` workflow command per failed rule.
std::string github_annotations(const CheckReport& r);

// One `::error file=...,line=...::` per bad input (a spec's unknown key, a bad value), so a PR
// shows each at its line; errors with no file become a plain `::error::`.
std::string github_error_annotations(const std::vector<InputError>& errors);
// The verdict a PR comment opens with, before any table a name could disturb.
std::string markdown_verdict(const CheckReport& r);

// The workflow-command escaping of GitHub's Actions toolkit (exposed for its tests).
std::string gh_escape_data(const std::string& s);
std::string gh_escape_property(const std::string& s);

// An experiment in the old set, the new set, or both (null where absent).
struct DiffRow {
  std::string name;
  const CheckedSpec* before = nullptr;
  const CheckedSpec* after = nullptr;
  CostChange cost;  // cost_change(before, after), decided by the core
};
struct DiffReport {
  std::string currency;
  std::vector<DiffRow> rows;
  CostChange total;  // total_change over the rows
};
// Sets each row's cost change and the total, as the core decides them (cost_change,
// total_change); diff_json and diff_table print those values.
void decide_costs(DiffReport& r);
nlohmann::json diff_json(const DiffReport& r);
Table diff_table(const DiffReport& r, MoneyStyle style);

}  // namespace gpuplan::io
