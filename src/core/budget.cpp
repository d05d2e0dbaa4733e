#include "gpuplan/budget.hpp"

#include <cstdio>

namespace gpuplan {

namespace {

std::string money(double v, const std::string& currency) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f %s", v, currency.c_str());
  return buf;
}

SourceLocation line_of(const std::map<std::string, SourceLocation>& lines, const std::string& key, const SourceLocation& fallback) {
  const auto it = lines.find(key);
  return it == lines.end() ? fallback : it->second;
}

}  // namespace

std::string period_of(const std::string& date) { return date.size() >= 7 ? date.substr(0, 7) : date; }

double spent_in_period(const std::vector<LedgerRecord>& ledger, const std::string& period, const std::string& team,
                       const std::string& user) {
  double s = 0;
  for (const auto& r : ledger) {
    if (period_of(r.date) != period) continue;
    if (!team.empty() && r.team != team) continue;
    if (!user.empty() && r.user != user) continue;
    s += r.cost;
  }
  return s;
}

std::vector<RuleResult> check_budget(const BudgetPolicy& policy, const std::vector<ExperimentCheck>& experiments,
                                     const std::vector<LedgerRecord>& ledger, const std::string& period) {
  std::vector<RuleResult> out;
  const std::string& cur = policy.currency;
  auto add = [&](RuleResult r) { out.push_back(std::move(r)); };

  for (const auto& e : experiments) {
    if (!e.priced) {
      add({e.name, "priced", false, 0, 0, "cannot be priced: " + e.unpriced_reason, e.where});
      continue;
    }
    if (e.max_cost) {
      const bool ok = e.cost <= *e.max_cost;
      add({e.name, "max_cost", ok, e.cost, *e.max_cost,
           "estimated " + money(e.cost, cur) + " on " + e.offer + (ok ? " within" : " over") + " its max_cost " + money(*e.max_cost, cur),
           line_of(e.lines, "max_cost", e.where)});
    }
    if (policy.per_experiment) {
      const bool ok = e.cost <= *policy.per_experiment;
      add({e.name, "per_experiment", ok, e.cost, *policy.per_experiment,
           "estimated " + money(e.cost, cur) + (ok ? " within" : " over") + " the per-experiment cap " + money(*policy.per_experiment, cur),
           line_of(e.lines, "name", e.where)});
    }
    if (e.deadline_seconds) {
      const bool ok = e.wall_seconds <= *e.deadline_seconds;
      char buf[160];
      std::snprintf(buf, sizeof buf, "takes %.1f h, deadline %.1f h", e.wall_seconds / 3600, *e.deadline_seconds / 3600);
      add({e.name, "deadline", ok, e.wall_seconds, *e.deadline_seconds, buf, line_of(e.lines, "deadline", e.where)});
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
      add({e.name, "spot_checkpoint", ok, every, *policy.spot_checkpoint_every_max, buf,
           line_of(e.lines, "checkpoint_every", line_of(e.lines, "pricing", e.where))});
    }
    if (policy.approval_over_gpu_hours && e.gpu_hours > *policy.approval_over_gpu_hours) {
      const bool ok = !e.approved_by.empty();
      char buf[200];
      std::snprintf(buf, sizeof buf, "%.1f GPU-hours is over the %.0f that need approval; %s", e.gpu_hours, *policy.approval_over_gpu_hours,
                    ok ? ("approved by " + e.approved_by).c_str() : "no approved_by");
      add({e.name, "approval", ok, e.gpu_hours, *policy.approval_over_gpu_hours, buf, line_of(e.lines, "approved_by", e.where)});
    }
  }

  // Period-wide caps: spend so far plus every new estimate.
  auto cap_rule = [&](const std::string& rule, const std::string& who, double cap, const std::string& team, const std::string& user,
                      const SourceLocation& where) {
    double planned = 0;
    std::string first;
    SourceLocation first_where = where;
    for (const auto& e : experiments) {
      if (!e.priced) continue;
      if (!team.empty() && e.team != team) continue;
      if (!user.empty() && e.owner != user) continue;
      planned += e.cost;
      if (first.empty()) {
        first = e.name;
        first_where = e.where;
      }
    }
    const double so_far = spent_in_period(ledger, period, team, user);
    const double total = so_far + planned;
    const bool ok = total <= cap;
    add({"", rule, ok, total, cap,
         who + ": spent " + money(so_far, cur) + " in " + period + " + estimated " + money(planned, cur) + " = " + money(total, cur) +
             (ok ? " within " : " over ") + "the cap " + money(cap, cur) + (ok ? "; remaining " + money(cap - total, cur) : ""),
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
