// serve's reasons come from the core as codes and numbers (gpuplan/serving.hpp); each sentence
// is spelled here, with the numbers rounded as people read them.
#include <catch2/catch.hpp>

#include <string>

#include "gpuplan/units.hpp"
#include "io/render/serve_words.hpp"

using namespace gpuplan;
using gpuplan::io::exclusion_text;
using gpuplan::io::shortfall_text;

namespace {

// A limit with its number and the bound it passes (and, beyond the fleet, the GPUs per replica).
ServingShortfall limit(ServingLimit l, double value = 0, double target = 0, int gpus_per_replica = 0) {
  ServingShortfall s;
  s.limit = l;
  s.value = value;
  s.target = target;
  s.gpus_per_replica = gpus_per_replica;
  return s;
}

ServingShortfall no_throughput(const std::string& gpu) {
  ServingShortfall s;
  s.limit = ServingLimit::no_tensor_throughput;
  s.gpu = gpu;
  return s;
}

ServingExclusion refused(ServingRefusal r) {
  ServingExclusion e;
  e.refusal = r;
  return e;
}

}  // namespace

TEST_CASE("each replica and fleet limit as one sentence with its numbers", "[render][serve]") {
  CHECK(shortfall_text(ServingShortfall{}).empty());  // none: nothing to say
  ServingShortfall fit = limit(ServingLimit::does_not_fit);
  fit.weight_bytes = 15.04 * kGiB;
  fit.workspace_bytes = 2.26 * kGiB;
  fit.kv_free_bytes = 4.32 * kGiB;
  fit.usable_bytes = 21.6 * kGiB;
  fit.sequence_bytes = 6.0 * kGiB;
  CHECK(shortfall_text(fit) ==
        "weights 15.0 GiB + workspace 2.3 GiB leave 4.3 GiB of 21.6 GiB usable per GPU; one sequence needs 6.0 GiB of KV cache");
  fit.kv_free_bytes = -130 * kGiB;  // weights past the card: nothing left, not a negative amount
  CHECK(shortfall_text(fit).find(" leave 0.0 GiB of 21.6 GiB usable") != std::string::npos);
  CHECK(shortfall_text(no_throughput("test-gpu")) ==
        "test-gpu has no tensor throughput for this precision in the catalog");
  CHECK(shortfall_text(limit(ServingLimit::tpot_at_batch_one, 0.00953, 0.001)) ==
        "TPOT at batch 1 is 10 ms, over the 1 ms target");
  CHECK(shortfall_text(limit(ServingLimit::ttft_idle, 0.0764, 0.05)) ==
        "TTFT with no queue is 76 ms, over the 50 ms target");
  CHECK(shortfall_text(limit(ServingLimit::beyond_fleet, 2450981, 100000, 1)) ==
        "the peak needs 2450981 replicas (1 GPU each), beyond any sane fleet (limit 100000 GPUs)");
  CHECK(shortfall_text(limit(ServingLimit::beyond_fleet, 1e30, 100000, 8)) ==
        "the peak needs 9000000000000000000 replicas (8 GPUs each), beyond any sane fleet (limit 100000 GPUs)");
  CHECK(shortfall_text(limit(ServingLimit::utilization_cap, 0.954, 0.9)) ==
        "each replica would run at 95% of its capacity, above the 90% cap");
  CHECK(shortfall_text(limit(ServingLimit::cold_starts, 0.3349)) ==
        "cold starts (33% of requests) push TTFT past the target");
}

TEST_CASE("each reason an offer cannot serve, as the excluded table shows it", "[render][serve]") {
  ServingExclusion heads = refused(ServingRefusal::no_degree);
  heads.heads = 14;
  CHECK(exclusion_text(heads) == "no tensor-parallel degree divides the model's 14 heads");
  ServingExclusion small = refused(ServingRefusal::node_too_small);
  small.tp = 8;
  small.gpus_per_node = 1;
  CHECK(exclusion_text(small) == "needs 8 GPUs per replica; the instance has 1");
  small.stated_node = true;
  small.gpus_per_node = 2;
  CHECK(exclusion_text(small) == "needs 8 GPUs per replica; the stated node has 2");
  ServingExclusion host = refused(ServingRefusal::cannot_host);
  host.shortfall = no_throughput("test-gpu");
  CHECK(exclusion_text(host) == "test-gpu has no tensor throughput for this precision in the catalog");  // TP 1: no note
  host.tp = 4;
  CHECK(exclusion_text(host) == "test-gpu has no tensor throughput for this precision in the catalog (TP4)");
  ServingExclusion fleet = refused(ServingRefusal::beyond_fleet);
  fleet.tp = 2;  // the fleet's sentence names the GPUs per replica itself
  fleet.shortfall = limit(ServingLimit::beyond_fleet, 300000, 100000, 2);
  CHECK(exclusion_text(fleet) == "the peak needs 300000 replicas (2 GPUs each), beyond any sane fleet (limit 100000 GPUs)");
  ServingExclusion price = refused(ServingRefusal::no_price);
  price.pricing = Pricing::spot;
  CHECK(exclusion_text(price) == "no spot price");
  price.pricing = Pricing::reserved_1y;
  CHECK(exclusion_text(price) == "no reserved-1y price");
}
