#include "gpuplan/tco_purchase.hpp"

#include <algorithm>
#include <cctype>

#include "gpuplan/tco_defaults.hpp"

namespace gpuplan {
namespace td = tco_defaults;

PurchaseCost purchase_cost(const PurchaseTerms& t, TaxBasis basis, bool input_tax_credit) {
  PurchaseCost c;
  const double rate = std::max(0.0, t.gst_rate);
  if (t.import) {
    c.pre_tax = t.price;
    c.basic_duty = c.pre_tax * t.import->basic;
    c.sws = c.basic_duty * t.import->sws_share_of_duty;
    // IGST on imports is levied on the value plus the customs duties (Customs Tariff Act s.3(8)).
    c.gst = (c.pre_tax + c.basic_duty + c.sws) * rate;
  } else {
    c.pre_tax = t.price_includes_gst ? t.price / (1.0 + rate) : t.price;
    c.gst = c.pre_tax * rate;
  }
  if (input_tax_credit) c.gst_recovered = c.gst;
  const bool gst_counted = basis == TaxBasis::inclusive && !input_tax_credit;
  c.total = c.pre_tax + c.basic_duty + c.sws + (gst_counted ? c.gst : 0.0);
  return c;
}

namespace {

SourcedValue us_power(bool datacentre) {
  return {datacentre ? td::kPowerPriceDatacentreUsdPerKwh : td::kPowerPriceConsumerUsdPerKwh, "USD",
          datacentre ? "v2-pseo-ai.pages.dev, \"power 0.06-0.12 USD/kWh\", midpoint (README \"Buy or rent\")"
                     : "US residential average, EIA as cited by localrig.pages.dev (README \"Buy or rent\")",
          ""};
}

CountryBuyDefaults india_defaults() {
  namespace in = td::india;
  CountryBuyDefaults d;
  d.country = "IN";
  d.currency = "INR";  // an Indian buyer's bills, GST and duty are in rupees
  d.power_price_per_kwh = {in::kPowerPriceCommercialInrPerKwh, "INR", in::kPowerPriceSource, ""};
  d.power_note = in::kPowerPriceNote;
  d.hardware_gst = SourcedValue{in::kGstOnHardware, "", in::kGstSource, ""};
  d.rent_gst = SourcedValue{in::kGstOnCloudServices, "", in::kCloudGstSource, ""};
  for (const auto& line : in::kImportLines) d.import_lines.push_back({line.hs_code, line.basic, in::kSwsShareOfDuty});
  d.import_sws_share_of_duty = in::kSwsShareOfDuty;
  d.import_source = in::kImportSource;
  d.street_prices_sourced = false;  // see tco_defaults::india: none found
  return d;
}

std::string digits_of(const std::string& s) {
  std::string out;
  for (char c : s)
    if (std::isdigit(static_cast<unsigned char>(c))) out += c;
  return out;
}

}  // namespace

CountryBuyDefaults country_buy_defaults(const std::string& country, bool datacentre) {
  if (country == "IN") return india_defaults();
  CountryBuyDefaults d;
  d.country = country.empty() ? "US" : country;
  d.power_price_per_kwh = us_power(datacentre);
  d.street_prices_sourced = true;  // the catalog's list prices are US prices
  if (d.country != "US") {
    d.power_price_per_kwh.converted_from = "US";
    d.street_prices_sourced = false;
  }
  return d;
}

std::optional<ImportDuty> import_line(const CountryBuyDefaults& d, const std::string& hs_code) {
  const std::string want = digits_of(hs_code);
  if (want.empty()) return std::nullopt;
  const ImportDuty* best = nullptr;
  std::size_t best_len = 0;
  for (const auto& line : d.import_lines) {
    const std::string have = digits_of(line.hs_code);
    if (have.size() > best_len && want.compare(0, have.size(), have) == 0) best = &line, best_len = have.size();
  }
  if (!best) return std::nullopt;
  return *best;
}

}  // namespace gpuplan
