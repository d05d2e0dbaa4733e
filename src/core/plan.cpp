#include "gpuplan/plan.hpp"

#include <algorithm>
#include <cmath>

#include "gpuplan/engine_support.hpp"
#include "gpuplan/memory.hpp"

namespace gpuplan {

namespace {

// Combinations that are not real choices: QLoRA trains with 16-bit compute; fp8 needs
// hardware support (checked per offer); sharding only means something with several GPUs.
bool valid_variant(const Workload& w) {
  if (w.method == Method::qlora && w.precision == Precision::fp32) return false;
  if (w.sharding != Sharding::ddp && w.gpus == 1) return false;
  if (w.pure_bf16 && w.precision != Precision::bf16) return false;  // pure bf16 is a bf16 setting
  if (!offload_problem(w).empty()) return false;  // never price an offload no engine runs
  return true;
}

double score(const Candidate& c, Objective o) { return o == Objective::cost ? c.cost : c.wall_seconds; }

void consider_best(std::optional<Candidate>& slot, const Candidate& c, Objective o) {
  if (!slot || score(c, o) < score(*slot, o)) slot = c;
}

struct Search {
  const PlanInputs& in;
  const PlanSpace& space;
  std::size_t keep;
  RunSpec run;                    // the plan's terms with its tokens; accumulation and pricing per candidate
  std::vector<int> counts;        // the GPU counts the offers and node counts allow
  double largest_memory = 0;
  PlanResult r;
  std::vector<Candidate> front;   // fitting candidates' (cost, time), pruned as it grows
};

// The Pareto front: drop what the newcomer dominates, add it unless dominated.
void update_front(std::vector<Candidate>& front, const Candidate& c) {
  for (const auto& f : front)
    if (f.cost <= c.cost && f.wall_seconds <= c.wall_seconds) return;
  front.erase(std::remove_if(front.begin(), front.end(),
                             [&](const Candidate& f) { return c.cost <= f.cost && c.wall_seconds <= f.wall_seconds; }),
              front.end());
  front.push_back(c);
}

// Keeps the best `keep`, at most one per offer and pricing so runners-up are real alternatives.
void update_best(std::vector<Candidate>& best, const Candidate& c, Objective obj, std::size_t keep) {
  auto same = std::find_if(best.begin(), best.end(), [&](const Candidate& b) { return b.offer == c.offer && b.pricing == c.pricing; });
  if (same != best.end()) {
    if (score(c, obj) >= score(*same, obj)) return;
    *same = c;
  } else if (best.size() < keep) {
    best.push_back(c);
  } else if (score(c, obj) < score(best.back(), obj)) {
    best.back() = c;
  } else {
    return;
  }
  std::sort(best.begin(), best.end(), [&](const Candidate& a, const Candidate& b) { return score(a, obj) < score(b, obj); });
}

void record(Search& s, const Candidate& c) {
  PlanResult& r = s.r;
  const Objective obj = s.in.objective;
  if (!r.cheapest || c.cost < r.cheapest->cost) r.cheapest = c;
  if (!r.fastest || c.wall_seconds < r.fastest->wall_seconds) r.fastest = c;
  update_front(s.front, c);
  if (!c.feasible()) return;
  consider_best(r.best_by_method[c.method], c, obj);
  consider_best(r.best_by_precision[c.precision], c, obj);
  consider_best(r.best_by_optimizer[c.optimizer], c, obj);
  consider_best(r.best_by_checkpointing[c.checkpointing], c, obj);
  consider_best(r.best_by_sharding[c.sharding], c, obj);
  consider_best(r.best_by_pricing[c.pricing], c, obj);
  update_best(r.best, c, obj, s.keep);
}

// Whole instances of the offer, or (with counts the user fixed) the instances that count needs,
// as estimate rents them; either way an instance count the plan may use.
bool instance_count_allowed(const PlanSpace& space, int gpus, int offer_gpus) {
  const int per = std::max(1, offer_gpus);
  if (space.gpu_counts.empty()) return gpus % per == 0;
  const int instances = (gpus + per - 1) / per;
  return std::find(space.nodes.begin(), space.nodes.end(), instances) != space.nodes.end();
}

// The inner loop: one prepared variant on every offer and pricing, through the engine.
void score_offers(Search& s, Candidate c, const PreparedJob& job) {
  OfferEvaluation e;
  for (std::size_t k = 0; k < s.in.offers.size(); ++k) {
    const PlanOffer& po = s.in.offers[k];
    if (!instance_count_allowed(s.space, c.gpus, po.offer->gpus)) continue;
    if (po.max_instances > 0 && (c.gpus + std::max(1, po.offer->gpus) - 1) / std::max(1, po.offer->gpus) > po.max_instances) continue;
    // A tensor-parallel group talks every layer: keep it inside one instance.
    if (job.workload.tensor_parallel > std::max(1, po.offer->gpus)) continue;
    if (job.per_gpu_bytes > static_cast<double>(po.gpu->usable_bytes())) continue;
    for (std::size_t q = 0; q < s.space.pricings.size(); ++q) {
      evaluate_prepared(job, *po.gpu, *po.offer, *po.provider, s.space.pricings[q], e);
      if (e.excluded == Exclusion::no_precision) break;  // no pricing changes the card
      if (!e.priced() || !e.cost) continue;
      ++s.r.evaluated;
      const RunCost& cost = *e.cost;
      c.offer = static_cast<int>(k);
      c.pricing = static_cast<std::uint8_t>(q);
      c.step_seconds = e.time.step_seconds;
      c.mfu = e.time.mfu;
      c.wall_seconds = cost.wall_seconds;
      c.cost = cost.total * po.to_display;
      c.gpu_hours = cost.gpu_hours;
      c.checkpoint_interval_seconds = cost.spot ? cost.spot->checkpoint_interval_seconds : 0;
      c.expected_preemptions = cost.spot ? cost.spot->expected_preemptions : 0;
      c.meets_deadline = !s.in.deadline_seconds || c.wall_seconds <= *s.in.deadline_seconds;
      c.meets_budget = !s.in.budget || c.cost <= *s.in.budget;
      record(s, c);
    }
  }
}

// One workload variant at one micro-batch and GPU count: prune, prepare once, score offers.
void search_variant(Search& s, Candidate c) {
  const Workload w = candidate_workload(s.in, s.space, c);
  if (!valid_variant(w)) return;
  // LoRA's optimizer states are tiny: 8-bit variants only matter for full training.
  if (is_lora(w.method) && w.optimizer != s.space.optimizers.front()) return;
  if (parallel_layout_problem(s.in.model, w)) return;
  // Keep the global batch: micro-batch x accumulation x data-parallel replicas.
  c.grad_accum = std::max(1, s.in.grad_accum);
  if (s.in.global_batch > 0) {
    const std::int64_t per_step = c.micro_batch * data_parallel(w);
    if (per_step > s.in.global_batch || s.in.global_batch % per_step != 0) return;
    c.grad_accum = static_cast<int>(s.in.global_batch / per_step);
  }
  s.r.considered += s.in.offers.size() * s.space.pricings.size();
  const double need = estimate_memory(s.in.model, s.in.params, w).per_gpu_bytes();
  if (need > s.largest_memory) return;  // prune: fits no GPU at this count
  const PreparedJob job = prepare_job(s.in.model, s.in.params, w, s.run, c.grad_accum, need);
  c.per_gpu_bytes = job.per_gpu_bytes;
  score_offers(s, c, job);
}

void init_search(Search& s) {
  PlanResult& r = s.r;
  r.best_by_method.resize(s.space.methods.size());
  r.best_by_precision.resize(s.space.precisions.size());
  r.best_by_optimizer.resize(s.space.optimizers.size());
  r.best_by_checkpointing.resize(s.space.checkpointing.size());
  r.best_by_sharding.resize(s.space.shardings.size());
  r.best_by_pricing.resize(s.space.pricings.size());
  s.run = s.in.run;
  s.run.tokens = s.in.tokens;
  s.run.steps.reset();
  s.run.gpus_fixed = true;
  if (!s.space.gpu_counts.empty()) s.counts = s.space.gpu_counts;
  else
    for (const auto& o : s.in.offers)
      for (int n : s.space.nodes) s.counts.push_back(std::max(1, o.offer->gpus) * n);
  std::sort(s.counts.begin(), s.counts.end());
  s.counts.erase(std::unique(s.counts.begin(), s.counts.end()), s.counts.end());
  for (const auto& o : s.in.offers) s.largest_memory = std::max(s.largest_memory, static_cast<double>(o.gpu->usable_bytes()));
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
  w.tensor_parallel = space.tensor_parallel.empty() ? 1 : space.tensor_parallel[c.tensor_parallel];
  w.pipeline_parallel = space.pipeline_parallel.empty() ? 1 : space.pipeline_parallel[c.pipeline_parallel];
  if (w.method == Method::qlora && w.weight_format == WeightFormat::native) w.weight_format = WeightFormat::nf4;
  if (w.method != Method::qlora && w.method != Method::inference) w.weight_format = WeightFormat::native;
  return w;
}

RunSpec candidate_run(const PlanInputs& in, const PlanSpace& space, const Candidate& c) {
  RunSpec run = in.run;
  run.tokens = in.tokens;
  run.steps.reset();
  run.gpus_fixed = true;
  run.grad_accum = c.grad_accum;
  run.bill.pricing = space.pricings[c.pricing];
  return run;
}

OfferEvaluation evaluate_candidate(const PlanInputs& in, const PlanSpace& space, const Candidate& c) {
  const PlanOffer& po = in.offers[static_cast<std::size_t>(c.offer)];
  return evaluate_offer(in.model, in.params, candidate_workload(in, space, c), *po.gpu, *po.offer, *po.provider,
                        candidate_run(in, space, c));
}

PlanResult search_plans(const PlanInputs& in, const PlanSpace& space, std::size_t keep) {
  Search s{in, space, keep, {}, {}, 0, {}, {}};
  init_search(s);
  Candidate c;
  for (std::size_t mi = 0; mi < space.methods.size(); ++mi)
  for (std::size_t pi = 0; pi < space.precisions.size(); ++pi)
  for (std::size_t oi = 0; oi < space.optimizers.size(); ++oi)
  for (std::size_t ci = 0; ci < space.checkpointing.size(); ++ci)
  for (std::size_t ai = 0; ai < space.attention.size(); ++ai)
  for (std::size_t si = 0; si < space.shardings.size(); ++si)
  for (std::size_t ti = 0; ti < std::max<std::size_t>(1, space.tensor_parallel.size()); ++ti)
  for (std::size_t qi = 0; qi < std::max<std::size_t>(1, space.pipeline_parallel.size()); ++qi)
  for (const std::int64_t mb : space.micro_batches)
  for (const int gpus : s.counts) {
    c.method = static_cast<std::uint8_t>(mi);
    c.precision = static_cast<std::uint8_t>(pi);
    c.optimizer = static_cast<std::uint8_t>(oi);
    c.checkpointing = static_cast<std::uint8_t>(ci);
    c.attention = static_cast<std::uint8_t>(ai);
    c.sharding = static_cast<std::uint8_t>(si);
    c.tensor_parallel = static_cast<std::uint8_t>(ti);
    c.pipeline_parallel = static_cast<std::uint8_t>(qi);
    c.micro_batch = mb;
    c.gpus = gpus;
    search_variant(s, c);
  }
  std::sort(s.front.begin(), s.front.end(), [](const Candidate& a, const Candidate& b) { return a.cost < b.cost; });
  s.r.pareto = std::move(s.front);
  return std::move(s.r);
}

}  // namespace gpuplan
