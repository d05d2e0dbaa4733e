#pragma once
// What buying hardware costs once taxes and duties are in: a domestic purchase with GST (or a
// sales tax) on top or inside the quote, or an import whose customs value carries basic customs
// duty, the social welfare surcharge on that duty, and IGST on the lot. Input-tax credit returns
// the GST/IGST to a registered business; customs duty is never credited. Also the buyer's
// country defaults buy-vs-rent starts from, each with its source or marked as a converted US
// figure. Pure: no I/O. Money is in whatever currency the caller uses.
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/catalog.hpp"

namespace gpuplan {

struct ImportDuty {
  std::string hs_code;            // the tariff line the rates are for, e.g. "8473 30"
  double basic = 0;               // basic customs duty, share of the assessable value
  double sws_share_of_duty = 0;   // social welfare surcharge, share of the basic duty
};

struct PurchaseTerms {
  double price = 0;                  // per unit, as quoted (an import: the assessable value)
  bool price_includes_gst = false;   // a domestic quote that already holds GST
  std::optional<ImportDuty> import;  // set: the price is imported and duty is paid on it
  double gst_rate = 0;               // GST on a domestic purchase, IGST on an import
};

struct PurchaseCost {
  double pre_tax = 0;        // the price without GST (an import: the assessable value)
  double basic_duty = 0;
  double sws = 0;
  double gst = 0;            // GST or IGST charged
  double gst_recovered = 0;  // input-tax credit taken back
  double total = 0;          // what the buyer's books carry, on its tax basis
};

// Import: duty = value x basic; sws = duty x sws share; IGST = (value + duty + sws) x rate.
// Domestic: GST = pre-tax x rate (the pre-tax price is quote / (1 + rate) when the quote holds it).
// On an exclusive basis, or with input-tax credit, GST is left out of the total; duty stays.
PurchaseCost purchase_cost(const PurchaseTerms& t, TaxBasis basis, bool input_tax_credit);

// A default with where it came from. `converted_from` names the country whose figure is used
// when the buyer's own has no source (the caller converts it and must warn).
struct SourcedValue {
  double value = 0;
  std::string currency;      // "" for shares and ratios
  std::string source;        // URL and date, or the derivation
  std::string converted_from;  // "" = the buyer's own figure; "US" = a US figure stood in
};

// The buyer-country figures buy-vs-rent starts from when a flag is not given.
struct CountryBuyDefaults {
  std::string country;             // ISO code the figures are for ("US", "IN")
  std::string currency = "USD";    // what the buyer is shown unless --currency says otherwise (IN: INR)
  SourcedValue power_price_per_kwh;
  std::string power_note;          // what the tariff leaves out
  std::optional<SourcedValue> hardware_gst;   // GST/IGST on hardware; none for the US list prices
  std::optional<SourcedValue> rent_gst;       // tax on rented GPU-hours whatever the sheet lists (IN: GST)
  // Import duty by tariff line; the first line is the default for GPU boards and builds.
  std::vector<ImportDuty> import_lines;
  double import_sws_share_of_duty = 0;  // for a duty the user gives (--customs-duty)
  std::string import_source;
  bool street_prices_sourced = false;  // false: the GPU's price is its US list price, converted
};

// "US" (the defaults in tco_defaults.hpp), "IN" (tco_defaults::india); any other country gets
// the US figures marked converted_from "US". `datacentre` picks the rack figures.
CountryBuyDefaults country_buy_defaults(const std::string& country, bool datacentre);

// The import line for `hs_code` ("8473 30", "847330", "8471"): the longest listed prefix of it,
// or nullopt when the country lists none (the caller must ask for the duty).
std::optional<ImportDuty> import_line(const CountryBuyDefaults& d, const std::string& hs_code);

}  // namespace gpuplan
