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

}  // namespace gpuplan
