#pragma once
// estimate's report as a typed value, and its one renderer per part (JSON, tables, notes). The
// numbers come from the core (memory, fits, advice, the evaluation engine); this only spells them.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/memory.hpp"
#include "gpuplan/memory_advice.hpp"
#include "gpuplan/offer_search.hpp"
#include "io/render/money_style.hpp"
#include "io/render/render.hpp"

namespace gpuplan::io {

struct GpuFit {
  const Gpu* gpu = nullptr;
  bool fits = false;
  std::int64_t max_micro_batch = 0;
};

// Time for the job: from the best priced offer, or from the GPU alone when no sheet lists it.
struct EstimateTime {
  StepTime step;
  std::string gpu;
  std::optional<double> wall_seconds;
};

struct EstimateReport {
  std::string model_id, model_name, model_source;
  std::vector<std::string> assumptions;
  Workload workload;
  MemoryBreakdown memory;
  std::vector<GpuFit> fits;
  const Gpu* advice_gpu = nullptr;  // the GPU the advice sizes against; null: no advice
  std::vector<MemoryAdvice> advice;
  RunSettings run;
  std::vector<PricedOffer> offers;  // shown, best first
  std::string offers_title;
  std::optional<EstimateTime> time;
  std::vector<std::string> cost_notes;  // what the engine said about pricing (unpriced, limits)
};

nlohmann::json estimate_json(const EstimateReport& r);
std::vector<Table> estimate_tables(const EstimateReport& r, MoneyStyle style);
std::vector<std::string> estimate_notes(const EstimateReport& r);
nlohmann::json step_time_json(const StepTime& t);

}  // namespace gpuplan::io
