#pragma once
// The input-pipeline figures of a training estimate (input_pipeline.hpp) as JSON and as the
// lines under an offer table, with the warning when the pipeline, not the GPUs, bounds the run.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "gpuplan/offer_search.hpp"

namespace gpuplan::io {

nlohmann::json pipeline_json(const PipelineFigures& f);
// For the first (best) offer that has figures: what the GPUs consume, against storage and CPUs.
std::vector<std::string> pipeline_notes(const std::vector<PricedOffer>& offers);
// The same for one offer (`offer_key` "provider/offer"): plan's chosen one.
std::vector<std::string> pipeline_notes(const std::string& offer_key, const PipelineFigures& f);
// "the input pipeline (storage), not the GPUs, bounds this run: ..."; "" when it keeps up.
std::string pipeline_bound_text(const PipelineFigures& f);

}  // namespace gpuplan::io
