#include "gpuplan/budget.hpp"

#include <algorithm>
#include <cstdio>
#include <iterator>

#include "gpuplan/budget_lines.hpp"

namespace gpuplan {

namespace {

// `key` must be one rules_cite_key() lists: callers keep only those keys' lines.
SourceLocation line_of(const std::map<std::string, SourceLocation>& lines, const std::string& key, const SourceLocation& fallback) {
  const auto it = lines.find(key);
  return it == lines.end() ? fallback : it->second;
}

}  // namespace

const char* to_string(BudgetRule r) {
  switch (r) {
    case BudgetRule::max_cost: return "max_cost";
    case BudgetRule::deadline: return "deadline";
    case BudgetRule::spot_checkpoint: return "spot_checkpoint";
    case BudgetRule::approval: return "approval";
    case BudgetRule::per_experiment: return "per_experiment";
    case BudgetRule::status: return "status";
    case BudgetRule::priced: return "priced";
    case BudgetRule::team: return "team";
    case BudgetRule::user: return "user";
    case BudgetRule::total: return "total";
  }
  return "?";
}

bool rules_cite_key(std::string_view key) {
  // Every spec key passed to line_of below.
  constexpr std::string_view kCited[] = {"name", "status", "max_cost", "deadline", "checkpoint_every", "pricing", "approved_by"};
  return std::find(std::begin(kCited), std::end(kCited), key) != std::end(kCited);
}

namespace {

struct Ymd {
  int y = 0, m = 0, d = 0;
};

Ymd ymd_of(const std::string& date) {
  auto field = [&](std::size_t at, std::size_t len) {
    int v = 0;
    for (std::size_t i = at; i < at + len && i < date.size(); ++i) v = v * 10 + (date[i] - '0');
    return v;
  };
  return {field(0, 4), field(5, 2), field(8, 2)};
}

// Days since 1970-01-01 in the proleptic Gregorian calendar (the era-based civil-date formula).
long days_from_civil(Ymd c) {
  const int y = c.y - (c.m <= 2 ? 1 : 0);
  const long era = (y >= 0 ? y : y - 399) / 400;
  const long yoe = y - era * 400;
  const long doy = (153 * (c.m + (c.m > 2 ? -3 : 9)) + 2) / 5 + c.d - 1;
  const long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

Ymd civil_from_days(long z) {
  z += 719468;
  const long era = (z >= 0 ? z : z - 146096) / 146097;
  const long doe = z - era * 146097;
  const long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const long mp = (5 * doy + 2) / 153;
  const int d = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  const int m = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  return {static_cast<int>(yoe + era * 400 + (m <= 2 ? 1 : 0)), m, d};
}

std::string date_text(Ymd c) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02d", c.y, c.m, c.d);
  return buf;
}

int month_days(int y, int m) {
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m < 1 || m > 12 ? 0 : kDays[m - 1] + (m == 2 && leap ? 1 : 0);
}

}  // namespace

CostChange cost_change(const ExperimentCheck* before, const ExperimentCheck* after) {
  CostChange c;
  c.before = before ? before->cost : 0;
  c.after = after ? after->cost : 0;
  c.change = !before ? SpecChange::added : !after ? SpecChange::removed : c.before == c.after ? SpecChange::same : SpecChange::changed;
  return c;
}

CostChange total_change(const std::vector<CostChange>& rows) {
  CostChange t;
  for (const CostChange& r : rows) {  // in row order, so the sums match the rows as listed
    t.before += r.before;
    t.after += r.after;
  }
  t.change = t.before == t.after ? SpecChange::same : SpecChange::changed;
  return t;
}

bool gate_passes(const std::vector<RuleResult>& rules) {
  return std::all_of(rules.begin(), rules.end(), [](const RuleResult& r) { return r.pass; });
}

std::string period_of(const std::string& date) { return date.size() >= 7 ? date.substr(0, 7) : date; }

std::string add_days(const std::string& date, int days) { return date_text(civil_from_days(days_from_civil(ymd_of(date)) + days)); }

Period period_containing(const std::string& date, const std::string& kind) {
  const Ymd c = ymd_of(date);
  Period p;
  p.kind = kind;
  char name[48];
  if (kind == "week") {
    const long z = days_from_civil(c);
    const long monday = z - ((z + 3) % 7 + 7) % 7;  // 1970-01-01 was a Thursday
    const Ymd thursday = civil_from_days(monday + 3);  // an ISO week belongs to its Thursday's year
    const int week = static_cast<int>((monday + 3 - days_from_civil({thursday.y, 1, 1})) / 7 + 1);
    std::snprintf(name, sizeof name, "%04d-W%02d", thursday.y, week);
    p.first = date_text(civil_from_days(monday));
    p.last = date_text(civil_from_days(monday + 6));
  } else if (kind == "quarter") {
    const int q = (c.m - 1) / 3;
    std::snprintf(name, sizeof name, "%04d-Q%d", c.y, q + 1);
    p.first = date_text({c.y, 3 * q + 1, 1});
    p.last = date_text({c.y, 3 * q + 3, month_days(c.y, 3 * q + 3)});
  } else {
    std::snprintf(name, sizeof name, "%04d-%02d", c.y, c.m);
    p.first = date_text({c.y, c.m, 1});
    p.last = date_text({c.y, c.m, month_days(c.y, c.m)});
  }
  p.name = name;
  p.days = static_cast<int>(days_from_civil(ymd_of(p.last)) - days_from_civil(ymd_of(p.first))) + 1;
  return p;
}

const char* to_string(SpecStatus s) {
  switch (s) {
    case SpecStatus::planned: return "planned";
    case SpecStatus::running: return "running";
    case SpecStatus::done: return "done";
    case SpecStatus::cancelled: return "cancelled";
  }
  return "planned";
}

std::optional<SpecStatus> parse_spec_status(const std::string& s) {
  for (SpecStatus v : {SpecStatus::planned, SpecStatus::running, SpecStatus::done, SpecStatus::cancelled})
    if (s == to_string(v)) return v;
  return std::nullopt;
}

double added_estimate(const ExperimentCheck& e, double ledger_spend) {
  if (!e.priced || (e.status != SpecStatus::planned && e.status != SpecStatus::running)) return 0;
  return std::max(0.0, e.cost - ledger_spend);
}

double spent_between(const std::vector<LedgerRecord>& ledger, const std::string& first, const std::string& last,
                     const std::string& team, const std::string& user) {
  double s = 0;
  for (const auto& r : ledger) {
    if (r.date < first || r.date.compare(0, 10, last) > 0) continue;
    if (!team.empty() && r.team != team) continue;
    if (!user.empty() && r.user != user) continue;
    s += r.cost;
  }
  return s;
}

std::map<std::string, double> experiment_spend(const std::vector<LedgerRecord>& ledger, const std::string& as_of) {
  std::map<std::string, double> out;
  for (const auto& r : ledger)
    if (r.date.compare(0, 10, as_of) <= 0) out[r.experiment] += r.cost;
  return out;
}

namespace {

// The rules of one planned or running run: its own cap, deadline, spot checkpoints, approval.
void run_rules(const BudgetPolicy& policy, const ExperimentCheck& e, std::vector<RuleResult>& out) {
  auto rule = [&](BudgetRule name, bool ok, double value, double limit, const SourceLocation& where) -> RuleResult& {
    RuleResult& r = out.emplace_back();
    r.experiment = e.name;
    r.rule = name;
    r.pass = ok;
    r.value = value;
    r.limit = limit;
    r.where = where;
    r.status = e.status;
    return r;
  };
  if (e.max_cost) rule(BudgetRule::max_cost, e.cost <= *e.max_cost, e.cost, *e.max_cost, line_of(e.lines, "max_cost", e.where)).subject = e.offer;
  if (e.deadline_seconds)
    rule(BudgetRule::deadline, e.wall_seconds <= *e.deadline_seconds, e.wall_seconds, *e.deadline_seconds, line_of(e.lines, "deadline", e.where));
  if (e.spot && policy.spot_checkpoint_every_max) {
    const double every = e.checkpoint_interval_seconds.value_or(0);
    rule(BudgetRule::spot_checkpoint, every > 0 && every <= *policy.spot_checkpoint_every_max, every, *policy.spot_checkpoint_every_max,
         line_of(e.lines, "checkpoint_every", line_of(e.lines, "pricing", e.where)));
  }
  if (policy.approval_over_gpu_hours && e.gpu_hours > *policy.approval_over_gpu_hours)
    rule(BudgetRule::approval, !e.approved_by.empty(), e.gpu_hours, *policy.approval_over_gpu_hours, line_of(e.lines, "approved_by", e.where))
        .subject = e.approved_by;
}

// The per-experiment cap over the experiment's whole life: what the ledger holds plus what it adds.
void experiment_cap_rule(const BudgetPolicy& policy, const ExperimentCheck& e, double in_ledger, std::vector<RuleResult>& out) {
  if (!policy.per_experiment) return;
  const double added = added_estimate(e, in_ledger), total = in_ledger + added;
  RuleResult& r = out.emplace_back();
  r.experiment = e.name;
  r.rule = BudgetRule::per_experiment;
  r.pass = total <= *policy.per_experiment;
  r.value = total;
  r.limit = *policy.per_experiment;
  r.where = line_of(e.lines, "name", e.where);
  r.spent = in_ledger;
  r.added = added;
  r.status = e.status;
}

// A done or cancelled spec: not estimated again; the ledger's spend under its name is the value.
void status_rule(const ExperimentCheck& e, double in_ledger, std::vector<RuleResult>& out) {
  RuleResult& r = out.emplace_back();
  r.experiment = e.name;
  r.rule = BudgetRule::status;
  r.value = r.spent = in_ledger;
  r.where = line_of(e.lines, "status", e.where);
  r.status = e.status;
}

}  // namespace

std::vector<RuleResult> check_budget(const BudgetPolicy& policy, const std::vector<ExperimentCheck>& experiments,
                                     const std::vector<LedgerRecord>& ledger, const std::string& as_of) {
  return check_budget(policy, experiments, ledger, experiment_spend(ledger, as_of), as_of);
}

std::vector<RuleResult> check_budget(const BudgetPolicy& policy, const std::vector<ExperimentCheck>& experiments,
                                     const std::vector<LedgerRecord>& ledger, const std::map<std::string, double>& spent_by_experiment,
                                     const std::string& as_of) {
  std::vector<RuleResult> out;
  const Period period = period_containing(as_of, policy.period);
  auto ledger_of = [&](const ExperimentCheck& e) {
    const auto it = spent_by_experiment.find(e.name);
    return it == spent_by_experiment.end() ? 0.0 : it->second;
  };
  for (const auto& e : experiments) {
    const bool active = e.status == SpecStatus::planned || e.status == SpecStatus::running;
    if (!active) {
      status_rule(e, ledger_of(e), out);
      experiment_cap_rule(policy, e, ledger_of(e), out);
      continue;
    }
    if (!e.priced) {
      RuleResult& r = out.emplace_back();
      r.experiment = e.name;
      r.rule = BudgetRule::priced;
      r.pass = false;
      r.where = e.where;
      r.subject = e.unpriced_reason;
      r.status = e.status;
      continue;
    }
    run_rules(policy, e, out);
    experiment_cap_rule(policy, e, ledger_of(e), out);
  }

  // Period-wide caps: spend so far in the period (to as_of) plus what each active spec adds.
  auto cap_rule = [&](BudgetRule rule, const std::string& subject, double cap, const std::string& team, const std::string& user,
                      const SourceLocation& where) {
    double planned = 0;
    SourceLocation first_where = where;
    bool first = true;
    for (const auto& e : experiments) {
      if (!team.empty() && e.team != team) continue;
      if (!user.empty() && e.owner != user) continue;
      const double added = added_estimate(e, ledger_of(e));
      if (added <= 0) continue;
      planned += added;
      if (first) first_where = e.where;
      first = false;
    }
    RuleResult& r = out.emplace_back();
    r.rule = rule;
    r.subject = subject;
    r.spent = spent_between(ledger, period.first, as_of, team, user);
    r.added = planned;
    r.value = r.spent + planned;
    r.limit = cap;
    r.pass = r.value <= cap;
    r.where = r.pass ? where : first_where;
    r.period = period.name;
    r.as_of = as_of;
  };
  for (const auto& [team, cap] : policy.teams) cap_rule(BudgetRule::team, team, cap, team, "", line_of(policy.lines, "teams." + team, policy.where));
  for (const auto& [user, cap] : policy.users) cap_rule(BudgetRule::user, user, cap, "", user, line_of(policy.lines, "users." + user, policy.where));
  if (policy.total) cap_rule(BudgetRule::total, "", *policy.total, "", "", line_of(policy.lines, "total", policy.where));
  return out;
}

void add_spend(std::map<std::string, double>& sums, const LedgerRecord& r, const std::string& by) {
  static const std::string kNone = "(none)";
  std::string period;
  const std::string* key = &r.experiment;
  if (by == "period") key = &(period = period_of(r.date));
  else if (by == "team") key = &r.team;
  else if (by == "user") key = &r.user;
  else if (by == "provider") key = &r.provider;
  sums[key->empty() ? kNone : *key] += r.cost;
}

std::map<std::string, double> sum_spend(const std::vector<LedgerRecord>& ledger, const std::string& by) {
  std::map<std::string, double> sums;
  for (const auto& r : ledger) add_spend(sums, r, by);
  return sums;
}

}  // namespace gpuplan
