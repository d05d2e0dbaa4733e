#pragma once
// serve's report values rendered: JSON objects (key names are the documented schema) and the
// tables people read. The numbers come from the core's ServingSearch, unchanged.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "gpuplan/serving.hpp"
#include "io/render/money_style.hpp"
#include "io/render/render.hpp"

namespace gpuplan::io {

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
