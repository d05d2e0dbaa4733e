#include "cli/outcome_flags.hpp"

#include <cerrno>
#include <cstdlib>

#include "cli/common.hpp"
#include "gpuplan/units.hpp"

namespace gpuplan::cli {

namespace {

// "eval_loss=1.82:lower": the direction is required, as no metric's better side is guessed.
RunMetric parse_metric(const std::string& text) {
  const auto eq = text.find('=');
  const auto colon = text.rfind(':');
  if (eq == std::string::npos || eq == 0 || colon == std::string::npos || colon < eq)
    bad_flag("--metric", "expected NAME=VALUE:lower or NAME=VALUE:higher, e.g. eval_loss=1.82:lower, got \"" + text + "\"");
  const std::string direction = text.substr(colon + 1), value = text.substr(eq + 1, colon - eq - 1);
  if (direction != "lower" && direction != "higher")
    bad_flag("--metric", "say which way is better after the value: \":lower\" or \":higher\", got \"" + direction + "\"");
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(value.c_str(), &end);
  if (value.empty() || end != value.c_str() + value.size() || errno == ERANGE)
    bad_flag("--metric", "expected a number for " + text.substr(0, eq) + ", got \"" + value + "\"");
  return {text.substr(0, eq), v, direction == "higher"};
}

double count_flag(const std::string& flag, const std::string& text) {
  if (text.empty()) return 0;
  const auto v = parse_count(text);
  if (!v || !(*v.value > 0)) bad_flag(flag, v ? "must be positive" : v.error);
  return *v.value;
}

}  // namespace

void add_outcome_options(CLI::App& cmd, OutcomeFlags& f) {
  cmd.add_option("--metric", f.metrics, "A validation metric and which way is better, e.g. eval_loss=1.82:lower or accuracy=0.71:higher (repeatable)");
  cmd.add_option("--utilization", f.utilization, "Measured GPU utilization over the run, e.g. 63% (nvidia-smi's average)");
  cmd.add_option("--utilisation", f.utilization, "Other spelling of --utilization")->group("");  // hidden alias
  cmd.add_option("--samples", f.samples, "Samples or images the run processed, e.g. 1.2M (for cost per million samples)");
  cmd.add_option("--requests", f.requests, "Inference requests served, e.g. 250k (for cost per 1,000 requests)");
  cmd.add_option("--restore-time", f.restore_time, "Time to restore the run from its checkpoint, e.g. 95s or 4m");
  cmd.add_option("--family", f.family, "Experiment family (default: the experiment name up to its last '/')");
}

void apply_outcome_flags(const OutcomeFlags& f, LedgerRecord& r) {
  for (const auto& m : f.metrics) r.metrics.push_back(parse_metric(m));
  if (!f.utilization.empty()) {
    const auto u = parse_fraction(f.utilization);
    if (!u || *u.value < 0 || *u.value > 1) bad_flag("--utilization", u ? "expected 0% to 100%" : u.error);
    r.utilization = *u.value;
  }
  r.samples = count_flag("--samples", f.samples);
  r.requests = count_flag("--requests", f.requests);
  if (!f.restore_time.empty()) {
    const auto s = parse_seconds(f.restore_time);
    if (!s || *s.value < 0) bad_flag("--restore-time", s ? "must not be negative" : s.error);
    r.restore_seconds = *s.value;
  }
  r.family = f.family;
}

}  // namespace gpuplan::cli
