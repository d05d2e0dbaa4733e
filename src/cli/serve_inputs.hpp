#pragma once
// The flags of `gpuplan serve` and their checked translation into the serving model's inputs:
// traffic, request shape, latency targets, scaling, the CPU box and --route entries.
#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "cli/model_source.hpp"
#include "cli/run_flags.hpp"
#include "gpuplan/catalog.hpp"
#include "gpuplan/serving.hpp"

namespace gpuplan::cli {

struct ServeFlags {
  ModelSourceOptions model;
  RunFlags run;  // only the bill's flags are bound: pricing, tax and its basis, currency, fx, start-up, staleness
  OfferFlags filter;  // the same offer filters as compare
  std::string route, rps, rpd, peak_factor = "1", prompt = "512", output = "256", max_output, shared_prefix = "0";
  std::string quant = "native", kv_dtype = "native", precision = "bf16", batching = "continuous";
  std::string ttft, tpot, overhead, memory_utilization, bandwidth_efficiency, compute_utilization, step_overhead, max_utilization;
  std::string keep_warm = "60s", cold_start;
  std::string cpu_bandwidth, cpu_memory, cpu_tflops, cpu_price;
  int tensor_parallel = 0, top = 10, min_replicas = -1;
  std::int64_t max_batch = -1, max_batched_tokens = -1;  // -1: the engine default
  bool autoscale = false, scale_to_zero = false, explain = false;
};

void add_serve_options(CLI::App& cmd, ServeFlags& f);

struct Route {
  std::string name;
  std::string model;  // "" = the --model source
  double share = 1;
};

// "small=MODEL_A:70%,large=MODEL_B": shares must sum to 100%; one may be left out for the rest.
std::vector<Route> parse_routes(const std::string& text);

// The CPU box from --cpu-* flags, as a pseudo GPU and offer (given = false without them).
struct CpuBox {
  Gpu gpu;
  Provider provider;
  bool given = false;
};
CpuBox cpu_box(const ServeFlags& f);

struct Setup {
  ServingConfig cfg;
  ServingRequest req;
  LatencyTargets targets;
  Traffic traffic;
  Scaling scaling;
  RunSettings run;
  std::optional<double> cold_start;  // --cold-start
};

// Checks every flag; exits 2 naming the flag on a bad value. ctx's profile, if any, sets the
// constants the flags do not.
Setup build_setup(const Context& ctx, const ServeFlags& f);

}  // namespace gpuplan::cli
