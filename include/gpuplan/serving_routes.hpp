#pragma once
// A serving search's answer and several routes' answers together: which option a route runs on
// (the cheapest meeting the latency targets) and what the routes of one traffic cost as a whole.
#include <optional>
#include <vector>

#include "gpuplan/serving.hpp"

namespace gpuplan {

// The cheapest option that meets the latency targets; null when none does.
const ServingOption* best_serving_option(const ServingSearch& s);

// Several routes of one traffic, each on its chosen option: money a month summed, and per
// million output tokens and per request over the summed traffic (0 where there is none).
struct RoutedServingCost {
  double per_month = 0;
  double per_million_output_tokens = 0;
  double per_request = 0;
};
// nullopt when a route has no option (a null entry): the routes have no total then.
std::optional<RoutedServingCost> routed_serving_cost(const std::vector<const ServingOption*>& chosen);

}  // namespace gpuplan
