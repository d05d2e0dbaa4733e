#pragma once
// The owner's inputs as facts, and their words: each default the owning side fell back to (what
// it is, its value and unit, the flag that overrides it), each note about the inputs, and each
// figure a US one stands in for because the buyer's country has none. Read by
// src/cli/ownership_flags.cpp as numbers; worded here, money in the caller's MoneyStyle (tables
// and notes) or in kJsonMoney (JSON), so --grouping never changes a JSON document.
#include <string>
#include <vector>

#include "io/render/money_style.hpp"

namespace gpuplan::io {

enum class OwnershipDefault {
  gpu_list_price,        // the catalog's list price of the GPU
  rest_of_machine_rack,  // a data-centre build's network and cabling, a share of its GPUs
  rest_of_machine_desk,  // a desk-side build's parts
  power_price,           // per kWh
  load_factor,           // ratio to TDP
  idle_power,            // share of TDP
  pue,                   // ratio
  maintenance,           // share of the price per year
  failure_rate,          // share of the GPUs per year
  resale,                // share of the value kept per year
  financing,             // interest per year (the default: none, bought outright)
  colo,                  // per provisioned kW per month
};

struct DefaultUsed {
  OwnershipDefault what = OwnershipDefault::power_price;
  double value = 0;        // money in `unit`, else the share (0.08) or ratio (1.4) `what` names
  std::string unit;        // the currency of money; "share" or "ratio" otherwise
  std::string flag;        // what overrides it, e.g. "--power-price"
  std::string gpu;         // gpu_list_price: the GPU priced
  bool us_price = false;   // gpu_list_price: the US list price stands in for the buyer's country's
  int gpus_per_build = 0;  // rest_of_machine_*: the build the amount is for
};

enum class OwnershipNote {
  rack_rest_network_only,     // the data-centre rest-of-machine default has no server host in it
  input_tax_credit,           // GST comes back as credit, duty does not
  power_tariff,               // what the buyer country's tariff leaves out (its own sourced text)
  engineer_time_not_counted,  // no --ops-hours-per-month and --engineer-rate
};

struct OwnershipFact {
  OwnershipNote what = OwnershipNote::engineer_time_not_counted;
  std::string text;  // power_tariff: the country figures' note; empty otherwise
};

// A figure the buyer's country has no public source for, so a US one, converted, stands in.
enum class StandInFigure { gpu_price, desk_build, power_price, colo };

struct StandIn {
  StandInFigure what = StandInFigure::gpu_price;
  std::string country;      // the buyer's, ISO code
  std::string gpu;          // gpu_price: the GPU
  double us_value = 0;      // the figure, in us_currency: per GPU, per build, per kWh or per kW-month
  std::string us_currency;  // "USD"
  double value = 0;         // the same converted into `currency`
  std::string currency;
};

// "power 0.160 USD/kWh (--power-price)".
std::string default_text(const DefaultUsed& d, MoneyStyle style);
std::vector<std::string> default_texts(const std::vector<DefaultUsed>& d, MoneyStyle style);
// `lead` then every default, comma-separated: "defaults used (override with the flag): a (--x), b (--y)".
std::string defaults_line(const std::string& lead, const std::vector<DefaultUsed>& d, MoneyStyle style);
std::string ownership_note_text(const OwnershipFact& n);
// "no DE power tariff is sourced: power is the US figure (0.160 USD/kWh) converted; pass --power-price".
std::string stand_in_text(const StandIn& w, MoneyStyle style);
std::vector<std::string> stand_in_texts(const std::vector<StandIn>& w, MoneyStyle style);

}  // namespace gpuplan::io
