#pragma once
// compare's report: every offer that can run the job, ranked, with the ones that cannot and,
// with --sheet, each sheet's best offer side by side. Numbers from the evaluation engine.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "gpuplan/offer_search.hpp"
#include "io/render/render.hpp"

namespace gpuplan::io {

struct SheetProviders {
  std::string path;
  std::vector<std::string> provider_ids;
};

struct CompareReport {
  std::string model_id, model_name, model_source;
  std::vector<std::string> assumptions;
  std::string sort;  // "cost" or "time"
  Workload workload;
  RunSettings run;
  OfferSet set;                      // ranked, regions collapsed
  std::vector<PricedOffer> shown;    // the top K of set.priced
  std::vector<SheetProviders> sheets;  // --sheet files, in the order given
  bool explain = false;
  // True when the answer is "no": nothing can run the job, or nothing meets the limits.
  bool answer_is_no() const;
};

nlohmann::json compare_json(const CompareReport& r);
std::vector<Table> compare_tables(const CompareReport& r);
std::vector<std::string> compare_notes(const CompareReport& r);

}  // namespace gpuplan::io
