#pragma once
// serve's report value and its renderers: JSON (key names are the documented schema), the
// tables people read and the notes under them. The numbers come from the core's ServingSearch,
// unchanged; the words are chosen here from its codes and the report's fields.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <vector>

#include "gpuplan/offer_search.hpp"
#include "gpuplan/serving.hpp"
#include "io/render/money_style.hpp"
#include "io/render/render.hpp"

namespace gpuplan::io {

// One route of the traffic: the model it goes to and the core's search over the offers.
struct ServeRoute {
  std::string name = "all";  // "all" when the traffic is not split
  double share = 1;          // of the traffic
  std::string model_id, model_name, model_source;
  std::vector<std::string> assumptions;  // what resolving the model assumed
  ServingSearch search;
};

// `gpuplan serve`'s report: the inputs it echoes and every route's answer.
struct ServeReport {
  Traffic traffic;  // the whole traffic; a route serves its share of it
  ServingRequest req;
  LatencyTargets targets;
  ServingConfig cfg;
  Scaling scaling;
  std::string quant = "native";  // the weights asked for: native (16-bit) or a quantisation
  RunSettings run;               // pricing, currency and exchange rates
  std::vector<ServeRoute> routes;
  bool routed = false;      // --route: each route titled and noted by name, their total shown
  bool daily_rate = false;  // the rate was given per day
  bool cpu_box = false;     // a CPU box from flags is among the offers
  bool explain = false;     // list the offers left out and why
  std::size_t top = 10;     // options shown per route
  std::vector<std::string> price_warnings;  // stale or mixed-tax sheets among those shown
};
nlohmann::json serve_json(const ServeReport& r);
// Per route: its options, then (unrouted) the roofline, then (--explain) the exclusions.
std::vector<Table> serve_tables(const ServeReport& r, MoneyStyle style);
std::vector<std::string> serve_notes(const ServeReport& r, MoneyStyle style);

struct ServeRowContext {
  std::string route;
  std::string pricing;
  std::string currency;
  bool scale_to_zero = false;  // cold starts are shown only then
};
nlohmann::json serving_option_json(const ServingOption& o, const ServeRowContext& c);
nlohmann::json roofline_json(const ServingSearch& s);

Table serving_options_table(const std::vector<ServingOption>& rows, const std::string& title, const std::string& currency, MoneyStyle style);
Table roofline_table(const ServingSearch& s);  // the best option's; empty when none
Table serving_excluded_table(const ServingSearch& s);

// "5.00 req/s", "12.0 req/hour", "3.0 req/day".
std::string rate_text(double requests_per_second);
// Money with as many decimals as a per-request figure needs.
std::string serving_money(double v, const std::string& currency, MoneyStyle style);  // grouped as `style` says for the currency

}  // namespace gpuplan::io
