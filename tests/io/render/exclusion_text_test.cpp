// Why an offer is excluded, in words chosen from the core's code and numbers.
#include <catch2/catch.hpp>

#include "gpuplan/units.hpp"
#include "io/render/exclusion_text.hpp"

using namespace gpuplan;
using gpuplan::io::exclusion_text;

namespace {

OfferEvaluation excluded(Exclusion why, int gpus) {
  OfferEvaluation e;
  e.excluded = why;
  e.workload.gpus = gpus;
  return e;
}

}  // namespace

TEST_CASE("each exclusion code in words", "[render][exclusion]") {
  Gpu gpu;
  gpu.id = "h100-sxm";
  OfferEvaluation big = excluded(Exclusion::does_not_fit, 1);
  big.per_gpu_bytes = 153.2 * kGiB;  // rounded up: the job needs at least this much
  big.capacity_bytes = 79.6 * kGiB;  // rounded down: the card has at most this much
  big.workload.sharding = Sharding::ddp;
  CHECK(exclusion_text(big, gpu, Pricing::on_demand) == "does not fit: needs 154 GiB per GPU on 1 GPU (ddp), h100-sxm has 79 GiB usable");
  big.workload.gpus = 8;
  big.workload.sharding = Sharding::fsdp;
  CHECK(exclusion_text(big, gpu, Pricing::on_demand).find("on 8 GPUs (fsdp)") != std::string::npos);

  OfferEvaluation fp8 = excluded(Exclusion::no_precision, 1);
  fp8.workload.precision = Precision::fp8;
  CHECK(exclusion_text(fp8, gpu, Pricing::on_demand) == "h100-sxm has no fp8 tensor throughput in the catalog");
  CHECK(exclusion_text(excluded(Exclusion::no_price, 1), gpu, Pricing::spot) == "no spot price");
  CHECK(exclusion_text(excluded(Exclusion::no_price, 1), gpu, Pricing::reserved_1y) == "no reserved-1y price");

  OfferEvaluation spot = excluded(Exclusion::cannot_finish, 1);
  spot.infeasible_reason = "preempted faster than it can make progress";
  CHECK(exclusion_text(spot, gpu, Pricing::spot) == "preempted faster than it can make progress");
  OfferEvaluation layout = excluded(Exclusion::bad_layout, 6);
  layout.infeasible_reason = "tensor parallelism must divide the attention heads";
  CHECK(exclusion_text(layout, gpu, Pricing::on_demand) ==
        "tensor parallelism must divide the attention heads (6 GPUs; give --gpus to fix the count)");
  CHECK(exclusion_text(excluded(Exclusion::none, 1), gpu, Pricing::on_demand).empty());
}
