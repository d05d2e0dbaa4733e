#include "gpuplan/spend.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

namespace gpuplan {

namespace {

std::string money(double v, const std::string& currency) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f %s", v, currency.c_str());
  return buf;
}

int field(const std::string& date, std::size_t at, std::size_t len) {
  int v = 0;
  for (std::size_t i = at; i < at + len && i < date.size(); ++i) v = v * 10 + (date[i] - '0');
  return v;
}

// The first date on which the running total of the period's records exceeds the cap.
std::string observed_crossing(const std::vector<LedgerRecord>& records, const std::string& period, double cap) {
  std::map<std::string, double> by_day;
  for (const auto& r : records)
    if (period_of(r.date) == period) by_day[r.date] += r.cost;
  double running = 0;
  for (const auto& [day, cost] : by_day) {
    running += cost;
    if (running > cap) return day;
  }
  return "";
}

const char* kNone = "(none)";

std::string key_of(const LedgerRecord& r, const std::string& by) {
  const std::string& k = by == "team" ? r.team : by == "user" ? r.user : r.experiment;
  return k.empty() ? kNone : k;
}

// Every team, user or experiment seen in the period's records or named by a cap.
std::vector<SpendGroup> groups(const std::vector<LedgerRecord>& period_records, const std::string& by,
                               const std::map<std::string, double>& caps, const std::string& as_of) {
  std::map<std::string, std::vector<LedgerRecord>> members;
  for (const auto& r : period_records) members[key_of(r, by)].push_back(r);
  for (const auto& [name, cap] : caps) members[name];
  std::vector<SpendGroup> out;
  for (const auto& [name, recs] : members) {
    SpendGroup g;
    g.name = name;
    g.runs = recs.size();
    for (const auto& r : recs) {
      g.gpu_hours += r.gpu_hours;
      g.tokens += r.tokens;
    }
    const auto cap = caps.find(name);
    g.burn = month_burn(recs, as_of, cap == caps.end() ? std::nullopt : std::optional<double>(cap->second));
    out.push_back(std::move(g));
  }
  return out;
}

void cap_alerts(const std::string& subject, const MonthBurn& b, const std::string& cur, std::vector<SpendAlert>& out) {
  if (!b.cap) return;
  if (b.spent > *b.cap) {
    out.push_back({"over_cap", subject,
                   subject + ": spent " + money(b.spent, cur) + " in " + b.period + ", over the cap " + money(*b.cap, cur) +
                       (b.crosses_on.empty() ? "" : " since " + b.crosses_on)});
  } else if (b.forecast > *b.cap) {
    out.push_back({"forecast_over_cap", subject,
                   subject + ": at " + money(b.burn_per_day, cur) + "/day the month ends at " + money(b.forecast, cur) +
                       ", over the cap " + money(*b.cap, cur) + (b.crosses_on.empty() ? "" : "; crossed on " + b.crosses_on)});
  }
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

int days_in_month(int year, int month) {
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month < 1 || month > 12) return 0;
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return kDays[month - 1] + (month == 2 && leap ? 1 : 0);
}

MonthBurn month_burn(const std::vector<LedgerRecord>& records, const std::string& as_of, std::optional<double> cap) {
  MonthBurn b;
  b.period = period_of(as_of);
  b.days_in_month = days_in_month(field(as_of, 0, 4), field(as_of, 5, 2));
  b.days_elapsed = field(as_of, 8, 2);
  b.cap = cap;
  for (const auto& r : records)
    if (period_of(r.date) == b.period) b.spent += r.cost;
  if (b.days_elapsed <= 0 || b.days_in_month <= 0) return b;
  b.burn_per_day = b.spent / b.days_elapsed;
  b.forecast = b.spent + b.burn_per_day * (b.days_in_month - b.days_elapsed);
  if (!cap) return b;
  b.crosses_on = observed_crossing(records, b.period, *cap);
  if (!b.crosses_on.empty() || b.burn_per_day <= 0) return b;
  // Projected running total at the end of day d is spent + burn * (d - elapsed); the first d
  // where that exceeds the cap.
  const double days = std::floor((*cap - b.spent) / b.burn_per_day) + 1;
  const double d = b.days_elapsed + days;
  if (d <= b.days_in_month) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%s-%02d", b.period.c_str(), static_cast<int>(d));
    b.crosses_on = buf;
    b.crossing_forecast = true;
  }
  return b;
}

std::optional<double> SpendGroup::cost_per_million_tokens() const {
  if (tokens <= 0) return std::nullopt;
  return burn.spent / (tokens / 1e6);
}

SpendReport build_spend_report(const BudgetPolicy& policy, const std::vector<LedgerRecord>& ledger,
                               const std::vector<std::pair<std::string, double>>& months,
                               const std::vector<ExperimentCheck>& planned, const std::string& as_of) {
  SpendReport r;
  r.as_of = as_of;
  r.period = period_of(as_of);
  r.currency = policy.currency;
  r.months = months;
  std::vector<LedgerRecord> in_period;
  for (const auto& rec : ledger)
    if (period_of(rec.date) == r.period) in_period.push_back(rec);
  r.total = month_burn(in_period, as_of, policy.total);
  std::map<std::string, double> by_day;
  for (const auto& rec : in_period) by_day[rec.date] += rec.cost;
  r.days.assign(by_day.begin(), by_day.end());
  r.teams = groups(in_period, "team", policy.teams, as_of);
  r.users = groups(in_period, "user", policy.users, as_of);
  std::map<std::string, double> experiment_caps;
  for (const auto& e : planned) {
    const auto cap = e.max_cost ? e.max_cost : policy.per_experiment;
    if (cap) experiment_caps[e.name] = *cap;
  }
  r.experiments = groups(in_period, "experiment", experiment_caps, as_of);
  for (const auto& e : planned) {
    auto g = std::find_if(r.experiments.begin(), r.experiments.end(), [&](const SpendGroup& x) { return x.name == e.name; });
    if (g == r.experiments.end()) {
      r.experiments.push_back({});
      g = r.experiments.end() - 1;
      g->name = e.name;
      g->burn = month_burn({}, as_of, std::nullopt);
    }
    if (e.priced) g->planned = e.cost;
  }
  std::sort(r.experiments.begin(), r.experiments.end(), [](const SpendGroup& a, const SpendGroup& b) { return a.name < b.name; });
  cap_alerts("total", r.total, r.currency, r.alerts);
  for (const auto& g : r.teams) cap_alerts("team " + g.name, g.burn, r.currency, r.alerts);
  for (const auto& g : r.users) cap_alerts("user " + g.name, g.burn, r.currency, r.alerts);
  for (const auto& g : r.experiments) cap_alerts("experiment " + g.name, g.burn, r.currency, r.alerts);
  for (const auto& e : planned) {
    if (!e.priced) r.alerts.push_back({"unpriced", e.name, e.name + ": cannot be priced: " + e.unpriced_reason});
    if (e.spot && !(e.checkpoint_interval_seconds.value_or(0) > 0))
      r.alerts.push_back({"spot_no_checkpoint", e.name, e.name + ": runs on spot instances and sets no checkpoint interval; a preemption loses the run"});
  }
  r.largest = largest(r, 5);
  return r;
}

}  // namespace gpuplan
