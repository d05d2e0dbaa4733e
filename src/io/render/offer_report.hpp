#pragma once
// Offers priced for one job, as JSON, a table (with raw CSV columns) and notes. The numbers
// come from the evaluation engine (gpuplan/offer_search.hpp); this only spells them.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "gpuplan/offer_search.hpp"
#include "io/render/money_style.hpp"
#include "io/render/render.hpp"

namespace gpuplan::io {

nlohmann::json offer_json(const PricedOffer& p, const RunSettings& run);
// `asked`: the workload as the user wrote it; rows run otherwise (more GPUs, re-sharded) say so.
Table offers_table(const std::vector<PricedOffer>& offers, const RunSettings& run, const Workload& asked, const std::string& title,
                   MoneyStyle style);
Table excluded_table(const std::vector<PricedOffer>& offers, Pricing pricing);
nlohmann::json excluded_json(const std::vector<PricedOffer>& offers, Pricing pricing);

// "prices from `gpuplan prices update`: runpod from URL, fetched ... (N days old); ..." for the
// offers whose sheet came from the price cache; "" when none did.
std::string cached_prices_note(const std::vector<PricedOffer>& offers, const RunSettings& run);

// Notes for the offers shown: unpriced storage/egress, assumed links, unknown preemption
// rates, and how rows were adjusted from the job as asked.
std::vector<std::string> offer_notes(const std::vector<PricedOffer>& offers, const Workload& asked, bool gpus_fixed,
                                     const RunSettings& run);

}  // namespace gpuplan::io
