#pragma once
// Concrete ways out when a job does not fit, each re-estimated with the same memory model.
#include <string>
#include <vector>

#include "gpuplan/memory.hpp"

namespace gpuplan {

struct MemoryAdvice {
  std::string change;        // e.g. "--checkpointing full"
  std::string explanation;   // one line of why
  double per_gpu_bytes = 0;  // resulting total per GPU
  bool fits = false;
};

std::vector<MemoryAdvice> advise_memory(const ModelArch& model, const ParamCounts& params, const Workload& w,
                                        double capacity_bytes);

}  // namespace gpuplan
