#pragma once
// The owner's side of buy-vs-rent as flags, shared by every command that prices owned GPUs
// (buy-vs-rent, replay, advise, and the --owned offer of estimate, compare and plan): the
// purchase (price, rest of the build, the buyer's country, GST and import duty), the horizon
// the hardware is kept, and what running it costs (power at the load factor, idle draw, PUE,
// upkeep, failures, colocation, engineer time, resale, financing). One definition, one reader,
// so an owned GPU is priced the same wherever it appears.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "gpuplan/catalog.hpp"
#include "gpuplan/offer_search.hpp"
#include "gpuplan/tco.hpp"
#include "io/render/ownership_words.hpp"
#include "io/render/purchase_report.hpp"

namespace gpuplan::cli {

struct OwnershipFlags {
  std::string horizon;  // "" = 3y
  std::string gpu_price, rest_of_machine, gpus_per_build, power_price, load_factor, idle_power, pue, maintenance, failure_rate,
      colo, ops_hours, engineer_rate, resale, financing;
  // The buyer: --buyer-country picks the purchase defaults and what is owed (IN: Indian power,
  // GST and import duty); --purchase import|incl-gst|excl-gst, --hs-code and --customs-duty say
  // how hardware is bought. The display currency (--currency) never changes any of it.
  std::string buyer_country, purchase, hs_code, customs_duty;
  // The flags given, by name (a command that reads them only with --owned refuses them without).
  std::vector<std::string> given() const;
};

// Registers the flags above (the purchase and running-cost flags of buy-vs-rent).
void add_ownership_options(CLI::App& cmd, OwnershipFlags& f);

struct Ownership {
  OwnedTerms terms;
  int horizon_months = 36;
  io::PurchaseReport purchase;         // the buyer's country, hardware taxes and duty, warnings
  std::vector<io::DefaultUsed> defaults;  // each default used (io/render/ownership_words.hpp words them)
  std::vector<io::OwnershipFact> notes;   // what the reader must know about the inputs
  bool ops_counted = false;
};

// --buyer-country (default US) into p.country; refuses the import flags for a country whose
// hardware taxes are not modelled.
void read_buyer_country(const OwnershipFlags& f, io::PurchaseReport& p);

// The owner's terms for `gpu`, money in run.currency; `s.purchase.country` is already set
// (read_buyer_country), as are its basis and input-tax credit. The defaults, notes and purchase
// warnings are facts with numbers; renderers word them.
void read_ownership(const OwnershipFlags& f, const Gpu& gpu, const RunSettings& run, Ownership& s);

// A share ("60%", "0.6") or, for ratios such as PUE, a plain number, within [min, max]; exits 2
// naming the flag otherwise.
double fraction_flag(const std::string& flag, const std::string& text, double min, double max, const char* example);

// Money with an optional unit after a slash ("0.12/kWh", "10 INR/kWh", "$200/kW"), converted
// to the display currency; a bare number is in the display currency.
double money_flag(const std::string& flag, std::string text, const std::vector<std::string>& units, const RunSettings& run);

}  // namespace gpuplan::cli
