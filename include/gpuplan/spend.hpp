#pragma once
// Spend over time, for the cost dashboard (`gpuplan report`): the burn rate, the month-end
// forecast and the day a cap is (or will be) crossed, spend by month/team/user/experiment
// against caps, cost per run and per million tokens, planned against actual, and alerts.
// Pure: callers convert every amount to the policy's currency first.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/budget.hpp"
#include "gpuplan/experiments.hpp"

namespace gpuplan {

// Days in a calendar month (leap years included); 0 for a month outside 1..12.
int days_in_month(int year, int month);

// A forecast needs this many days of the period behind it (half the period for a week): a
// period's first days say little about its end.
constexpr int kMinForecastDays = 7;

// One calendar period's spend as of a date, and where it is heading at the period's average burn.
struct MonthBurn {
  std::string period;            // the period's name: 2026-12, 2026-W49 or 2026-Q4
  int days_in_month = 0;         // days in the period
  int days_elapsed = 0;          // days from its first day to as_of (that day counts as elapsed)
  double spent = 0;              // every record in the period up to as_of (as `check` counts it)
  double burn_per_day = 0;       // spent / days_elapsed
  double forecast = 0;           // spent + burn_per_day * days left; just `spent` when none is made
  bool forecast_made = false;    // false before kMinForecastDays of history
  int forecast_needs_days = 0;   // the days of history a forecast needs (made or not; 0 before the period)
  std::string last_day;          // YYYY-MM-DD the forecast runs to
  std::optional<double> cap;
  std::string crosses_on;        // YYYY-MM-DD the cap is first exceeded; "" when it is not this month
  bool crossing_forecast = false;  // crosses_on is projected, not observed in the ledger
};

// `records` are the ones that count against the cap (already filtered to a team or user); those
// outside the period or after as_of are not counted. as_of must be a calendar date (YYYY-MM-DD).
MonthBurn period_burn(const std::vector<LedgerRecord>& records, const Period& period, const std::string& as_of, std::optional<double> cap);
// period_burn over the calendar month of as_of.
MonthBurn month_burn(const std::vector<LedgerRecord>& records, const std::string& as_of, std::optional<double> cap);

// Spend of one team, user or experiment in the period.
struct SpendGroup {
  std::string name;
  std::size_t runs = 0;          // ledger records
  double gpu_hours = 0, tokens = 0;
  double samples = 0, requests = 0;  // samples or images, inference requests (0 = none recorded)
  MonthBurn burn;                // spent, forecast, cap and crossing
  std::optional<double> planned; // experiments: the estimate `check` priced its spec at
  double cost_per_run() const { return runs ? burn.spent / static_cast<double>(runs) : 0; }
  // nullopt when no record of the group carries a token count.
  std::optional<double> cost_per_million_tokens() const;
  // nullopt when no record of the group carries a sample count / a request count.
  std::optional<double> cost_per_million_samples() const;
  std::optional<double> cost_per_thousand_requests() const;
};

// What a dashboard alert is about, as numbers and names: the renderer chooses the words
// (io/render/alert_text). Money is in the report's currency.
enum class AlertKind {
  over_cap,            // a period cap (total, team, user): spent past it
  forecast_over_cap,   // a period cap: the period's burn rate ends it past the cap
  run_over_max_cost,   // one run (a ledger record) cost more than its spec's max_cost
  over_life_cap,       // an experiment's whole ledger to as_of past the per-experiment cap
  unpriced,            // an active spec cannot be priced
  spot_no_checkpoint,  // an active spec runs on spot and sets no checkpoint interval
};
// The kind JSON prints: over_life_cap prints "over_cap", as every cap passed does.
const char* to_string(AlertKind k);

struct SpendAlert {
  AlertKind kind = AlertKind::over_cap;
  std::string subject;      // "total", "team nlp", "user asha", "experiment X", or a spec's name
  MonthBurn burn;           // over_cap, forecast_over_cap: the period's spend, forecast, cap and crossing
  double value = 0, limit = 0;  // run_over_max_cost: the run's cost and max_cost; over_life_cap: spent and the cap
  std::string date;         // run_over_max_cost: the run's date; over_life_cap: as_of
  std::string why;          // unpriced: why it cannot be priced (the pricer's words)
};

struct Spender {
  std::string kind, name;  // kind: team, user, experiment
  double spent = 0, share = 0;  // share of the period's total, 0..1
};

struct SpendReport {
  std::string as_of, period, currency;
  MonthBurn total;
  std::vector<std::pair<std::string, double>> months;  // every month in the ledger, oldest first
  std::vector<std::pair<std::string, double>> days;    // the period's spend per day (days with spend)
  std::vector<SpendGroup> teams, users, experiments;   // in the period, by name
  std::vector<Spender> largest;                        // the top spenders of the period
  std::vector<SpendAlert> alerts;
  // Experiments as decisions, over the whole ledger to as_of; empty when no record carries a
  // measured outcome, and then every output is what it was before outcomes existed.
  DecisionRule rule;
  std::vector<FamilyOutcome> families;
};

// `ledger` holds the whole ledger (records after as_of are not counted; the period's caps count
// the policy's period holding as_of, and the per-experiment cap an experiment's whole ledger),
// `months` the all-time totals by month, and `planned` the experiment specs as `check` priced
// them (their max_cost is a cap on each run, checked against each of the period's records).
SpendReport build_spend_report(const BudgetPolicy& policy, const std::vector<LedgerRecord>& ledger,
                               const std::vector<std::pair<std::string, double>>& months,
                               const std::vector<ExperimentCheck>& planned, const std::string& as_of,
                               const DecisionRule& rule = {});
// The same from fewer records: `ledger` holds the period's records to as_of and every record to
// as_of of each experiment family with measured outcomes (the rest cannot change the report),
// and `experiment_spent` each experiment's spend to as_of (experiment_spend over the whole
// ledger, or a store's sum of it).
SpendReport build_spend_report(const BudgetPolicy& policy, const std::vector<LedgerRecord>& ledger,
                               const std::map<std::string, double>& experiment_spent,
                               const std::vector<std::pair<std::string, double>>& months,
                               const std::vector<ExperimentCheck>& planned, const std::string& as_of, const DecisionRule& rule);

}  // namespace gpuplan
