#include "gpuplan/plan.hpp"

#include <algorithm>
#include <cmath>

#include "gpuplan/memory.hpp"
#include "gpuplan/offer_eval.hpp"

namespace gpuplan {

namespace {

// Combinations that are not real choices: QLoRA trains with 16-bit compute; fp8 needs
// hardware support (checked per offer); sharding only means something with several GPUs.
bool valid_variant(const Workload& w) {
  if (w.method == Method::qlora && w.precision == Precision::fp32) return false;
  if (w.sharding != Sharding::ddp && w.gpus == 1) return false;
  return true;
}

double score(const Candidate& c, Objective o) { return o == Objective::cost ? c.cost : c.wall_seconds; }

void consider_best(std::optional<Candidate>& slot, const Candidate& c, Objective o) {
  if (!slot || score(c, o) < score(*slot, o)) slot = c;
}

}  // namespace

Workload candidate_workload(const PlanInputs& in, const PlanSpace& space, const Candidate& c) {
  Workload w = in.base;
  w.method = space.methods[c.method];
  w.precision = space.precisions[c.precision];
  w.optimizer = space.optimizers[c.optimizer];
  w.checkpointing = space.checkpointing[c.checkpointing];
  w.attention = space.attention[c.attention];
  w.sharding = space.shardings[c.sharding];
  w.micro_batch = c.micro_batch;
  w.gpus = c.gpus;
  w.tensor_parallel = 1;
  w.pure_bf16 = false;
  if (w.method == Method::qlora && w.weight_format == WeightFormat::native) w.weight_format = WeightFormat::nf4;
  if (w.method != Method::qlora && w.method != Method::inference) w.weight_format = WeightFormat::native;
  return w;
}

PlanResult search_plans(const PlanInputs& in, const PlanSpace& space, std::size_t keep) {
  PlanResult r;
  r.best_by_method.resize(space.methods.size());
  r.best_by_precision.resize(space.precisions.size());
  r.best_by_optimizer.resize(space.optimizers.size());
  r.best_by_checkpointing.resize(space.checkpointing.size());
  r.best_by_sharding.resize(space.shardings.size());
  r.best_by_pricing.resize(space.pricings.size());
  const Objective obj = in.objective;

  // The distinct GPU counts the offers and node counts allow.
  std::vector<int> counts;
  for (const auto& o : in.offers)
    for (int n : space.nodes) counts.push_back(std::max(1, o.offer->gpus) * n);
  std::sort(counts.begin(), counts.end());
  counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
  double largest_memory = 0;
  for (const auto& o : in.offers) largest_memory = std::max(largest_memory, static_cast<double>(o.gpu->usable_bytes()));

  std::vector<Candidate> front;  // all fitting candidates' (cost, time) for the Pareto front, pruned as it grows
  Candidate c;
  for (std::size_t mi = 0; mi < space.methods.size(); ++mi)
  for (std::size_t pi = 0; pi < space.precisions.size(); ++pi)
  for (std::size_t oi = 0; oi < space.optimizers.size(); ++oi)
  for (std::size_t ci = 0; ci < space.checkpointing.size(); ++ci)
  for (std::size_t ai = 0; ai < space.attention.size(); ++ai)
  for (std::size_t si = 0; si < space.shardings.size(); ++si)
  for (const std::int64_t mb : space.micro_batches)
  for (const int gpus : counts) {
    c.method = static_cast<std::uint8_t>(mi);
    c.precision = static_cast<std::uint8_t>(pi);
    c.optimizer = static_cast<std::uint8_t>(oi);
    c.checkpointing = static_cast<std::uint8_t>(ci);
    c.attention = static_cast<std::uint8_t>(ai);
    c.sharding = static_cast<std::uint8_t>(si);
    c.micro_batch = mb;
    c.gpus = gpus;
    const Workload w = candidate_workload(in, space, c);
    if (!valid_variant(w)) continue;
    // LoRA's optimizer states are tiny: 8-bit variants only matter for full training.
    if (is_lora(w.method) && w.optimizer != space.optimizers.front()) continue;
    // Keep the global batch: micro-batch x accumulation x GPUs.
    int accum = 1;
    if (in.global_batch > 0) {
      const std::int64_t per_step = mb * gpus;
      if (per_step > in.global_batch || in.global_batch % per_step != 0) continue;
      accum = static_cast<int>(in.global_batch / per_step);
    }
    c.grad_accum = accum;
    const MemoryBreakdown mem = estimate_memory(in.model, in.params, w);
    const double need = mem.per_gpu_bytes();
    const std::size_t offers = in.offers.size() * space.pricings.size();
    r.considered += offers;
    if (need > largest_memory) continue;  // prune: fits no GPU at this count
    c.per_gpu_bytes = need;
    const TokenFlops flops = training_flops_per_token(in.model, in.params, w);
    const double ckpt = checkpoint_bytes(in.model, in.params, w);
    for (std::size_t k = 0; k < in.offers.size(); ++k) {
      const PlanOffer& po = in.offers[k];
      const int per_instance = std::max(1, po.offer->gpus);
      if (gpus % per_instance != 0) continue;
      if (need > static_cast<double>(po.gpu->usable_bytes())) continue;
      if (peak_tflops(*po.gpu, w.precision) <= 0) continue;
      const StepTime t = estimate_step_time(in.model, in.params, w, accum, *po.gpu, offer_links(*po.offer, *po.gpu), in.time);
      if (!(t.step_seconds > 0)) continue;
      const double steps = std::ceil(in.tokens / t.tokens_per_step);
      const int instances = gpus / per_instance;
      for (std::size_t q = 0; q < space.pricings.size(); ++q) {
        ++r.evaluated;
        RunInputs bill = in.bill;
        bill.pricing = space.pricings[q];
        bill.compute_seconds = steps * t.step_seconds;
        bill.steps = steps;
        bill.tokens = in.tokens;
        bill.gpus = gpus;
        bill.checkpoint_seconds = in.checkpoint_write_gbps > 0 ? ckpt / (in.checkpoint_write_gbps * 1e9 * instances) : 0;
        const auto cost = price_run(*po.offer, *po.provider, bill);
        if (!cost || !cost->feasible) continue;
        c.offer = static_cast<int>(k);
        c.pricing = static_cast<std::uint8_t>(q);
        c.step_seconds = t.step_seconds;
        c.mfu = t.mfu;
        c.wall_seconds = cost->wall_seconds;
        c.cost = cost->total * po.to_display;
        c.gpu_hours = cost->gpu_hours;
        c.checkpoint_interval_seconds = cost->spot ? cost->spot->checkpoint_interval_seconds : 0;
        c.expected_preemptions = cost->spot ? cost->spot->expected_preemptions : 0;
        c.meets_deadline = !in.deadline_seconds || c.wall_seconds <= *in.deadline_seconds;
        c.meets_budget = !in.budget || c.cost <= *in.budget;
        (void)flops;

        if (!r.cheapest || c.cost < r.cheapest->cost) r.cheapest = c;
        if (!r.fastest || c.wall_seconds < r.fastest->wall_seconds) r.fastest = c;
        // Pareto front: drop what the newcomer dominates, add it unless dominated.
        bool dominated = false;
        for (const auto& f : front)
          if (f.cost <= c.cost && f.wall_seconds <= c.wall_seconds) { dominated = true; break; }
        if (!dominated) {
          front.erase(std::remove_if(front.begin(), front.end(),
                                     [&](const Candidate& f) { return c.cost <= f.cost && c.wall_seconds <= f.wall_seconds; }),
                      front.end());
          front.push_back(c);
        }
        if (!c.feasible()) continue;
        consider_best(r.best_by_method[mi], c, obj);
        consider_best(r.best_by_precision[pi], c, obj);
        consider_best(r.best_by_optimizer[oi], c, obj);
        consider_best(r.best_by_checkpointing[ci], c, obj);
        consider_best(r.best_by_sharding[si], c, obj);
        consider_best(r.best_by_pricing[q], c, obj);
        // Keep the best `keep`, at most one per offer and pricing so runners-up are real alternatives.
        auto same = std::find_if(r.best.begin(), r.best.end(), [&](const Candidate& b) { return b.offer == c.offer && b.pricing == c.pricing; });
        if (same != r.best.end()) {
          if (score(c, obj) < score(*same, obj)) *same = c;
          else continue;
        } else if (r.best.size() < keep) {
          r.best.push_back(c);
        } else if (score(c, obj) < score(r.best.back(), obj)) {
          r.best.back() = c;
        } else {
          continue;
        }
        std::sort(r.best.begin(), r.best.end(), [&](const Candidate& a, const Candidate& b) { return score(a, obj) < score(b, obj); });
      }
    }
  }
  std::sort(front.begin(), front.end(), [](const Candidate& a, const Candidate& b) { return a.cost < b.cost; });
  r.pareto = std::move(front);
  return r;
}

}  // namespace gpuplan
