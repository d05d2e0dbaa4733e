#include "gpuplan/serving_routes.hpp"

namespace gpuplan {

// Options are not assumed sorted: the first one meeting the targets in the search's order.
const ServingOption* best_serving_option(const ServingSearch& s) {
  for (const ServingOption& o : s.options)
    if (o.fleet.meets_latency) return &o;
  return nullptr;
}

std::optional<RoutedServingCost> routed_serving_cost(const std::vector<const ServingOption*>& chosen) {
  double month = 0, tokens = 0, requests = 0;
  for (const ServingOption* o : chosen) {
    if (!o) return std::nullopt;
    month += o->cost.per_month;
    tokens += o->fleet.output_tokens_per_month;
    requests += o->fleet.requests_per_month;
  }
  return RoutedServingCost{month, tokens > 0 ? month / tokens * 1e6 : 0.0, requests > 0 ? month / requests : 0.0};
}

}  // namespace gpuplan
