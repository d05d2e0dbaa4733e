#pragma once
// advise's words: the core gives why the pattern, why each workload runs where it does and what
// would change the answer as codes and numbers (gpuplan/advise.hpp); these are the sentences
// every format prints.
#include <string>

#include "gpuplan/advise.hpp"

namespace gpuplan::io {

std::string reason_text(const PatternReason& r);
std::string workload_text(WorkloadClass w);
std::string placement_why_text(const WorkloadPlacement& p);
std::string change_text(const AnswerChange& c);

}  // namespace gpuplan::io
