#pragma once
// The --owned block of estimate, compare and plan: the owner's GPUs priced as buy-vs-rent prices
// owning, as the JSON "owned" object and the notes printed under each command's table. A pure
// function of one plain value, built by src/cli/owned_offer.cpp.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "gpuplan/tco.hpp"
#include "io/render/money_style.hpp"
#include "io/render/ownership_words.hpp"
#include "io/render/purchase_report.hpp"

namespace gpuplan::io {

struct OwnedBlock {
  std::string offer;               // "owned/rtx-4090-x2", the offer's key
  std::string gpu;                 // catalog id
  std::string currency;            // the display currency every amount below is in
  int gpus = 1;                    // one machine of this many GPUs
  double utilization = 0;          // share of a 730-hour month the GPUs are busy
  bool marginal = false;           // priced at power and maintenance only
  MonthlyCost month;               // owned_month at that use
  OwnedHourCost hour;              // full and marginal cost per owned GPU-hour
  double per_gpu_hour = 0;         // what the offer is priced at: hour.full or hour.marginal
  int horizon_months = 36;
  OwnedTerms terms;
  PurchaseReport purchase;
  std::vector<DefaultUsed> defaults;  // the defaults used (ownership_words.hpp)
  std::vector<OwnershipFact> notes;   // what the reader must know about the inputs
};

// The defaults and purchase warnings in it are worded with kJsonMoney, whatever --grouping.
nlohmann::json owned_json(const OwnedBlock& b);
// The price line first, then the ownership notes, purchase warnings and defaults, each marked "owned:".
std::vector<std::string> owned_notes(const OwnedBlock& b, MoneyStyle style);

}  // namespace gpuplan::io
