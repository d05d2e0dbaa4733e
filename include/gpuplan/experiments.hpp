#pragma once
// Experiments as decisions: per experiment family, what each unit of validation quality cost,
// and a plain rule that says continue, change the method, or stop. The ledger's records carry
// the measured outcomes (RunMetric, utilization, samples, requests, restore time); this file
// turns them into a value the renderers put into words. Pure: callers convert every amount to
// one currency first.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/budget.hpp"

namespace gpuplan {

// The rule's thresholds, each a `gpuplan report` flag.
struct DecisionRule {
  // --stop-after-runs: stop when none of a family's last N measured runs is on its cost/quality
  // frontier. 3, because one or two runs off the frontier are what seed-to-seed noise and a
  // deliberate cheap probe look like; a third in a row is a pattern worth a decision.
  int stop_after_runs = 3;
  // --change-ratio: change the method when the last improvement cost more than this many times
  // as much per unit of quality gained as the improvement before it. 2, because run-to-run cost
  // and eval noise are each commonly 10-30%, so their ratio rarely moves 2x by chance; a
  // doubling is returns diminishing, not noise.
  double change_ratio = 2.0;
  // --min-utilization: a family whose median measured GPU utilization is below this is flagged.
  // 0.70, because a training loop whose input keeps up keeps the GPU busy above 90% of the
  // time; below 70% it waits on something for a third of the run, more than checkpoints and
  // logging explain.
  double min_utilization = 0.70;
};

// The family a record belongs to: its `family` field, else its experiment name up to the last
// '/' ("sft/lr-3e-4" is family "sft"), else the experiment name itself.
std::string family_of(const LedgerRecord& r);

// One measured run of one metric, oldest first.
struct MetricRun {
  std::string experiment, date, id;
  double cost = 0;
  double value = 0;
  bool on_frontier = false;  // no other run cost no more and did at least as well (one of them strictly)
  bool improved = false;     // beat every earlier run's value (the first run sets the baseline)
  std::optional<std::size_t> dominated_by;  // index of the cheapest run that cost no more and did at least as well
};

// A run that beat every earlier one: how much better, and what it took to get there.
struct Improvement {
  std::size_t run = 0;        // index into MetricSeries::runs
  double gain = 0;            // over the best earlier value, in the metric's units (always > 0)
  double cost = 0;            // spend on the runs since the previous best, this one included
  std::size_t runs = 0;       // those runs
  double cost_per_run() const { return runs ? cost / static_cast<double>(runs) : 0; }
  double cost_per_gain() const { return cost / gain; }
};

enum class Decision { continue_, change_method, stop };
const char* to_string(Decision d);  // "continue", "change_method", "stop"

// Why the rule decided as it did; the figures are in the series.
enum class DecisionBasis {
  baseline_only,      // continue: no run has improved on the first yet
  cheap_improvement,  // continue: the last improvement cost at most change_ratio x the one before (or was the first)
  flattened,          // change_method: the last improvement cost more than change_ratio x the one before per unit gained
  no_recent_frontier  // stop: none of the last stop_after_runs runs is on the frontier
};
const char* to_string(DecisionBasis b);  // the enum's name

struct MetricSeries {
  std::string metric;
  bool higher_is_better = false;
  std::vector<MetricRun> runs;              // every run of the family that measured this metric, oldest first
  std::vector<Improvement> improvements;    // oldest first
  std::vector<std::size_t> frontier;        // indices of the frontier runs, cheapest first
  std::vector<std::size_t> wasted;          // runs that cost more than another for no gain (dominated)
  double wasted_cost = 0;                   // their spend
  std::size_t runs_since_frontier = 0;      // runs after the last frontier run
  double cost_since_frontier = 0;           // their spend
  Decision decision = Decision::continue_;
  DecisionBasis basis = DecisionBasis::baseline_only;
  // change_method's measure: last improvement's cost per unit gained / the one before's.
  std::optional<double> cost_per_gain_ratio;
};

// Why the GPUs of a low-utilization family may be idle; the renderer words the advice.
enum class IdleCause {
  text_input,   // the family records tokens: tokenising and reading text on the fly
  image_input,  // it records samples/images but no tokens: decoding and augmenting images
  data_input,   // it records neither: the data loader in general
  micro_batch   // always: a micro-batch too small to fill the GPU (memory allows a larger one?)
};
const char* to_string(IdleCause c);

struct FamilyOutcome {
  std::string family;
  std::vector<std::string> experiments;      // names seen, in first-seen order
  std::size_t records = 0;                   // every ledger record of the family
  double spent = 0, gpu_hours = 0, tokens = 0, samples = 0, requests = 0;
  std::optional<double> cost_per_million_tokens, cost_per_million_samples, cost_per_thousand_requests;
  std::optional<double> utilization;         // median of the runs that measured it
  std::size_t utilization_runs = 0;
  bool utilization_low = false;              // utilization < rule.min_utilization
  std::vector<IdleCause> idle_causes;        // when utilization_low: what to look at, most likely first
  std::optional<double> restore_seconds_max; // the slowest checkpoint restore recorded
  std::vector<MetricSeries> metrics;         // the first metric the family recorded decides for it
};

// Families that recorded at least one outcome (a metric, utilization, samples, requests or a
// restore time), by name. `ledger` is every record up to the report's date, in ledger order;
// runs are ordered by date, ties in ledger order.
std::vector<FamilyOutcome> experiment_outcomes(const std::vector<LedgerRecord>& ledger, const DecisionRule& rule);

// The frontier, improvements and decision for one metric's runs (oldest first, value and cost
// set); the rest of MetricSeries is filled in. Exposed for unit tests.
void decide_series(MetricSeries& s, const DecisionRule& rule);

}  // namespace gpuplan
