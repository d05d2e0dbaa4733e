#include "gpuplan/experiments.hpp"

#include <algorithm>
#include <map>
#include <numeric>

namespace gpuplan {

const char* to_string(Decision d) {
  switch (d) {
    case Decision::continue_: return "continue";
    case Decision::change_method: return "change_method";
    case Decision::stop: return "stop";
  }
  return "";
}

const char* to_string(DecisionBasis b) {
  switch (b) {
    case DecisionBasis::baseline_only: return "baseline_only";
    case DecisionBasis::cheap_improvement: return "cheap_improvement";
    case DecisionBasis::flattened: return "flattened";
    case DecisionBasis::no_recent_frontier: return "no_recent_frontier";
  }
  return "";
}

const char* to_string(IdleCause c) {
  switch (c) {
    case IdleCause::text_input: return "text_input";
    case IdleCause::image_input: return "image_input";
    case IdleCause::data_input: return "data_input";
    case IdleCause::micro_batch: return "micro_batch";
  }
  return "";
}

std::string family_of(const LedgerRecord& r) {
  if (!r.family.empty()) return r.family;
  const auto slash = r.experiment.rfind('/');
  return slash == std::string::npos || slash == 0 ? r.experiment : r.experiment.substr(0, slash);
}

namespace {

// "b is at least as good as a": quality oriented so that larger is better.
double score(const MetricSeries& s, double value) { return s.higher_is_better ? value : -value; }

// b dominates a: cost no more, quality no worse, and strictly better in one of them.
bool dominates(const MetricSeries& s, const MetricRun& b, const MetricRun& a) {
  const double qa = score(s, a.value), qb = score(s, b.value);
  return b.cost <= a.cost && qb >= qa && (b.cost < a.cost || qb > qa);
}

void mark_frontier(MetricSeries& s) {
  for (std::size_t i = 0; i < s.runs.size(); ++i) {
    MetricRun& a = s.runs[i];
    for (std::size_t j = 0; j < s.runs.size(); ++j) {
      if (j == i || !dominates(s, s.runs[j], a)) continue;
      // The cheapest dominating run (earliest on a tie) is the one to name.
      if (!a.dominated_by || s.runs[j].cost < s.runs[*a.dominated_by].cost) a.dominated_by = j;
    }
    a.on_frontier = !a.dominated_by;
    if (a.on_frontier) {
      s.frontier.push_back(i);
    } else {
      s.wasted.push_back(i);
      s.wasted_cost += a.cost;
    }
  }
  std::stable_sort(s.frontier.begin(), s.frontier.end(), [&](std::size_t x, std::size_t y) { return s.runs[x].cost < s.runs[y].cost; });
}

void find_improvements(MetricSeries& s) {
  if (s.runs.empty()) return;
  double best = score(s, s.runs[0].value), since_cost = 0;
  std::size_t since_runs = 0;
  for (std::size_t i = 1; i < s.runs.size(); ++i) {
    MetricRun& r = s.runs[i];
    since_cost += r.cost;
    ++since_runs;
    const double q = score(s, r.value);
    if (q <= best) continue;
    r.improved = true;
    s.improvements.push_back({i, q - best, since_cost, since_runs});
    best = q;
    since_cost = 0;
    since_runs = 0;
  }
}

}  // namespace

void decide_series(MetricSeries& s, const DecisionRule& rule) {
  s.frontier.clear();
  s.wasted.clear();
  s.improvements.clear();
  s.wasted_cost = 0;
  mark_frontier(s);
  find_improvements(s);
  std::size_t last_frontier = 0;
  for (std::size_t i = 0; i < s.runs.size(); ++i)
    if (s.runs[i].on_frontier) last_frontier = i;
  s.runs_since_frontier = s.runs.empty() ? 0 : s.runs.size() - 1 - last_frontier;
  s.cost_since_frontier = 0;
  for (std::size_t i = last_frontier + 1; i < s.runs.size(); ++i) s.cost_since_frontier += s.runs[i].cost;
  const std::size_t n = static_cast<std::size_t>(std::max(1, rule.stop_after_runs));
  s.cost_per_gain_ratio.reset();
  if (s.improvements.size() >= 2) {
    const Improvement& last = s.improvements.back();
    const Improvement& before = s.improvements[s.improvements.size() - 2];
    // A free improvement (cost 0) before a paid one is an infinite ratio: the method no longer pays.
    s.cost_per_gain_ratio = before.cost_per_gain() > 0 ? last.cost_per_gain() / before.cost_per_gain()
                            : last.cost_per_gain() > 0 ? std::optional<double>() : 1.0;
  }
  if (s.runs_since_frontier >= n) {
    s.decision = Decision::stop;
    s.basis = DecisionBasis::no_recent_frontier;
  } else if (s.improvements.size() >= 2 && (!s.cost_per_gain_ratio || *s.cost_per_gain_ratio > rule.change_ratio)) {
    s.decision = Decision::change_method;
    s.basis = DecisionBasis::flattened;
  } else {
    s.decision = Decision::continue_;
    s.basis = s.improvements.empty() ? DecisionBasis::baseline_only : DecisionBasis::cheap_improvement;
  }
}

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

FamilyOutcome summarise(const std::string& name, const std::vector<const LedgerRecord*>& recs, const DecisionRule& rule) {
  FamilyOutcome f;
  f.family = name;
  f.records = recs.size();
  std::vector<double> util;
  std::map<std::string, std::size_t> series_at;
  for (const LedgerRecord* r : recs) {
    if (std::find(f.experiments.begin(), f.experiments.end(), r->experiment) == f.experiments.end()) f.experiments.push_back(r->experiment);
    f.spent += r->cost;
    f.gpu_hours += r->gpu_hours;
    f.tokens += r->tokens;
    f.samples += r->samples;
    f.requests += r->requests;
    if (r->utilization) util.push_back(*r->utilization);
    if (r->restore_seconds) f.restore_seconds_max = std::max(f.restore_seconds_max.value_or(0), *r->restore_seconds);
    for (const RunMetric& m : r->metrics) {
      auto [it, fresh] = series_at.emplace(m.name, f.metrics.size());
      if (fresh) {
        f.metrics.emplace_back();
        f.metrics.back().metric = m.name;
        f.metrics.back().higher_is_better = m.higher_is_better;
      }
      MetricRun run;
      run.experiment = r->experiment;
      run.date = r->date;
      run.id = r->id;
      run.cost = r->cost;
      run.value = m.value;
      f.metrics[it->second].runs.push_back(std::move(run));
    }
  }
  if (f.tokens > 0) f.cost_per_million_tokens = f.spent / (f.tokens / 1e6);
  if (f.samples > 0) f.cost_per_million_samples = f.spent / (f.samples / 1e6);
  if (f.requests > 0) f.cost_per_thousand_requests = f.spent / (f.requests / 1e3);
  f.utilization_runs = util.size();
  if (!util.empty()) f.utilization = median(util);
  f.utilization_low = f.utilization && *f.utilization < rule.min_utilization;
  if (f.utilization_low) {
    f.idle_causes.push_back(f.tokens > 0 ? IdleCause::text_input : f.samples > 0 ? IdleCause::image_input : IdleCause::data_input);
    f.idle_causes.push_back(IdleCause::micro_batch);
  }
  for (MetricSeries& s : f.metrics) decide_series(s, rule);
  return f;
}

}  // namespace

std::vector<FamilyOutcome> experiment_outcomes(const std::vector<LedgerRecord>& ledger, const DecisionRule& rule) {
  std::vector<std::size_t> order(ledger.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return ledger[a].date < ledger[b].date; });
  std::map<std::string, std::vector<const LedgerRecord*>> members;
  std::map<std::string, bool> measured;
  for (std::size_t i : order) {
    const LedgerRecord& r = ledger[i];
    const std::string fam = family_of(r);
    members[fam].push_back(&r);
    if (r.has_outcomes()) measured[fam] = true;
  }
  std::vector<FamilyOutcome> out;
  for (const auto& [name, recs] : members)
    if (measured.count(name)) out.push_back(summarise(name, recs, rule));
  return out;
}

}  // namespace gpuplan
