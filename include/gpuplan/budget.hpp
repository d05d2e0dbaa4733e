#pragma once
// The budget gate's rules: caps per experiment, team, user and in total for a period, spend
// already in the ledger, deadlines, and policy rules (spot checkpoint interval, approvals).
// Pure: callers convert every amount to the policy's currency first.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/error.hpp"

namespace gpuplan {

// One measured outcome of a run: a validation metric and which way is better.
struct RunMetric {
  std::string name;        // e.g. eval_loss, accuracy
  double value = 0;
  bool higher_is_better = false;
};

// One line of the spend ledger: what a run actually cost.
struct LedgerRecord {
  std::string date;        // YYYY-MM-DD
  std::string experiment;
  std::string team, user, provider;
  double cost = 0;
  std::string currency;
  double gpu_hours = 0;
  SourceLocation where;
  double tokens = 0;       // tokens processed (0 = not recorded), for cost per million tokens
  std::string id;          // unique per record: a retried append with the same id counts once
  // Measured outcomes (all optional; a record without them is a plain spend record).
  std::string family;                      // experiment family ("" = from the experiment name, see family_of)
  std::vector<RunMetric> metrics;          // validation quality, in the order recorded
  std::optional<double> utilization;       // measured GPU utilization over the run, 0..1
  double samples = 0;                      // samples or images processed (0 = not recorded)
  double requests = 0;                     // inference requests served (0 = not recorded)
  std::optional<double> restore_seconds;   // time to restore from a checkpoint
  // True when any outcome field is set (the stores write these fields only then).
  bool has_outcomes() const {
    return !family.empty() || !metrics.empty() || utilization || samples > 0 || requests > 0 || restore_seconds;
  }
};

struct BudgetPolicy {
  std::string currency = "USD";
  std::string period = "month";                     // week (ISO, Monday first), month or quarter: calendar periods
  std::optional<double> total;                      // cap for all spend in the period
  std::optional<double> per_experiment;             // cap on one experiment's whole spend: its ledger plus its estimate
  std::map<std::string, double> teams, users;       // caps per team / user in the period
  std::optional<double> spot_checkpoint_every_max;  // seconds: spot runs must checkpoint at least this often
  std::optional<double> approval_over_gpu_hours;    // runs above this need approved_by
  SourceLocation where;
  std::map<std::string, SourceLocation> lines;      // key -> where it is in budget.yaml
};

// Where an experiment is in its life. Only planned and running ones add an estimate; done and
// cancelled ones count only what the ledger holds for them.
enum class SpecStatus { planned, running, done, cancelled };
const char* to_string(SpecStatus s);
std::optional<SpecStatus> parse_spec_status(const std::string& s);

// One experiment as estimated (money in the policy currency).
struct ExperimentCheck {
  std::string name, owner, team, approved_by;
  SpecStatus status = SpecStatus::planned;
  SourceLocation where;                            // the spec file
  std::map<std::string, SourceLocation> lines;     // spec key -> location
  bool priced = false;
  std::string unpriced_reason;
  double cost = 0, gpu_hours = 0, wall_seconds = 0;
  std::string offer;                               // provider/offer it was priced on
  std::optional<double> max_cost, deadline_seconds;  // max_cost: a cap on one run
  bool spot = false;
  std::optional<double> checkpoint_interval_seconds;
};

// The gate's rules, in the order check lists them for a spec.
enum class BudgetRule { max_cost, deadline, spot_checkpoint, approval, per_experiment, status, priced, team, user, total };
const char* to_string(BudgetRule r);  // "max_cost", "per_experiment", ...: the name JSON and tables print

// One rule's verdict, as numbers and names: the renderer chooses the words (io/render/rule_text).
// Money is in the policy currency.
struct RuleResult {
  std::string experiment;   // "" for period-wide rules
  BudgetRule rule = BudgetRule::priced;
  bool pass = true;
  double value = 0, limit = 0;  // what the rule compares: cost, seconds, GPU-hours; limit 0 where there is none
  SourceLocation where;     // the line that causes a failure (spec key, or budget.yaml key)
  // What each rule's words are made of, beyond value and limit:
  //   max_cost: subject = the offer it is priced on; approval: subject = who approved ("" for none);
  //   team, user: subject = its name; priced: subject = why it cannot be priced (the pricer's words);
  //   per_experiment, status: spent = the ledger's spend under the name, added = what the spec adds;
  //   team, user, total: spent = the period's spend to as_of, added = the active specs' estimates.
  std::string subject;
  double spent = 0, added = 0;
  std::string period, as_of;             // team, user, total: the period's name and the date
  SpecStatus status = SpecStatus::planned;  // the spec's status (status: done or cancelled)
};

// One spec's cost on both sides of a change (`gpuplan diff OLD NEW`): whether it was added,
// removed or repriced, and by how much. A side without the spec counts 0.
enum class SpecChange { added, removed, same, changed };
struct CostChange {
  SpecChange change = SpecChange::same;
  double before = 0, after = 0;
  double delta() const { return after - before; }
};
CostChange cost_change(const ExperimentCheck* before, const ExperimentCheck* after);
// Every spec's costs summed, side by side (change is `same` or `changed` by the sums).
CostChange total_change(const std::vector<CostChange>& rows);

// The gate's verdict: it passes when every rule does (none failing; no rule at all passes).
// `check` exits 1 on a failing verdict.
bool gate_passes(const std::vector<RuleResult>& rules);

// "2026-12" for the calendar month of a YYYY-MM-DD date.
std::string period_of(const std::string& date);

// A calendar period: an ISO week (Monday to Sunday, named 2026-W49), a month (2026-12) or a
// quarter (2026-Q4), with its first and last dates (YYYY-MM-DD, so dates compare as strings).
struct Period {
  std::string kind, name, first, last;
  int days = 0;
};
// The period of `kind` ("week", "month" or "quarter") holding `date` (a calendar date).
Period period_containing(const std::string& date, const std::string& kind);
// The calendar date `days` days after `date`.
std::string add_days(const std::string& date, int days);

// What an experiment adds to the period's caps: a planned or running spec its estimate less
// what the ledger already holds under its name (never below 0, so a run is never counted twice);
// a done or cancelled spec nothing.
double added_estimate(const ExperimentCheck& e, double ledger_spend);

// Every rule for every experiment, plus the period-wide caps of the period (policy.period)
// holding `as_of`. `ledger` is the whole ledger; records dated after `as_of` are not counted.
std::vector<RuleResult> check_budget(const BudgetPolicy& policy, const std::vector<ExperimentCheck>& experiments,
                                     const std::vector<LedgerRecord>& ledger, const std::string& as_of);
// The same with each experiment's ledger spend to `as_of` already summed (by the store, so a large
// ledger is never all in memory); `ledger` then needs only the records of the period to as_of.
std::vector<RuleResult> check_budget(const BudgetPolicy& policy, const std::vector<ExperimentCheck>& experiments,
                                     const std::vector<LedgerRecord>& ledger, const std::map<std::string, double>& spent_by_experiment,
                                     const std::string& as_of);

// Spend from `first` to `last` inclusive (dates), for one team and/or user when those are
// non-empty: the one place `check` and `report` take "spent so far" from.
double spent_between(const std::vector<LedgerRecord>& ledger, const std::string& first, const std::string& last,
                     const std::string& team, const std::string& user);

// Spend per experiment name over the whole ledger up to `as_of` (inclusive).
std::map<std::string, double> experiment_spend(const std::vector<LedgerRecord>& ledger, const std::string& as_of);

// Spend summed by a key of the records ("period", "team", "user", "experiment", "provider").
std::map<std::string, double> sum_spend(const std::vector<LedgerRecord>& ledger, const std::string& by);
// Adds one record to sums keyed as sum_spend keys them (for a ledger read record by record).
void add_spend(std::map<std::string, double>& sums, const LedgerRecord& r, const std::string& by);

}  // namespace gpuplan
