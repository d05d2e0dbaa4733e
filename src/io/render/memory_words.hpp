#pragma once
// estimate's ways to fit: each change the core suggests (gpuplan/memory_advice.hpp, a code and
// numbers) as the flags to give and one line of why.
#include <string>

#include "gpuplan/memory_advice.hpp"

namespace gpuplan::io {

std::string fix_flags(const MemoryAdvice& a);  // "--checkpointing full --method lora"
std::string fix_text(const MemoryAdvice& a);

}  // namespace gpuplan::io
