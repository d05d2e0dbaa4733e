#include "cli/serve_inputs.hpp"

#include <algorithm>
#include <cmath>

#include "cli/common.hpp"
#include "cli/flag_ranges.hpp"
#include "cli/format_values.hpp"
#include "cli/workload_flags.hpp"
#include "gpuplan/units.hpp"

namespace gpuplan::cli {
namespace {

double positive(const std::string& flag, const std::string& text, bool allow_zero = false) {
  auto c = parse_count(text);
  if (!c) bad_flag(flag, c.error);
  if (!(*c.value > 0) && !(allow_zero && *c.value == 0)) bad_flag(flag, "must be " + std::string(allow_zero ? "0 or more" : "positive") + ", got " + text);
  return *c.value;
}

double duration(const std::string& flag, const std::string& text) {
  auto s = parse_seconds(text);
  if (!s) bad_flag(flag, s.error);
  if (!(*s.value > 0)) bad_flag(flag, "must be positive, got " + text);
  return *s.value;
}

double fraction(const std::string& flag, const std::string& text) {
  auto f = parse_fraction(text);
  if (!f) bad_flag(flag, f.error);
  if (!(*f.value > 0) || *f.value > 1) bad_flag(flag, "expected above 0% and at most 100%, got " + text);
  return *f.value;
}

}  // namespace

std::vector<Route> parse_routes(const std::string& text) {
  std::vector<Route> routes;
  int unshared = 0;
  double sum = 0;
  for (std::size_t start = 0; start <= text.size();) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string part = text.substr(start, comma - start);
    start = comma + 1;
    const std::size_t eq = part.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == part.size())
      bad_flag("--route", "expected NAME=MODEL[:SHARE%] entries separated by commas, got \"" + part + "\"");
    Route r;
    r.name = part.substr(0, eq);
    std::string rest = part.substr(eq + 1);
    const std::size_t colon = rest.rfind(':');
    if (colon != std::string::npos) {
      auto f = parse_fraction(rest.substr(colon + 1));
      if (!f || !(*f.value > 0) || *f.value > 1) bad_flag("--route", "share of '" + r.name + "' must be above 0% and at most 100%");
      r.share = *f.value;
      sum += r.share;
      rest = rest.substr(0, colon);
    } else {
      r.share = -1;
      ++unshared;
    }
    if (rest.empty()) bad_flag("--route", "route '" + r.name + "' names no model");
    r.model = rest;
    for (const auto& o : routes)
      if (o.name == r.name) bad_flag("--route", "route '" + r.name + "' appears twice");
    routes.push_back(r);
    if (comma >= text.size()) break;
  }
  if (unshared > 1) bad_flag("--route", "only one route may leave its share out (it gets the rest)");
  if (unshared == 1) {
    if (sum >= 1 - 1e-9) bad_flag("--route", "shares sum to " + num(100 * sum, 1) + "%, leaving nothing for the route without one");
    for (auto& r : routes)
      if (r.share < 0) r.share = 1 - sum;
  } else if (std::abs(sum - 1) > 1e-6) {
    bad_flag("--route", "shares sum to " + num(100 * sum, 1) + "%, expected 100%");
  }
  return routes;
}

CpuBox cpu_box(const ServeFlags& f) {
  CpuBox b;
  const int given = !f.cpu_bandwidth.empty() + !f.cpu_memory.empty() + !f.cpu_tflops.empty() + !f.cpu_price.empty();
  if (given == 0) return b;
  if (given < 4) bad_flag("--cpu-price-per-hour", "a CPU box needs all of --cpu-memory, --cpu-memory-bandwidth, --cpu-tflops and --cpu-price-per-hour");
  auto mem = parse_bytes(f.cpu_memory);
  if (!mem || *mem.value == 0) bad_flag("--cpu-memory", mem ? "must be positive" : mem.error);
  auto bw = parse_bytes(f.cpu_bandwidth, BareGUnit::gb);
  if (!bw || *bw.value == 0) bad_flag("--cpu-memory-bandwidth", bw ? "must be positive" : bw.error);
  auto price = parse_money(f.cpu_price);
  if (!price || !(price.value->amount > 0)) bad_flag("--cpu-price-per-hour", price ? "must be positive" : price.error);
  b.gpu.id = "cpu";
  b.gpu.name = "CPU box (from flags)";
  b.gpu.memory_bytes = *mem.value;
  b.gpu.memory_bandwidth_gbps = static_cast<double>(*bw.value) / 1e9;
  const double tflops = positive("--cpu-tflops", f.cpu_tflops);
  for (PeakPrecision p : {PeakPrecision::fp32, PeakPrecision::fp16, PeakPrecision::bf16}) b.gpu.dense_tflops[static_cast<int>(p)] = tflops;
  b.provider.id = "cpu-box";
  b.provider.name = "CPU box (--cpu-* flags)";
  b.provider.currency = price.value->currency.empty() ? "USD" : price.value->currency;
  b.provider.prices_as_of = "flags";
  Offer o;
  o.id = "cpu";
  o.provider = b.provider.id;
  o.gpu = "cpu";
  o.region = "-";
  o.per_gpu_hour[static_cast<int>(Pricing::on_demand)] = price.value->amount;
  b.provider.offers.push_back(o);
  b.given = true;
  return b;
}



Setup build_setup(const Context& ctx, const ServeFlags& f) {
  Setup s;
  if (f.rps.empty() == f.rpd.empty()) bad_flag("--requests-per-second", "give one of --requests-per-second or --requests-per-day");
  s.traffic.mean_requests_per_second = f.rps.empty() ? positive("--requests-per-day", f.rpd) / 86400.0 : positive("--requests-per-second", f.rps);
  if (s.traffic.mean_requests_per_second > 1e7) bad_flag(f.rps.empty() ? "--requests-per-day" : "--requests-per-second", "more than 10 million requests a second");
  auto pf = parse_fraction(f.peak_factor);
  if (!pf || !(*pf.value >= 1) || *pf.value > 1000) bad_flag("--peak-factor", "expected 1 to 1000 (peak rate / mean rate), got " + f.peak_factor);
  s.traffic.peak_factor = *pf.value;
  s.req.prompt_tokens = in_flag_range("--prompt-tokens", positive("--prompt-tokens", f.prompt));
  s.req.output_tokens = in_flag_range("--output-tokens", positive("--output-tokens", f.output));
  if (!f.max_output.empty()) {
    s.req.max_output_tokens = in_flag_range("--max-output-tokens", positive("--max-output-tokens", f.max_output));
    if (s.req.max_output_tokens < s.req.output_tokens) bad_flag("--max-output-tokens", "must be at least --output-tokens");
  }
  s.req.shared_prefix_tokens = in_flag_range("--shared-prefix-tokens", positive("--shared-prefix-tokens", f.shared_prefix, true));
  if (s.req.shared_prefix_tokens >= s.req.prompt_tokens) bad_flag("--shared-prefix-tokens", "must be less than --prompt-tokens");
  if (!f.ttft.empty()) s.targets.ttft_seconds = duration("--ttft-p95", f.ttft);
  if (!f.tpot.empty()) s.targets.tpot_seconds = duration("--tpot", f.tpot);

  Workload& w = s.cfg.workload;
  w.method = Method::inference;
  w.weight_format = pick_enum<WeightFormat>("--quant", f.quant);
  w.kv_cache_dtype = pick("--kv-cache-dtype", f.kv_dtype, kv_dtype_from_string(f.kv_dtype), "native, fp16, bf16, fp8, int8");
  w.precision = pick("--precision", f.precision, precision_from_string(f.precision), "bf16, fp16, fp32");
  if (w.precision == Precision::fp8) bad_flag("--precision", "fp8 compute comes from --quant fp8 (activations stay 16-bit)");
  if (f.tensor_parallel < 0 || f.tensor_parallel > 64) bad_flag("--tensor-parallel", "expected 1 to 64 (or leave it out to try 1, 2, 4, 8)");
  if (const Profile* p = ctx.profile()) {  // the flags below win
    w.constants = apply_profile(*p, w.constants);
    s.cfg.k = apply_profile(*p, s.cfg.k);
  }
  if (!f.overhead.empty()) {
    auto b = parse_bytes(f.overhead);
    if (!b) bad_flag("--overhead", b.error);
    w.constants.overhead_bytes = static_cast<double>(*b.value);
  }
  s.cfg.batching = f.batching == "continuous" ? Batching::continuous
                 : f.batching == "static"     ? Batching::static_batch
                                              : (bad_choice("--batching", f.batching, "continuous, static"), Batching::continuous);
  ServingConstants& k = s.cfg.k;
  if (!f.memory_utilization.empty()) k.memory_utilization = fraction("--memory-utilization", f.memory_utilization);
  if (!f.bandwidth_efficiency.empty()) k.bandwidth_efficiency = fraction("--bandwidth-efficiency", f.bandwidth_efficiency);
  if (!f.compute_utilization.empty()) k.compute_utilization = fraction("--compute-utilization", f.compute_utilization);
  if (!f.max_utilization.empty()) k.max_utilization = fraction("--max-utilization", f.max_utilization);
  if (!f.step_overhead.empty()) {
    auto so = parse_seconds(f.step_overhead);
    if (!so || *so.value < 0) bad_flag("--step-overhead", so ? "must not be negative" : so.error);
    k.step_overhead_seconds = *so.value;
  }
  // 0 is a value given, not "default": it is refused, as a replica serving no sequence is.
  if (f.max_batch != -1 && (f.max_batch < 1 || f.max_batch > (1 << 20))) bad_flag("--max-batch", "expected 1 to 1048576");
  if (f.max_batch > 0) k.max_batch = f.max_batch;
  if (f.max_batched_tokens != -1 && (f.max_batched_tokens < 1 || f.max_batched_tokens > (1 << 24)))
    bad_flag("--max-batched-tokens", "expected 1 to 16777216");
  if (f.max_batched_tokens > 0) k.max_batched_tokens = f.max_batched_tokens;

  if (f.min_replicas < -1 || f.min_replicas > 100000) bad_flag("--min-replicas", "must not be negative");
  s.scaling.autoscale = f.autoscale || f.scale_to_zero || f.min_replicas >= 0;
  s.scaling.min_replicas = f.scale_to_zero ? 0 : std::max(1, f.min_replicas);
  if (f.min_replicas == 0) s.scaling.min_replicas = 0;
  if (f.scale_to_zero && f.min_replicas > 0) bad_flag("--scale-to-zero", "contradicts --min-replicas " + std::to_string(f.min_replicas));
  s.scaling.keep_warm_seconds = duration("--keep-warm", f.keep_warm);
  if (!f.cold_start.empty()) s.cold_start = duration("--cold-start", f.cold_start);
  s.run = build_run_settings(ctx, f.run, w);
  return s;
}

namespace {

void add_traffic_options(CLI::App& cmd, ServeFlags& f) {
  cmd.add_option("--route", f.route, "Split traffic: NAME=MODEL:SHARE%,NAME=MODEL (one share may be left out)");
  cmd.add_option("--requests-per-second,--rps", f.rps, "Mean request rate");
  cmd.add_option("--requests-per-day", f.rpd, "Mean request rate per day (instead of --requests-per-second)");
  cmd.add_option("--peak-factor", f.peak_factor, "Peak rate / mean rate; replicas are sized for the peak")->capture_default_str();
  cmd.add_option("--prompt-tokens", f.prompt, "Mean prompt tokens per request")->capture_default_str();
  cmd.add_option("--output-tokens", f.output, "Mean output tokens per request")->capture_default_str();
  cmd.add_option("--max-output-tokens", f.max_output, "Longest output (static batching waits for it)");
  cmd.add_option("--shared-prefix-tokens", f.shared_prefix, "Prompt tokens every request shares (prefix cache)")->capture_default_str();
  cmd.add_option("--ttft-p95", f.ttft, "Time-to-first-token target at p95, e.g. 500ms");
  cmd.add_option("--tpot", f.tpot, "Time-per-output-token target, e.g. 50ms");
}

void add_replica_options(CLI::App& cmd, ServeFlags& f) {
  cmd.add_option("--quant", f.quant, "Stored weight format: native | fp8 | int8 | nf4 | fp4 | int4-gptq | int4-awq")
      ->capture_default_str()
      ->transform([](std::string v) { return v == "none" ? std::string("native") : v; });  // old spelling of native
  cmd.add_option("--kv-cache-dtype", f.kv_dtype, "native | fp16 | bf16 | fp8 | int8")->capture_default_str();
  cmd.add_option("--precision", f.precision, "Activations: bf16 | fp16 | fp32")->capture_default_str();
  cmd.add_option("--tensor-parallel", f.tensor_parallel, "GPUs per replica (default: try 1, 2, 4, 8 within a node and keep the cheapest)");
  // --node-shape as training takes it; --network is not registered: a replica never leaves its node.
  cmd.add_option("--node-shape", f.run.node_shape,
                 "Your machines: GPUs per node and their link, e.g. 4xpcie4 (a replica's TP runs over it; several 1-GPU "
                 "instances joined into one node are each billed)");
  cmd.add_option("--batching", f.batching, "continuous | static")->capture_default_str();
  cmd.add_option("--memory-utilization", f.memory_utilization, "Share of GPU memory the engine takes (vLLM default 90%)");
  cmd.add_option("--max-batch", f.max_batch, "Most sequences per replica (vLLM max_num_seqs, default 256)");
  cmd.add_option("--max-batched-tokens", f.max_batched_tokens, "Tokens per forward pass (workspace), default 8192");
  cmd.add_option("--overhead", f.overhead, "CUDA context + workspace per GPU (default 0.8GiB)");
}

void add_speed_options(CLI::App& cmd, ServeFlags& f) {
  cmd.add_option("--bandwidth-efficiency", f.bandwidth_efficiency, "Share of memory bandwidth decode reaches (default 75%)");
  cmd.add_option("--compute-utilization", f.compute_utilization, "Share of dense peak prefill reaches (default 65%)");
  cmd.add_option("--step-overhead", f.step_overhead, "Fixed time per forward pass (default 1ms)");
  cmd.add_option("--max-utilization", f.max_utilization, "Load a replica at most to this share of its capacity (default 90%)");
}

void add_scaling_options(CLI::App& cmd, ServeFlags& f) {
  cmd.add_flag("--autoscale", f.autoscale, "Bill replicas that follow the mean traffic (elastic lower bound) instead of the peak all month");
  cmd.add_option("--min-replicas", f.min_replicas, "With autoscaling, never fewer than this (0 = scale to zero)");
  cmd.add_flag("--scale-to-zero", f.scale_to_zero, "Autoscale down to no replicas between requests (cold starts)");
  cmd.add_option("--keep-warm", f.keep_warm, "Idle time before scaling to zero")->capture_default_str();
  cmd.add_option("--cold-start", f.cold_start, "Time before a cold replica answers (default: sheet start-up + weights at 1 GB/s)");
}

void add_cpu_options(CLI::App& cmd, ServeFlags& f) {
  cmd.add_option("--cpu-memory", f.cpu_memory, "CPU box: RAM, e.g. 384GB");
  cmd.add_option("--cpu-memory-bandwidth", f.cpu_bandwidth, "CPU box: memory bandwidth per second, e.g. 460GB");
  cmd.add_option("--cpu-tflops", f.cpu_tflops, "CPU box: dense 16-bit TFLOP/s (AMX/AVX-512 peak)");
  cmd.add_option("--cpu-price-per-hour", f.cpu_price, "CPU box: price per hour, e.g. 3.50 or 280INR");
}

void add_offer_options(CLI::App& cmd, ServeFlags& f) {
  cmd.add_option("--top", f.top, "Show the best K offers per route")->capture_default_str();
  add_bill_options(cmd, f.run);
  cmd.add_flag("--explain", f.explain, "List the offers that cannot host the model, with the reason");
}

}  // namespace

void add_serve_options(CLI::App& cmd, ServeFlags& f) {
  add_model_source_options(option_section(cmd, "Model"), f.model, true);
  add_traffic_options(option_section(cmd, "Traffic and latency targets"), f);
  add_replica_options(option_section(cmd, "Replicas: weights, batching and memory"), f);
  add_speed_options(option_section(cmd, "Replica speed and load"), f);
  add_scaling_options(option_section(cmd, "Autoscaling"), f);
  add_cpu_options(option_section(cmd, "A CPU box instead of GPUs"), f);
  add_offer_options(option_section(cmd, "Prices and currency"), f);
  add_offer_filter_options(cmd, f.filter);
}

}  // namespace gpuplan::cli
