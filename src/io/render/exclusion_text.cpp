#include "io/render/exclusion_text.hpp"

#include <cmath>

#include "gpuplan/plural.hpp"
#include "gpuplan/units.hpp"

namespace gpuplan::io {

std::string exclusion_text(const OfferEvaluation& e, const Gpu& gpu, Pricing pricing) {
  switch (e.excluded) {
    case Exclusion::none: return "";
    case Exclusion::does_not_fit:
      return "does not fit: needs " + std::to_string(static_cast<long long>(std::ceil(e.per_gpu_bytes / kGiB))) + " GiB per GPU on " +
             std::to_string(e.workload.gpus) + " GPU" + (e.workload.gpus == 1 ? "" : "s") + " (" + to_string(e.workload.sharding) +
             "), " + gpu.id + " has " + std::to_string(static_cast<long long>(e.capacity_bytes / kGiB)) + " GiB usable";
    case Exclusion::no_precision:
      return gpu.id + " has no " + std::string(to_string(e.workload.precision)) + " tensor throughput in the catalog";
    case Exclusion::no_price: return std::string("no ") + to_string(pricing) + " price";
    case Exclusion::cannot_finish: return e.infeasible_reason;
    case Exclusion::bad_layout:
      return std::string(e.infeasible_reason) + " (" + count_of(e.workload.gpus, "GPU") + "; give --gpus to fix the count)";
  }
  return "";
}

}  // namespace gpuplan::io
