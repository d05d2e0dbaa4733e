#pragma once
// buy-vs-rent's report rendered from the core's TcoAnalysis: the reasons in words, the JSON
// document (key names are the documented schema, docs/json.md) and the tables.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "gpuplan/tco_analysis.hpp"
#include "io/render/format.hpp"  // money_text
#include "io/render/ownership_words.hpp"
#include "io/render/render.hpp"
#include "io/render/setup_notes.hpp"

namespace gpuplan::io {

// What the report says about its inputs besides the numbers.
struct TcoContext {
  std::string gpu, rented_gpu, currency;
  double hours_per_month = 0;          // expected demand
  std::string demand_source;           // "gpu_hours_per_month" | "utilization" | "file"
  int profile_periods = 0;             // 0: no profile file
  std::string profile_period;          // "day" | "week"
  std::vector<DefaultUsed> defaults;   // the defaults used (worded in JSON with kJsonMoney)
  bool rented_equivalent = false;      // renting a different GPU than the one owned
  double swing = 0.2;                  // sensitivity
  int jobs = 0;                        // > 0: decided by replaying this many jobs of a log (tco_jobs.hpp)
  double peak_gpus = -1;               // the log's most GPUs busy at once; < 0: the demand periods' peak
};


// `style` spells the money in the reasons' words: kJsonMoney for the JSON, the caller's for the tables.
std::vector<std::string> tco_reasons(const TcoInputs& in, const TcoAnalysis& a, const TcoContext& c, MoneyStyle style);
nlohmann::json tco_json(const TcoInputs& in, const TcoAnalysis& a, const TcoContext& c, const std::vector<std::string>& reasons);
// The verdict with its reasons, monthly options, hybrid curve, reserved terms, sensitivity and
// the cumulative chart; tables with no rows are left out.
std::vector<Table> tco_tables(const TcoInputs& in, const TcoAnalysis& a, const TcoContext& c, const std::vector<std::string>& reasons,
                              MoneyStyle style);
// The notes under buy-vs-rent's tables, as facts.
struct TcoNotes {
  std::string country;                // the buyer's
  std::vector<StandIn> stand_ins;     // the purchase's warnings: US figures standing in
  std::vector<SetupNote> demand, inputs;
  bool divisible = true;              // no job log: the divisible-hours model decided
  std::vector<std::string> sources;   // of the buyer country's defaults, "power: ..."
  std::vector<DefaultUsed> defaults;
  std::string fx_as_of;               // "": the rates are not worth a note (USD at the catalog's rates)
};
// Warnings first, then the demand, the other inputs, the model, sources, defaults and rates.
std::vector<std::string> tco_notes(const TcoNotes& n, MoneyStyle style);

// The cumulative series month by month, for CSV.
Table tco_series_table(const TcoInputs& in, const TcoAnalysis& a, const TcoContext& c);

}  // namespace gpuplan::io
