#pragma once
// Experiment spec files (experiments/*.yaml): every `estimate` flag as a key of the same name
// (dashes or underscores), plus name, owner, team, approved_by, max_cost and the offer
// constraints `compare` takes. Read through the very flag definitions the CLI uses, so a spec
// and a command line can never disagree about what a setting means.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "cli/run_flags.hpp"
#include "cli/workload_flags.hpp"
#include "gpuplan/budget.hpp"
#include "io/text/flat_yaml.hpp"

namespace gpuplan::cli {

struct Experiment {
  io::FlatDocument doc;
  std::string name, owner, team, approved_by, max_cost;
  SpecStatus status = SpecStatus::planned;  // status: planned | running | done | cancelled
  std::string profile;  // calibration profile path (resolved against the spec's folder)
  WorkloadFlags workload;
  RunFlags run;
  OfferFlags filter;
};

// Files, or folders whose *.yaml / *.yml files (any case, subfolders included) are read,
// sorted by path. A non-spec file inside a folder (a FIFO named x.yaml) is refused when read.
std::vector<std::string> expand_spec_paths(const std::vector<std::string>& paths);

Experiment load_experiment(const std::string& path);

// Every key a spec may hold, with its help text (for `gpuplan schema experiment`).
struct SpecKey {
  std::string key, help;
  bool flag = false;     // true/false
  bool list = false;     // may repeat
  std::vector<std::string> spellings;  // every key that sets it: each flag name, with _ and -
  std::vector<std::string> choices;    // the values it takes, when it is an enumeration
  std::string type;                    // CLI11's: INT, FLOAT, TEXT, ...
};
std::vector<SpecKey> experiment_keys();

// The JSON Schema of a spec, generated from experiment_keys(): what `check` accepts.
nlohmann::json experiment_schema();

// An experiment priced as `estimate` prices it: the cheapest offer that meets its deadline
// (or the cheapest at all), money in `currency`.
struct PricedExperiment {
  ExperimentCheck check;
  std::optional<PricedOffer> best;
  double per_gpu_bytes = 0;
  double step_seconds = 0;
  std::string model;
  std::vector<std::string> price_warnings;  // stale or mixed-tax sheets behind its price (price_warnings)
};
// With the spec's own profile when it names one, else ctx's.
PricedExperiment price_experiment(const Context& ctx, const Experiment& x, const std::string& currency);

}  // namespace gpuplan::cli
