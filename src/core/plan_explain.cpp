#include "gpuplan/plan.hpp"

namespace gpuplan {

namespace {

template <class E>
SettingReason reason(PlanSetting setting, const std::vector<E>& values, const std::vector<std::optional<Candidate>>& best_by,
                     std::size_t chosen) {
  SettingReason r{setting, to_string(values[chosen]), {}};
  for (std::size_t i = 0; i < values.size() && i < best_by.size(); ++i)
    if (i != chosen) r.others.push_back({to_string(values[i]), best_by[i]});
  return r;
}

}  // namespace

const char* to_string(PlanSetting s) {
  switch (s) {
    case PlanSetting::method: return "method";
    case PlanSetting::precision: return "precision";
    case PlanSetting::optimizer: return "optimizer";
    case PlanSetting::checkpointing: return "checkpointing";
    case PlanSetting::sharding: return "sharding";
    case PlanSetting::pricing: return "pricing";
  }
  return "?";
}

std::vector<SettingReason> explain_plan(const PlanResult& r, const PlanSpace& s, const Candidate& b) {
  return {reason(PlanSetting::method, s.methods, r.best_by_method, b.method),
          reason(PlanSetting::precision, s.precisions, r.best_by_precision, b.precision),
          reason(PlanSetting::optimizer, s.optimizers, r.best_by_optimizer, b.optimizer),
          reason(PlanSetting::checkpointing, s.checkpointing, r.best_by_checkpointing, b.checkpointing),
          reason(PlanSetting::sharding, s.shardings, r.best_by_sharding, b.sharding),
          reason(PlanSetting::pricing, s.pricings, r.best_by_pricing, b.pricing)};
}

std::vector<PlanStep> plan_next_steps(const PlanInputs& in, const PlanSpace& space, const Candidate& best) {
  const Workload bw = candidate_workload(in, space, best);
  const PlanOffer& bo = in.offers[static_cast<std::size_t>(best.offer)];
  std::vector<PlanStep> steps;
  steps.push_back({NextStep::measure_baseline, bo.offer->gpu, bw.method});
  steps.push_back({bw.method == Method::full ? NextStep::try_adapters : NextStep::start_from_method, {}, bw.method});
  if (bw.checkpointing == Checkpointing::full) steps.push_back({NextStep::checkpointing_cost, {}, bw.method});
  if (best.gpus > 1) steps.push_back({NextStep::scale_out_later, {}, bw.method});
  steps.push_back({NextStep::compare_providers, {}, bw.method});
  return steps;
}

}  // namespace gpuplan
