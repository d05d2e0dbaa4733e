#pragma once
// plan's words: the next steps the core gives as codes (gpuplan/plan.hpp's PlanStep), spelled
// as the table's notes and the JSON's next_steps print them.
#include <string>

#include "gpuplan/plan.hpp"

namespace gpuplan::io {

std::string next_step_text(const PlanStep& s);

}  // namespace gpuplan::io
