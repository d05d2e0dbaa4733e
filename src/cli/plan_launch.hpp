#pragma once
// `plan --emit`: turns the chosen plan into an engine's launch file and writes it.
#include <CLI/CLI.hpp>

#include <string>

#include "cli/common.hpp"
#include "cli/run_flags.hpp"
#include "gpuplan/plan.hpp"

namespace gpuplan::cli {

struct LaunchFlags {
  std::string emit, out, head_address;
  int port = 0, node_rank = -1;  // 0 and -1: not given (the file then uses 29500 and machine 0)
};
void add_launch_options(CLI::App& cmd, LaunchFlags& f);

// The plan `plan` chose, as the launch file needs it.
struct ChosenPlan {
  const ModelArch& model;
  const Workload& workload;
  const Candidate& best;
  const PlanOffer& offer;
  Pricing pricing;
  const RunSettings& run;
};

// Refuses an unknown --emit engine, or --out without --emit, before the search runs.
void check_launch_engine(const LaunchFlags& f);

// Writes the launch file (stdout or --out) when --emit was given. Returns true when the file
// went to stdout, where it must stand alone (no report after it).
bool emit_plan_launch(const Context& ctx, const LaunchFlags& f, const ChosenPlan& c, Report& r);

}  // namespace gpuplan::cli
