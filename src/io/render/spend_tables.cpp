#include "io/render/spend_tables.hpp"

#include "io/render/alert_text.hpp"
#include "io/render/experiments_render.hpp"
#include "io/render/format.hpp"
#include "io/render/spend_render.hpp"

namespace gpuplan::io {
namespace {

std::string crossing(const MonthBurn& b) { return b.crosses_on.empty() ? "-" : b.crosses_on + (b.crossing_forecast ? " (forecast)" : ""); }

Table summary_table(const SpendReport& s) {
  const MonthBurn& b = s.total;
  Table t;
  t.title = "Spend " + s.period + " as of " + s.as_of + " (" + s.currency + ")";
  t.columns = {"", "value"};
  t.align = {Align::left, Align::right};
  t.rows = {{"spent", num(b.spent, 2)},
            {"cap", opt_num(b.cap)},
            {"burn per day", num(b.burn_per_day, 2)},
            {"period-end forecast", b.forecast_made ? num(b.forecast, 2) : "-"},
            {"forecast method", forecast_method_text(b)},
            {"cap crossed on", crossing(b)}};
  return t;
}

Table groups_table(const std::string& title, const std::vector<SpendGroup>& gs) {
  Table t;
  t.title = title;
  t.columns = {"name", "spent", "cap", "forecast", "cap crossed on", "runs"};
  t.align = {Align::left, Align::right, Align::right, Align::right, Align::left, Align::right};
  t.name_columns = {0};
  for (const auto& g : gs)
    t.rows.push_back({g.name, num(g.burn.spent, 2), opt_num(g.burn.cap), g.burn.forecast_made ? num(g.burn.forecast, 2) : "-", crossing(g.burn),
                      std::to_string(g.runs)});
  return t;
}

// With cost per million samples and per 1,000 requests once any record carries an outcome (a
// ledger without them prints the table it always did).
Table experiments_table(const SpendReport& s) {
  const bool outcomes = !s.families.empty();
  Table t;
  t.title = "Experiments";
  t.columns = {"experiment", "runs", "spent", "cost/run", "cost/M tokens", "planned"};
  if (outcomes) t.columns.insert(t.columns.end(), {"cost/M samples", "cost/1k requests"});
  t.align.assign(t.columns.size(), Align::right);
  t.align[0] = Align::left;
  t.name_columns = {0};
  for (const auto& g : s.experiments) {
    t.rows.push_back({g.name, std::to_string(g.runs), num(g.burn.spent, 2), num(g.cost_per_run(), 2), opt_num(g.cost_per_million_tokens()),
                      opt_num(g.planned)});
    if (outcomes) t.rows.back().insert(t.rows.back().end(), {opt_num(g.cost_per_million_samples()), opt_num(g.cost_per_thousand_requests())});
  }
  return t;
}

}  // namespace

std::vector<Table> spend_report_tables(const SpendReport& r) {
  std::vector<Table> out = {summary_table(r), groups_table("Teams", r.teams), groups_table("Users", r.users), experiments_table(r)};
  if (!r.families.empty()) out.push_back(families_table(r));
  return out;
}

std::vector<std::string> spend_report_notes(const SpendReport& r) {
  std::vector<std::string> out;
  if (!r.families.empty()) out = family_notes(r);
  for (const auto& a : r.alerts) out.push_back("alert: " + alert_message(a, r.currency));
  if (r.alerts.empty()) out.push_back("no alerts");
  return out;
}

}  // namespace gpuplan::io
