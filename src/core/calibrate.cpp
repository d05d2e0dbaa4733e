#include "gpuplan/calibrate.hpp"

#include <algorithm>
#include <cmath>

#include "gpuplan/memory.hpp"
#include "gpuplan/serving.hpp"

namespace gpuplan {

namespace {

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

Workload profiled_workload(const MeasuredRun& r, const Profile& p) {
  Workload w = r.workload;
  if (p.cuda_context_bytes && !r.context_given) w.constants.overhead_bytes = *p.cuda_context_bytes;
  if (p.fragmentation && !r.fragmentation_given) w.constants.fragmentation = *p.fragmentation;
  return w;
}

bool is_decode(const MeasuredRun& r) { return r.workload.method == Method::inference; }

// Decode as `serve` models it: one pass reads the weights and every sequence's KV cache at
// half the context (the mean over a generation), plus the fixed per-pass overhead.
ServingConfig decode_config(const MeasuredRun& r, const Profile& p) {
  ServingConfig c;
  c.workload = r.workload;
  c.k = apply_profile(p, c.k);
  return c;
}

int replicas(const Workload& w) { return std::max(1, w.gpus / std::max(1, w.tensor_parallel)); }

double decode_tokens_per_second(const MeasuredRun& r, const ServingConfig& c) {
  const double batch = static_cast<double>(r.workload.micro_batch);
  const PassTime t = decode_step(r.model, r.params, *r.gpu, c, batch, static_cast<double>(r.workload.seq_len) / 2);
  return t.seconds > 0 ? batch * replicas(r.workload) / t.seconds : 0;
}

double training_tokens_per_second(const MeasuredRun& r, const TimeConstants& k) {
  return estimate_step_time(r.model, r.params, r.workload, r.grad_accum, *r.gpu, r.links, k).tokens_per_second;
}

// The utilisation at which the time model reproduces a training run's tokens/s (bisection:
// tokens/s rises with utilisation).
double implied_hfu(const MeasuredRun& r) {
  double lo = 0.001, hi = 3.0;
  TimeConstants k;
  for (int i = 0; i < 60; ++i) {
    k.hfu = (lo + hi) / 2;
    (training_tokens_per_second(r, k) < *r.tokens_per_second ? lo : hi) = k.hfu;
  }
  return (lo + hi) / 2;
}

bool has_time(const MeasuredRun& r) { return r.gpu && r.tokens_per_second && *r.tokens_per_second > 0; }

}  // namespace

const char* to_string(MemoryMeasure m) {
  switch (m) {
    case MemoryMeasure::none: return "none";
    case MemoryMeasure::allocated: return "allocated";
    case MemoryMeasure::reserved: return "reserved";
    case MemoryMeasure::device: return "device";
  }
  return "none";
}

MemoryConstants apply_profile(const Profile& p, MemoryConstants base) {
  if (p.cuda_context_bytes) base.overhead_bytes = *p.cuda_context_bytes;
  if (p.fragmentation) base.fragmentation = *p.fragmentation;
  return base;
}

TimeConstants apply_profile(const Profile& p, TimeConstants base) {
  base.calibrated_hfu = p.hfu;
  if (p.hfu_scale) base.hfu_scale = *p.hfu_scale;
  if (p.bandwidth_efficiency) base.bandwidth_efficiency = *p.bandwidth_efficiency;
  if (p.step_overhead_seconds) base.step_overhead_seconds = *p.step_overhead_seconds;  // estimate's decode = serve's
  return base;
}

ServingConstants apply_profile(const Profile& p, ServingConstants base) {
  if (p.bandwidth_efficiency) base.bandwidth_efficiency = *p.bandwidth_efficiency;
  if (p.step_overhead_seconds) base.step_overhead_seconds = *p.step_overhead_seconds;
  return base;
}

MemoryMeasure memory_measure(const MeasuredRun& r) {
  if (r.device_bytes) return MemoryMeasure::device;
  if (r.reserved_bytes) return MemoryMeasure::reserved;
  if (r.allocated_bytes) return MemoryMeasure::allocated;
  return MemoryMeasure::none;
}

std::optional<double> RunEstimate::memory_error() const {
  if (memory == MemoryMeasure::none || !(memory_measured > 0)) return std::nullopt;
  return (memory_estimate - memory_measured) / memory_measured;
}

std::optional<double> RunEstimate::throughput_error() const {
  if (!has_throughput || !(throughput_measured > 0)) return std::nullopt;
  return (throughput_estimate - throughput_measured) / throughput_measured;
}

RunEstimate estimate_run(const MeasuredRun& r, const Profile& p) {
  RunEstimate e;
  e.memory = memory_measure(r);
  if (e.memory != MemoryMeasure::none) {
    const Workload w = profiled_workload(r, p);
    const MemoryBreakdown m = estimate_memory(r.model, r.params, w);
    switch (e.memory) {
      case MemoryMeasure::device: e.memory_measured = *r.device_bytes; e.memory_estimate = m.per_gpu_bytes(); break;
      case MemoryMeasure::reserved:
        e.memory_measured = *r.reserved_bytes;
        e.memory_estimate = m.allocated_bytes() * (1 + w.constants.fragmentation);
        break;
      case MemoryMeasure::allocated: e.memory_measured = *r.allocated_bytes; e.memory_estimate = m.allocated_bytes(); break;
      case MemoryMeasure::none: break;
    }
  }
  if (has_time(r)) {
    e.has_throughput = true;
    e.throughput_measured = *r.tokens_per_second;
    e.throughput_estimate = is_decode(r) ? decode_tokens_per_second(r, decode_config(r, p))
                                         : training_tokens_per_second(r, apply_profile(p, TimeConstants{}));
  }
  return e;
}

namespace {

// Fragmentation: directly where the allocator's two peaks are both measured; else from the
// whole-card figure of a run whose own settings fixed the context.
void fit_memory(const std::vector<MeasuredRun>& runs, FitResult& out) {
  std::vector<double> frag;
  for (const MeasuredRun& r : runs) {
    if (r.fragmentation_given) continue;
    if (r.allocated_bytes && r.reserved_bytes && *r.allocated_bytes > 0) {
      frag.push_back(*r.reserved_bytes / *r.allocated_bytes - 1);
    } else if (r.device_bytes && r.context_given) {
      const double tensors = estimate_memory(r.model, r.params, r.workload).tensor_bytes();
      if (tensors > 0) frag.push_back((*r.device_bytes - r.workload.constants.overhead_bytes) / tensors - 1);
    }
  }
  if (static_cast<int>(frag.size()) >= kMinRunsPerConstant) out.profile.fragmentation = median_of(frag);
  else if (!frag.empty()) out.underfit.push_back({"fragmentation", static_cast<int>(frag.size()), kMinRunsPerConstant});

  // The context: what the card holds beyond the allocator's reservation.
  std::vector<double> ctx;
  for (const MeasuredRun& r : runs) {
    if (!r.device_bytes || r.context_given) continue;
    if (r.reserved_bytes) {
      ctx.push_back(*r.device_bytes - *r.reserved_bytes);
    } else {
      Workload w = profiled_workload(r, out.profile);
      const MemoryBreakdown m = estimate_memory(r.model, r.params, w);
      ctx.push_back(*r.device_bytes - m.tensor_bytes() * (1 + w.constants.fragmentation));
    }
  }
  if (static_cast<int>(ctx.size()) >= kMinRunsPerConstant) out.profile.cuda_context_bytes = std::max(0.0, median_of(ctx));
  else if (!ctx.empty()) out.underfit.push_back({"cuda_context", static_cast<int>(ctx.size()), kMinRunsPerConstant});
}

// Utilisation per GPU class and method where a slot has enough runs (as bf16: fp8 runs are
// divided by the time model's fp8 factor); every run pooled into one scale on the defaults for
// the slots that do not. A slot short of runs is not an error while the pooled scale covers it.
void fit_hfu(const std::vector<MeasuredRun>& runs, FitResult& out) {
  std::array<std::vector<double>, kHfuSlots> implied;
  std::vector<double> ratios;
  for (const MeasuredRun& r : runs) {
    if (!has_time(r) || is_decode(r)) continue;
    const double h = implied_hfu(r);
    implied[hfu_index(r.gpu->form, r.workload.method)].push_back(r.workload.precision == Precision::fp8 ? h / kFp8HfuFactor : h);
    ratios.push_back(h / default_hfu(*r.gpu, r.workload));
  }
  const int pooled = static_cast<int>(ratios.size());
  if (pooled >= kMinRunsPerConstant) {
    out.profile.hfu_scale = median_of(ratios);
    out.profile.hfu_scale_runs = pooled;
  } else if (pooled > 0) {
    out.underfit.push_back({"utilization_scale", pooled, kMinRunsPerConstant});
  }
  for (int i = 0; i < kHfuSlots; ++i) {
    const int n = static_cast<int>(implied[i].size());
    if (n >= kMinRunsPerConstant) {
      out.profile.hfu[i] = median_of(implied[i]);
      out.profile.hfu_runs[i] = n;
    }
  }
}

struct DecodePoint {
  double x = 0;  // seconds a pass spends reading memory at full bandwidth
  double t = 0;  // measured seconds per pass
};

// Theil-Sen: the median of pairwise slopes, then the median intercept. One wild run moves
// neither by more than a rank.
std::pair<double, double> theil_sen(const std::vector<DecodePoint>& pts) {
  std::vector<double> slopes, intercepts;
  for (std::size_t i = 0; i < pts.size(); ++i)
    for (std::size_t j = i + 1; j < pts.size(); ++j)
      if (std::abs(pts[j].x - pts[i].x) > 0.01 * std::max(pts[i].x, pts[j].x))
        slopes.push_back((pts[j].t - pts[i].t) / (pts[j].x - pts[i].x));
  const double slope = median_of(slopes);
  for (const DecodePoint& p : pts) intercepts.push_back(p.t - slope * p.x);
  return {slope, median_of(intercepts)};
}

bool spread(const std::vector<DecodePoint>& pts) {
  double lo = pts.front().x, hi = lo;
  for (const DecodePoint& p : pts) lo = std::min(lo, p.x), hi = std::max(hi, p.x);
  return hi >= 1.2 * lo;
}

void fit_decode(const std::vector<MeasuredRun>& runs, FitResult& out) {
  std::vector<DecodePoint> pts;
  Profile unit;  // full bandwidth, no overhead: the pass's memory time alone
  unit.bandwidth_efficiency = 1.0;
  unit.step_overhead_seconds = 0.0;
  for (const MeasuredRun& r : runs) {
    if (!has_time(r) || !is_decode(r)) continue;
    const ServingConfig c = decode_config(r, unit);
    const double batch = static_cast<double>(r.workload.micro_batch);
    const PassTime pass = decode_step(r.model, r.params, *r.gpu, c, batch, static_cast<double>(r.workload.seq_len) / 2);
    pts.push_back({pass.memory_seconds, batch * replicas(r.workload) / *r.tokens_per_second});
  }
  const int n = static_cast<int>(pts.size());
  if (n == 0) return;
  if (n >= kMinRunsForLine && spread(pts)) {
    auto [slope, intercept] = theil_sen(pts);
    if (slope > 0 && intercept >= 0) {
      out.profile.bandwidth_efficiency = 1 / slope;
      out.profile.step_overhead_seconds = intercept;
      return;
    }
  }
  out.underfit.push_back({"step_overhead", n, kMinRunsForLine});
  if (n < kMinRunsPerConstant) {
    out.underfit.push_back({"bandwidth_efficiency", n, kMinRunsPerConstant});
    return;
  }
  // The overhead held at its default: each run implies an efficiency on its own.
  const double overhead = ServingConstants{}.step_overhead_seconds;
  std::vector<double> eff;
  for (const DecodePoint& p : pts)
    if (p.t > overhead) eff.push_back(p.x / (p.t - overhead));
  if (static_cast<int>(eff.size()) >= kMinRunsPerConstant) out.profile.bandwidth_efficiency = median_of(eff);
}

}  // namespace

FitResult fit_profile(const std::vector<MeasuredRun>& runs) {
  FitResult out;
  out.profile.runs = static_cast<int>(runs.size());
  fit_memory(runs, out);
  fit_hfu(runs, out);
  fit_decode(runs, out);
  return out;
}

std::vector<RunEstimate> leave_one_out(const std::vector<MeasuredRun>& runs) {
  std::vector<RunEstimate> out;
  std::vector<MeasuredRun> others;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    others.clear();
    for (std::size_t j = 0; j < runs.size(); ++j)
      if (j != i) others.push_back(runs[j]);
    out.push_back(estimate_run(runs[i], fit_profile(others).profile));
  }
  return out;
}

std::optional<ErrorBand> error_band(std::vector<double> e, double coverage) {
  if (e.empty()) return std::nullopt;
  std::sort(e.begin(), e.end());
  const double n = static_cast<double>(e.size());
  const double tail = (1 - coverage) / 2;
  ErrorBand b;
  b.coverage = coverage;
  b.cases = static_cast<int>(e.size());
  // Nearest rank, rounded outwards so the band never claims less than it holds.
  // (the 1e-9 keeps 0.05 x 20 from flooring to 0 in binary floating point)
  b.low = e[static_cast<std::size_t>(std::floor(tail * n + 1e-9))];
  b.high = e[static_cast<std::size_t>(std::max(0.0, std::ceil((1 - tail) * n - 1e-9) - 1))];
  for (double x : e) b.within += x >= b.low && x <= b.high;
  return b;
}

ValueRange likely_range(double estimate, const ErrorBand& b) {
  // estimate = measured × (1 + error), so the measured value is estimate / (1 + error).
  return {estimate / (1 + b.high), estimate / (1 + std::max(b.low, -0.99))};
}

std::vector<ConstantFit> calibration_constants(const Profile& p, const std::vector<MeasuredRun>& runs) {
  constexpr double kGiBytes = 1024.0 * 1024 * 1024;
  std::vector<ConstantFit> out;
  const auto add = [&](std::string name, double fallback, std::optional<double> fitted, int measured_by) {
    out.push_back({std::move(name), fallback, fitted, fitted ? measured_by : 0});
  };
  // A device-wide figure without a stated context measures the context; a reserved/allocated
  // pair, or a device figure with the context given, measures fragmentation.
  int device = 0, frag = 0, decode = 0;
  for (const auto& r : runs) {
    device += r.device_bytes && !r.context_given;
    frag += (r.reserved_bytes && r.allocated_bytes) || (r.device_bytes && r.context_given);
    decode += r.gpu && r.tokens_per_second && r.workload.method == Method::inference;
  }
  const MemoryConstants mk;
  add("cuda_context_gib", mk.overhead_bytes / kGiBytes,
      p.cuda_context_bytes ? std::optional<double>(*p.cuda_context_bytes / kGiBytes) : std::nullopt, device);
  add("fragmentation", mk.fragmentation, p.fragmentation, frag);
  add("utilization_scale (pooled)", 1.0, p.hfu_scale, p.hfu_scale_runs);
  for (int i = 0; i < kHfuSlots; ++i) {
    if (!(p.hfu[i] > 0)) continue;
    Gpu g;
    g.form = static_cast<GpuForm>(i / 6);
    Workload w;  // bf16, as profiles store utilisation: default_hfu reads the form and precision, not the method
    add(std::string("utilization[") + to_string(g.form) + "/" + to_string(static_cast<Method>(i % 6)) + "]", default_hfu(g, w), p.hfu[i],
        p.hfu_runs[i]);
  }
  const ServingConstants sk;
  add("bandwidth_efficiency", sk.bandwidth_efficiency, p.bandwidth_efficiency, decode);
  add("step_overhead_ms", sk.step_overhead_seconds * 1000,
      p.step_overhead_seconds ? std::optional<double>(*p.step_overhead_seconds * 1000) : std::nullopt, decode);
  return out;
}

}  // namespace gpuplan
