#pragma once
// The hardware purchase behind buy-vs-rent's owning side, line by line: the price and where it
// came from, duty, GST and what input-tax credit takes back, the sources of the country's
// figures, and the warnings a converted figure carries (in JSON worded with kJsonMoney).
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "gpuplan/tco_purchase.hpp"
#include "io/render/money_style.hpp"
#include "io/render/ownership_words.hpp"
#include "io/render/render.hpp"

namespace gpuplan::io {

struct PurchaseLine {
  std::string what;         // "GPU", "rest of build" (per build)
  std::string price_basis;  // "--gpu-price", "catalog list", "US list x FX (!)" (a converted US figure)
  std::string terms;        // "import 8473 30 (BCD 0.0%)", "GST in the price", "GST on top", "no tax added"
  PurchaseCost cost;
};

struct PurchaseReport {
  std::string country;                 // the buyer's, ISO code
  std::string country_from;            // "--country", "--currency INR", "default"
  TaxBasis basis = TaxBasis::inclusive;
  bool input_tax_credit = false;
  double gst_rate = 0;                 // 0: no tax on hardware modelled
  std::vector<PurchaseLine> lines;
  std::vector<std::string> sources;    // "power: ...", "GST: ...", "import duty: ..."
  std::vector<StandIn> warnings;       // every figure that is not the buyer country's own (stand_in_text words it)
};

nlohmann::json purchase_json(const PurchaseReport& r);
Table purchase_table(const PurchaseReport& r, const std::string& currency, MoneyStyle style);

}  // namespace gpuplan::io
