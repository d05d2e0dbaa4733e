// check's and diff's reports.
#include "io/render/check_report.hpp"

#include <algorithm>
#include <utility>

#include "gpuplan/units.hpp"
#include "io/render/format.hpp"
#include "io/render/pipeline_render.hpp"
#include "io/render/rule_text.hpp"

namespace gpuplan::io {
namespace {

nlohmann::json opt_json(bool present, double v) { return present ? nlohmann::json(v) : nlohmann::json(); }

std::string signed_money(double v, const std::string& currency, MoneyStyle style) {
  return (v >= 0 ? "+" : "") + money_amount(v, currency, 2, style);
}

const char* change_text(SpecChange c) {
  switch (c) {
    case SpecChange::added: return "added";
    case SpecChange::removed: return "removed";
    case SpecChange::same: return "same";
    case SpecChange::changed: return "changed";
  }
  return "changed";
}

}  // namespace

bool CheckReport::pass() const { return gate_passes(rules); }

// GitHub's Actions toolkit (@actions/core, command.ts): data escapes %, CR and LF; a property
// value also escapes ':' and ',', which would otherwise end it (a spec file named "a,line=9" or
// holding a newline could forge an annotation).
std::string gh_escape_data(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '%') out += "%25";
    else if (c == '\r') out += "%0D";
    else if (c == '\n') out += "%0A";
    else out += c;
  }
  return printable(out);  // any other control character (ESC, NUL) as U+FFFD
}

std::string gh_escape_property(const std::string& s) {
  std::string out;
  for (char c : gh_escape_data(s)) {
    if (c == ':') out += "%3A";
    else if (c == ',') out += "%2C";
    else out += c;
  }
  return out;
}

nlohmann::json check_json(const CheckReport& r) {
  nlohmann::json j;
  j["period"] = r.period;
  j["currency"] = r.currency;
  j["pass"] = r.pass();
  j["specs_read"] = r.specs.size();
  j["experiments"] = nlohmann::json::array();
  for (const auto& s : r.specs) {
    const ExperimentCheck& c = s.check;
    nlohmann::json e = {{"name", c.name},       {"file", c.where.path}, {"owner", c.owner},   {"team", c.team},
                        {"priced", c.priced},   {"cost", c.cost},       {"offer", c.offer},   {"gpu_hours", c.gpu_hours},
                        {"wall_seconds", c.wall_seconds}, {"per_gpu_bytes", bytes_int(s.per_gpu_bytes)}, {"model", s.model}};
    if (!c.priced) e["why_unpriced"] = c.unpriced_reason;
    e["pipeline"] = s.pipeline ? pipeline_json(*s.pipeline) : nlohmann::json(nullptr);
    j["experiments"].push_back(e);
  }
  j["rules"] = nlohmann::json::array();
  for (const auto& res : r.rules)
    j["rules"].push_back({{"experiment", res.experiment.empty() ? nlohmann::json() : nlohmann::json(res.experiment)},
                          {"rule", to_string(res.rule)}, {"pass", res.pass}, {"value", res.value}, {"limit", res.limit},
                          {"message", rule_message(res, r.currency)}, {"file", res.where.path}, {"line", res.where.line}});
  return j;
}

Table check_table(const CheckReport& r) {
  Table t;
  t.title = "Budget check, " + r.period + " (" + r.currency + ")";
  t.columns = {"experiment", "rule", "result", "detail"};
  t.align = {Align::left, Align::left, Align::left, Align::left};
  t.csv_columns = {"experiment", "rule", "pass", "value", "limit", "file", "line", "message"};
  t.name_columns = {0, 1};
  for (const auto& res : r.rules) {
    const std::string message = rule_message(res, r.currency);
    t.rows.push_back({res.experiment.empty() ? "(all)" : res.experiment, to_string(res.rule), res.pass ? "pass" : "FAIL", message});
    t.csv_rows.push_back({res.experiment, to_string(res.rule), res.pass ? "true" : "false", raw(res.value), raw(res.limit), res.where.path,
                          std::to_string(res.where.line), message});
  }
  return t;
}

std::vector<std::string> check_notes(const CheckReport& r) {
  const auto failed = std::count_if(r.rules.begin(), r.rules.end(), [](const RuleResult& x) { return !x.pass; });
  std::vector<std::string> notes = {"read " + count_of(static_cast<long long>(r.specs.size()), "experiment spec")};
  if (!r.changed_against.empty())
    notes.push_back(count_of(static_cast<long long>(r.specs.size()), "spec") + " of " + std::to_string(r.specs_found) + " changed against " +
                    r.changed_against);
  notes.push_back(r.pass() ? "all " + std::to_string(r.rules.size()) + " rules pass"
                           : std::to_string(failed) + " of " + std::to_string(r.rules.size()) + " rules fail");
  if (!r.policy_given) notes.push_back("no --policy file: only each experiment's own max_cost and deadline are checked");
  // estimate's and compare's warning, for each spec priced on an offer its data cannot feed.
  constexpr std::size_t kNamed = 5;
  std::size_t bound = 0;
  for (const auto& s : r.specs) {
    if (!s.pipeline || s.pipeline->bound == PipelineBound::none) continue;
    if (++bound <= kNamed)
      notes.push_back("warning: " + s.check.name + " on " + s.check.offer + ": " + pipeline_bound_text(*s.pipeline) +
                      "; its time and cost include it");
  }
  if (bound > kNamed)
    notes.push_back("warning: " + count_of(static_cast<long long>(bound - kNamed), "more experiment") +
                    " bound by the input pipeline (--format json: experiments[].pipeline)");
  return notes;
}

std::string github_annotations(const CheckReport& r) {
  std::string out;
  for (const auto& res : r.rules) {
    if (res.pass) continue;
    out += "::error file=" + gh_escape_property(res.where.path) + ",line=" + std::to_string(std::max(1, res.where.line)) + "::" +
           gh_escape_data((res.experiment.empty() ? "" : res.experiment + ": ") + to_string(res.rule) + ": " + rule_message(res, r.currency)) + "\n";
  }
  return out;
}

std::string github_error_annotations(const std::vector<InputError>& errors) {
  std::string out;
  for (const auto& e : errors) {
    const SourceLocation& w = e.where();
    const std::string message = gh_escape_data(describe(SourceLocation{}, e.field(), e.problem()));
    if (w.path.empty() || w.path.front() == '<' || w.path.front() == '-') {
      out += "::error::" + gh_escape_data(describe(w, e.field(), e.problem())) + "\n";
      continue;
    }
    out += "::error file=" + gh_escape_property(w.path) + ",line=" + std::to_string(std::max(1, w.line)) +
           (w.column > 0 ? ",col=" + std::to_string(w.column) : "") + "::" + message + "\n";
  }
  return out;
}

std::string markdown_verdict(const CheckReport& r) {
  const auto failed = std::count_if(r.rules.begin(), r.rules.end(), [](const RuleResult& x) { return !x.pass; });
  if (r.pass())
    return "### ✅ Budget gate passes: all " + std::to_string(r.rules.size()) + " rules pass (" + markdown_text(r.period) + ")\n\n";
  return "### ❌ Budget gate FAILS: " + std::to_string(failed) + " of " + std::to_string(r.rules.size()) + " rules fail (" +
         markdown_text(r.period) + ")\n\n";
}

void decide_costs(DiffReport& r) {
  std::vector<CostChange> costs;
  for (DiffRow& row : r.rows) {
    row.cost = cost_change(row.before ? &row.before->check : nullptr, row.after ? &row.after->check : nullptr);
    costs.push_back(row.cost);
  }
  r.total = total_change(costs);
}

nlohmann::json diff_json(const DiffReport& r) {
  nlohmann::json j;
  j["currency"] = r.currency;
  j["experiments"] = nlohmann::json::array();
  for (const DiffRow& d : r.rows) {
    j["experiments"].push_back(
        {{"name", d.name},
         {"change", change_text(d.cost.change)},
         {"cost_before", opt_json(d.before, d.cost.before)},
         {"cost_after", opt_json(d.after, d.cost.after)},
         {"delta", d.cost.delta()},
         {"wall_seconds_before", opt_json(d.before, d.before ? d.before->check.wall_seconds : 0)},
         {"wall_seconds_after", opt_json(d.after, d.after ? d.after->check.wall_seconds : 0)},
         {"per_gpu_bytes_before", d.before ? nlohmann::json(bytes_int(d.before->per_gpu_bytes)) : nlohmann::json()},
         {"per_gpu_bytes_after", d.after ? nlohmann::json(bytes_int(d.after->per_gpu_bytes)) : nlohmann::json()}});
  }
  j["total_before"] = r.total.before;
  j["total_after"] = r.total.after;
  j["total_delta"] = r.total.delta();
  return j;
}

Table diff_table(const DiffReport& r, MoneyStyle style) {
  Table t;
  t.title = "Cost diff (" + r.currency + ")";
  t.columns = {"experiment", "change", "cost before", "cost after", "delta", "hours before", "hours after", "GiB/GPU after"};
  t.align = {Align::left, Align::left, Align::right, Align::right, Align::right, Align::right, Align::right, Align::right};
  t.name_columns = {0};
  t.csv_columns = {"experiment", "change", "cost_before", "cost_after", "delta", "wall_seconds_before", "wall_seconds_after",
                   "per_gpu_bytes_after"};
  for (const DiffRow& d : r.rows) {
    const CheckedSpec *b = d.before, *a = d.after;
    const double cb = d.cost.before, ca = d.cost.after;
    const std::string change = change_text(d.cost.change);
    t.rows.push_back({d.name, change, b ? money_amount(cb, r.currency, 2, style) : "-", a ? money_amount(ca, r.currency, 2, style) : "-",
                      signed_money(ca - cb, r.currency, style),
                      b ? num(b->check.wall_seconds / 3600, 1) : "-", a ? num(a->check.wall_seconds / 3600, 1) : "-",
                      a ? num(a->per_gpu_bytes / kGiB, 1) : "-"});
    t.csv_rows.push_back({d.name, change, b ? raw(cb) : "", a ? raw(ca) : "", raw(ca - cb), b ? raw(b->check.wall_seconds) : "",
                          a ? raw(a->check.wall_seconds) : "", a ? std::to_string(bytes_int(a->per_gpu_bytes)) : ""});
  }
  const CostChange& total = r.total;
  t.rows.push_back({"total", "", money_amount(total.before, r.currency, 2, style), money_amount(total.after, r.currency, 2, style),
                    signed_money(total.delta(), r.currency, style), "", "", ""});
  t.csv_rows.push_back({"total", "", raw(total.before), raw(total.after), raw(total.delta()), "", "", ""});
  return t;
}

}  // namespace gpuplan::io
