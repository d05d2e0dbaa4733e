#include "gpuplan/budget.hpp"

#include <algorithm>
#include <cstdio>
#include <iterator>

#include "gpuplan/budget_lines.hpp"

namespace gpuplan {

namespace {

std::string money(double v, const std::string& currency) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f %s", v, currency.c_str());
  return buf;
}

// `key` must be one rules_cite_key() lists: callers keep only those keys' lines.
SourceLocation line_of(const std::map<std::string, SourceLocation>& lines, const std::string& key, const SourceLocation& fallback) {
  const auto it = lines.find(key);
  return it == lines.end() ? fallback : it->second;
}

}  // namespace

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
  const std::string& cur = policy.currency;
  if (e.max_cost) {
    const bool ok = e.cost <= *e.max_cost;
    out.push_back({e.name, "max_cost", ok, e.cost, *e.max_cost,
                   "estimated " + money(e.cost, cur) + " on " + e.offer + (ok ? " within" : " over") + " its per-run max_cost " +
                       money(*e.max_cost, cur),
                   line_of(e.lines, "max_cost", e.where)});
  }
  if (e.deadline_seconds) {
    const bool ok = e.wall_seconds <= *e.deadline_seconds;
    char buf[160];
    std::snprintf(buf, sizeof buf, "takes %.1f h, deadline %.1f h", e.wall_seconds / 3600, *e.deadline_seconds / 3600);
    out.push_back({e.name, "deadline", ok, e.wall_seconds, *e.deadline_seconds, buf, line_of(e.lines, "deadline", e.where)});
  }
  if (e.spot && policy.spot_checkpoint_every_max) {
    const double every = e.checkpoint_interval_seconds.value_or(0);
    const bool ok = every > 0 && every <= *policy.spot_checkpoint_every_max;
    char buf[200];
    if (every > 0)
      std::snprintf(buf, sizeof buf, "spot run checkpoints every %.0f min; policy requires at most %.0f min", every / 60,
                    *policy.spot_checkpoint_every_max / 60);
    else
      std::snprintf(buf, sizeof buf, "spot run sets no checkpoint interval; policy requires at most %.0f min",
                    *policy.spot_checkpoint_every_max / 60);
    out.push_back({e.name, "spot_checkpoint", ok, every, *policy.spot_checkpoint_every_max, buf,
                   line_of(e.lines, "checkpoint_every", line_of(e.lines, "pricing", e.where))});
  }
  if (policy.approval_over_gpu_hours && e.gpu_hours > *policy.approval_over_gpu_hours) {
    const bool ok = !e.approved_by.empty();
    char buf[200];
    std::snprintf(buf, sizeof buf, "%.1f GPU-hours is over the %.0f that need approval; %s", e.gpu_hours, *policy.approval_over_gpu_hours,
                  ok ? ("approved by " + e.approved_by).c_str() : "no approved_by");
    out.push_back({e.name, "approval", ok, e.gpu_hours, *policy.approval_over_gpu_hours, buf, line_of(e.lines, "approved_by", e.where)});
  }
}

// The per-experiment cap over the experiment's whole life: what the ledger holds plus what it adds.
void experiment_cap_rule(const BudgetPolicy& policy, const ExperimentCheck& e, double in_ledger, std::vector<RuleResult>& out) {
  if (!policy.per_experiment) return;
  const std::string& cur = policy.currency;
  const double added = added_estimate(e, in_ledger), total = in_ledger + added;
  const bool ok = total <= *policy.per_experiment;
  out.push_back({e.name, "per_experiment", ok, total, *policy.per_experiment,
                 "ledger " + money(in_ledger, cur) + " + estimated " + money(added, cur) + " = " + money(total, cur) +
                     (ok ? " within" : " over") + " the per-experiment cap " + money(*policy.per_experiment, cur),
                 line_of(e.lines, "name", e.where)});
}

// A done or cancelled spec: not estimated again; says what the ledger holds under its name.
void status_rule(const BudgetPolicy& policy, const ExperimentCheck& e, double in_ledger, std::vector<RuleResult>& out) {
  std::string message = std::string(to_string(e.status)) + ": not estimated again; ";
  message += in_ledger > 0 ? "the ledger holds " + money(in_ledger, policy.currency) + " under its name"
                           : "the ledger holds no record under its name";
  out.push_back({e.name, "status", true, in_ledger, 0, message, line_of(e.lines, "status", e.where)});
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
  const std::string& cur = policy.currency;
  const Period period = period_containing(as_of, policy.period);
  auto ledger_of = [&](const ExperimentCheck& e) {
    const auto it = spent_by_experiment.find(e.name);
    return it == spent_by_experiment.end() ? 0.0 : it->second;
  };
  for (const auto& e : experiments) {
    const bool active = e.status == SpecStatus::planned || e.status == SpecStatus::running;
    if (!active) {
      status_rule(policy, e, ledger_of(e), out);
      experiment_cap_rule(policy, e, ledger_of(e), out);
      continue;
    }
    if (!e.priced) {
      out.push_back({e.name, "priced", false, 0, 0, "cannot be priced: " + e.unpriced_reason, e.where});
      continue;
    }
    run_rules(policy, e, out);
    experiment_cap_rule(policy, e, ledger_of(e), out);
  }

  // Period-wide caps: spend so far in the period (to as_of) plus what each active spec adds.
  auto cap_rule = [&](const std::string& rule, const std::string& who, double cap, const std::string& team, const std::string& user,
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
    const double so_far = spent_between(ledger, period.first, as_of, team, user);
    const double total = so_far + planned;
    const bool ok = total <= cap;
    out.push_back({"", rule, ok, total, cap,
                   who + ": spent " + money(so_far, cur) + " in " + period.name + " to " + as_of + " + estimated " + money(planned, cur) +
                       " = " + money(total, cur) + (ok ? " within " : " over ") + "the cap " + money(cap, cur) +
                       (ok ? "; remaining " + money(cap - total, cur) : ""),
                   ok ? where : first_where});
  };
  for (const auto& [team, cap] : policy.teams) cap_rule("team", "team " + team, cap, team, "", line_of(policy.lines, "teams." + team, policy.where));
  for (const auto& [user, cap] : policy.users) cap_rule("user", "user " + user, cap, "", user, line_of(policy.lines, "users." + user, policy.where));
  if (policy.total) cap_rule("total", "total", *policy.total, "", "", line_of(policy.lines, "total", policy.where));
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
