#include "gpuplan/spend.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "gpuplan/catalog.hpp"  // days_between

namespace gpuplan {

namespace {

// The report's record sets (the period's, a team's, ...) point into the caller's ledger: copying
// each of a month's records into its period, team, user and experiment sets was a quarter of
// `report`'s time on a million-record ledger.
using RecordRefs = std::vector<const LedgerRecord*>;

bool within(const LedgerRecord& r, const Period& p, const std::string& as_of) {
  return r.date >= p.first && r.date.compare(0, 10, p.last) <= 0 && r.date.compare(0, 10, as_of) <= 0;
}

// The first date on which the running total of the period's records exceeds the cap.
std::string observed_crossing(const RecordRefs& records, const Period& period, const std::string& as_of, double cap) {
  std::map<std::string, double> by_day;
  for (const LedgerRecord* r : records)
    if (within(*r, period, as_of)) by_day[r->date] += r->cost;
  double running = 0;
  for (const auto& [day, cost] : by_day) {
    running += cost;
    if (running > cap) return day;
  }
  return "";
}

MonthBurn burn_of(const RecordRefs& records, const Period& period, const std::string& as_of, std::optional<double> cap) {
  MonthBurn b;
  b.period = period.name;
  b.days_in_month = period.days;
  b.days_elapsed = std::clamp(static_cast<int>(days_between(period.first, as_of).value_or(-1)) + 1, 0, period.days);
  b.cap = cap;
  for (const LedgerRecord* r : records)
    if (within(*r, period, as_of)) b.spent += r->cost;
  b.forecast = b.spent;
  if (b.days_elapsed <= 0 || b.days_in_month <= 0) return b;
  b.burn_per_day = b.spent / b.days_elapsed;
  b.forecast_needs_days = std::min(kMinForecastDays, (period.days + 1) / 2);
  b.last_day = period.last;
  if (b.days_elapsed >= b.forecast_needs_days) {
    b.forecast_made = true;
    b.forecast = b.spent + b.burn_per_day * (b.days_in_month - b.days_elapsed);
  }
  if (!cap) return b;
  b.crosses_on = observed_crossing(records, period, as_of, *cap);
  if (!b.crosses_on.empty() || b.burn_per_day <= 0 || !b.forecast_made) return b;
  // Projected running total at the end of day d is spent + burn * (d - elapsed); the first d
  // where that exceeds the cap.
  const double days = std::floor((*cap - b.spent) / b.burn_per_day) + 1;
  const double d = b.days_elapsed + days;
  if (d <= b.days_in_month) {
    b.crosses_on = add_days(period.first, static_cast<int>(d) - 1);
    b.crossing_forecast = true;
  }
  return b;
}

const char* kNone = "(none)";

std::string key_of(const LedgerRecord& r, const std::string& by) {
  const std::string& k = by == "team" ? r.team : by == "user" ? r.user : r.experiment;
  return k.empty() ? kNone : k;
}

// Every team, user or experiment seen in the period's records or named by a cap.
std::vector<SpendGroup> groups(const RecordRefs& period_records, const std::string& by,
                               const std::map<std::string, double>& caps, const Period& period, const std::string& as_of) {
  std::map<std::string, RecordRefs> members;
  for (const LedgerRecord* r : period_records) members[key_of(*r, by)].push_back(r);
  for (const auto& [name, cap] : caps) members[name];
  std::vector<SpendGroup> out;
  for (const auto& [name, recs] : members) {
    SpendGroup g;
    g.name = name;
    g.runs = recs.size();
    for (const LedgerRecord* r : recs) {
      g.gpu_hours += r->gpu_hours;
      g.tokens += r->tokens;
      g.samples += r->samples;
      g.requests += r->requests;
    }
    const auto cap = caps.find(name);
    g.burn = burn_of(recs, period, as_of, cap == caps.end() ? std::nullopt : std::optional<double>(cap->second));
    out.push_back(std::move(g));
  }
  return out;
}

void cap_alerts(const std::string& subject, const MonthBurn& b, std::vector<SpendAlert>& out) {
  if (!b.cap) return;
  if (b.spent > *b.cap) out.push_back({AlertKind::over_cap, subject, b});
  else if (b.forecast_made && b.forecast > *b.cap) out.push_back({AlertKind::forecast_over_cap, subject, b});
}

std::vector<Spender> largest(const SpendReport& r, std::size_t per_kind) {
  std::vector<Spender> out;
  auto take = [&](const char* kind, const std::vector<SpendGroup>& gs) {
    std::vector<Spender> v;
    for (const auto& g : gs)
      if (g.burn.spent > 0) v.push_back({kind, g.name, g.burn.spent, r.total.spent > 0 ? g.burn.spent / r.total.spent : 0});
    std::stable_sort(v.begin(), v.end(), [](const Spender& a, const Spender& b) { return a.spent > b.spent; });
    if (v.size() > per_kind) v.resize(per_kind);
    out.insert(out.end(), v.begin(), v.end());
  };
  take("team", r.teams);
  take("user", r.users);
  take("experiment", r.experiments);
  return out;
}

}  // namespace

const char* to_string(AlertKind k) {
  switch (k) {
    case AlertKind::over_cap:
    case AlertKind::over_life_cap: return "over_cap";
    case AlertKind::forecast_over_cap: return "forecast_over_cap";
    case AlertKind::run_over_max_cost: return "run_over_max_cost";
    case AlertKind::unpriced: return "unpriced";
    case AlertKind::spot_no_checkpoint: return "spot_no_checkpoint";
  }
  return "?";
}

int days_in_month(int year, int month) {
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month < 1 || month > 12) return 0;
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return kDays[month - 1] + (month == 2 && leap ? 1 : 0);
}

MonthBurn period_burn(const std::vector<LedgerRecord>& records, const Period& period, const std::string& as_of, std::optional<double> cap) {
  RecordRefs refs;
  refs.reserve(records.size());
  for (const LedgerRecord& r : records) refs.push_back(&r);
  return burn_of(refs, period, as_of, cap);
}

MonthBurn month_burn(const std::vector<LedgerRecord>& records, const std::string& as_of, std::optional<double> cap) {
  return period_burn(records, period_containing(as_of, "month"), as_of, cap);
}

std::optional<double> SpendGroup::cost_per_million_tokens() const {
  if (tokens <= 0) return std::nullopt;
  return burn.spent / (tokens / 1e6);
}

std::optional<double> SpendGroup::cost_per_million_samples() const {
  if (samples <= 0) return std::nullopt;
  return burn.spent / (samples / 1e6);
}

std::optional<double> SpendGroup::cost_per_thousand_requests() const {
  if (requests <= 0) return std::nullopt;
  return burn.spent / (requests / 1e3);
}

namespace {

// Caps on experiments, which are not period burn caps: a spec's max_cost caps each run (each
// record of the period), the policy's per_experiment caps the experiment's whole ledger. The
// latter alerts while the experiment still spends (has records in the period), not for ever.
void experiment_alerts(const BudgetPolicy& policy, const std::map<std::string, double>& experiment_spent, const RecordRefs& in_period,
                       const std::vector<ExperimentCheck>& planned, const std::string& as_of, std::vector<SpendAlert>& out) {
  for (const auto& e : planned) {
    if (!e.max_cost) continue;
    for (const LedgerRecord* rec : in_period)
      if (rec->experiment == e.name && rec->cost > *e.max_cost)
        out.push_back({AlertKind::run_over_max_cost, "experiment " + e.name, {}, rec->cost, *e.max_cost, rec->date});
  }
  if (!policy.per_experiment) return;
  std::map<std::string, bool> active;
  for (const LedgerRecord* rec : in_period) active[rec->experiment] = true;
  for (const auto& [name, spent] : experiment_spent) {
    if (!active.count(name) || spent <= *policy.per_experiment) continue;
    const std::string subject = "experiment " + (name.empty() ? std::string(kNone) : name);
    out.push_back({AlertKind::over_life_cap, subject, {}, spent, *policy.per_experiment, as_of});
  }
}

// Every experiment with spend in the period or a spec, with the estimate its spec was priced at.
std::vector<SpendGroup> experiment_groups(const RecordRefs& in_period, const std::vector<ExperimentCheck>& planned,
                                          const Period& period, const std::string& as_of) {
  std::vector<SpendGroup> out = groups(in_period, "experiment", {}, period, as_of);
  for (const auto& e : planned) {
    auto g = std::find_if(out.begin(), out.end(), [&](const SpendGroup& x) { return x.name == e.name; });
    if (g == out.end()) {
      out.push_back({});
      g = out.end() - 1;
      g->name = e.name;
      g->burn = burn_of({}, period, as_of, std::nullopt);
    }
    if (e.priced) g->planned = e.cost;
  }
  std::sort(out.begin(), out.end(), [](const SpendGroup& a, const SpendGroup& b) { return a.name < b.name; });
  return out;
}

}  // namespace

SpendReport build_spend_report(const BudgetPolicy& policy, const std::vector<LedgerRecord>& ledger,
                               const std::vector<std::pair<std::string, double>>& months,
                               const std::vector<ExperimentCheck>& planned, const std::string& as_of,
                               const DecisionRule& rule) {
  // The per-experiment cap counts an experiment's life: its spend to as_of, summed once.
  return build_spend_report(policy, ledger, experiment_spend(ledger, as_of), months, planned, as_of, rule);
}

SpendReport build_spend_report(const BudgetPolicy& policy, const std::vector<LedgerRecord>& ledger,
                               const std::map<std::string, double>& experiment_spent,
                               const std::vector<std::pair<std::string, double>>& months,
                               const std::vector<ExperimentCheck>& planned, const std::string& as_of, const DecisionRule& rule) {
  SpendReport r;
  r.rule = rule;
  const Period period = period_containing(as_of, policy.period);
  r.as_of = as_of;
  r.period = period.name;
  r.currency = policy.currency;
  r.months = months;
  RecordRefs in_period;
  for (const auto& rec : ledger)
    if (within(rec, period, as_of)) in_period.push_back(&rec);
  r.total = burn_of(in_period, period, as_of, policy.total);
  std::map<std::string, double> by_day;
  for (const LedgerRecord* rec : in_period) by_day[rec->date] += rec->cost;
  r.days.assign(by_day.begin(), by_day.end());
  r.teams = groups(in_period, "team", policy.teams, period, as_of);
  r.users = groups(in_period, "user", policy.users, period, as_of);
  r.experiments = experiment_groups(in_period, planned, period, as_of);
  cap_alerts("total", r.total, r.alerts);
  for (const auto& g : r.teams) cap_alerts("team " + g.name, g.burn, r.alerts);
  for (const auto& g : r.users) cap_alerts("user " + g.name, g.burn, r.alerts);
  experiment_alerts(policy, experiment_spent, in_period, planned, as_of, r.alerts);
  for (const auto& e : planned) {
    const bool active = e.status == SpecStatus::planned || e.status == SpecStatus::running;
    if (active && !e.priced) r.alerts.push_back({AlertKind::unpriced, e.name, {}, 0, 0, "", e.unpriced_reason});
    if (active && e.spot && !(e.checkpoint_interval_seconds.value_or(0) > 0)) r.alerts.push_back({AlertKind::spot_no_checkpoint, e.name});
  }
  r.largest = largest(r, 5);
  // A store hands over only records to as_of: then the ledger is its own copy to date.
  const auto after = [&](const LedgerRecord& rec) { return rec.date.compare(0, 10, as_of) > 0; };
  if (std::none_of(ledger.begin(), ledger.end(), after)) {
    r.families = experiment_outcomes(ledger, rule);
  } else {
    std::vector<LedgerRecord> to_date;
    for (const auto& rec : ledger)
      if (!after(rec)) to_date.push_back(rec);
    r.families = experiment_outcomes(to_date, rule);
  }
  return r;
}

}  // namespace gpuplan
