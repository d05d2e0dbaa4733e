#include "gpuplan/plan.hpp"

namespace gpuplan {

namespace {

template <class E>
SettingReason reason(const char* setting, const std::vector<E>& values, const std::vector<std::optional<Candidate>>& best_by,
                     std::size_t chosen) {
  SettingReason r{setting, to_string(values[chosen]), {}};
  for (std::size_t i = 0; i < values.size() && i < best_by.size(); ++i)
    if (i != chosen) r.others.push_back({to_string(values[i]), best_by[i]});
  return r;
}

}  // namespace

std::vector<SettingReason> explain_plan(const PlanResult& r, const PlanSpace& s, const Candidate& b) {
  return {reason("method", s.methods, r.best_by_method, b.method),
          reason("precision", s.precisions, r.best_by_precision, b.precision),
          reason("optimizer", s.optimizers, r.best_by_optimizer, b.optimizer),
          reason("checkpointing", s.checkpointing, r.best_by_checkpointing, b.checkpointing),
          reason("sharding", s.shardings, r.best_by_sharding, b.sharding),
          reason("pricing", s.pricings, r.best_by_pricing, b.pricing)};
}

std::vector<std::string> plan_next_steps(const PlanInputs& in, const PlanSpace& space, const Candidate& best) {
  const Workload bw = candidate_workload(in, space, best);
  const PlanOffer& bo = in.offers[static_cast<std::size_t>(best.offer)];
  std::vector<std::string> steps;
  steps.push_back("run a 50-step baseline on one " + bo.offer->gpu + " with these settings and pass its measured MFU as --mfu to re-plan");
  if (bw.method == Method::full) steps.push_back("full fine-tuning won on cost here; still try LoRA/QLoRA on the same data if quality allows");
  else steps.push_back("start from " + std::string(to_string(bw.method)) + "; move to full fine-tuning only if your evaluation needs it");
  if (bw.checkpointing == Checkpointing::full) steps.push_back("activation checkpointing is on: it costs ~1/3 more compute but lets the micro-batch fit");
  if (best.gpus > 1) steps.push_back("scale out only after the single-GPU run is well utilised; the plan's scaling efficiency assumes the sheet's links");
  steps.push_back("compare providers on identical work: gpuplan compare with these settings");
  return steps;
}

}  // namespace gpuplan
