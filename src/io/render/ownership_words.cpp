#include "io/render/ownership_words.hpp"

#include "gpuplan/tco_defaults.hpp"
#include "io/render/format.hpp"

namespace gpuplan::io {
namespace {

std::string what_text(const DefaultUsed& d, MoneyStyle style) {
  auto money = [&](int decimals) { return money_text(d.value, d.unit, decimals, style); };
  const std::string build = " per " + std::to_string(d.gpus_per_build) + "-GPU build";
  switch (d.what) {
    case OwnershipDefault::gpu_list_price: return d.gpu + " at its " + (d.us_price ? "US " : "") + "catalog list price " + money(0);
    case OwnershipDefault::rest_of_machine_rack:
      return "rest of machine " + money(0) + build + ": network and cabling only (" +
             num(tco_defaults::kRestOfMachineDatacentreShare * 100, 1) + "% of the GPUs), no server host";
    case OwnershipDefault::rest_of_machine_desk: return "rest of machine " + money(0) + build;
    case OwnershipDefault::power_price: return "power " + money(3) + "/kWh";
    case OwnershipDefault::load_factor: return "load factor " + num(d.value, 2) + " x TDP";
    case OwnershipDefault::idle_power: return "idle draw " + num(d.value * 100, 0) + "% of TDP";
    case OwnershipDefault::pue: return "PUE " + num(d.value, 2);
    case OwnershipDefault::maintenance: return "maintenance " + num(d.value * 100, 0) + "%/year";
    case OwnershipDefault::failure_rate: return "failures " + num(d.value * 100, 2) + "%/GPU-year";
    case OwnershipDefault::resale: return "resale keeps " + num(d.value * 100, 1) + "%/year";
    case OwnershipDefault::financing: return "bought outright";
    case OwnershipDefault::colo: return "colocation " + money(0) + "/kW/month";
  }
  return "";
}

}  // namespace

std::string default_text(const DefaultUsed& d, MoneyStyle style) { return what_text(d, style) + " (" + d.flag + ")"; }

std::vector<std::string> default_texts(const std::vector<DefaultUsed>& d, MoneyStyle style) {
  std::vector<std::string> out;
  for (const auto& x : d) out.push_back(default_text(x, style));
  return out;
}

std::string defaults_line(const std::string& lead, const std::vector<DefaultUsed>& d, MoneyStyle style) {
  std::string line = lead;
  for (std::size_t i = 0; i < d.size(); ++i) line += (i ? ", " : "") + default_text(d[i], style);
  return line;
}

std::string ownership_note_text(const OwnershipFact& n) {
  switch (n.what) {
    case OwnershipNote::rack_rest_network_only:
      return "the data-centre rest-of-machine default covers network and cabling only; add the server host with --rest-of-machine "
             "(the cited 8xH100 node is 300-350k USD all-in)";
    case OwnershipNote::input_tax_credit: return "--input-tax-credit: GST/IGST on hardware and rent comes back as credit; customs duty does not";
    case OwnershipNote::power_tariff: return n.text;
    case OwnershipNote::engineer_time_not_counted:
      return "engineer time is not counted (no published figure): add it with --ops-hours-per-month and --engineer-rate";
  }
  return "";
}

std::string stand_in_text(const StandIn& w, MoneyStyle style) {
  auto us = [&](int decimals) { return money_text(w.us_value, w.us_currency, decimals, style); };
  const std::string no = "no " + w.country + " ";
  switch (w.what) {
    case StandInFigure::gpu_price:
      return no + "street price of " + w.gpu + " was found in a public source: it is priced at its US list price (" + us(0) + " = " +
             money_text(w.value, w.currency, 0, style) + "); pass --gpu-price with a local quote";
    case StandInFigure::desk_build:
      return no + "price of the rest of a desk-side build was found: it is the US figure (" + us(0) + ") converted; pass --rest-of-machine";
    case StandInFigure::power_price: return no + "power tariff is sourced: power is the US figure (" + us(3) + "/kWh) converted; pass --power-price";
    case StandInFigure::colo: return no + "colocation fee was found: it is the US figure (" + us(0) + "/kW/month) converted; pass --colo";
  }
  return "";
}

std::vector<std::string> stand_in_texts(const std::vector<StandIn>& w, MoneyStyle style) {
  std::vector<std::string> out;
  for (const auto& x : w) out.push_back(stand_in_text(x, style));
  return out;
}

}  // namespace gpuplan::io
