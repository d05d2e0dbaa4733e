// The input pipeline against hand arithmetic, and its effect on the one evaluation: a slow
// storage case stretches the step, the wall time and the cost; a fast one changes nothing.
#include <catch2/catch.hpp>

#include "gpuplan/input_pipeline.hpp"

using namespace gpuplan;

TEST_CASE("what the GPUs consume against storage and tokenising CPUs", "[pipeline]") {
  PipelineSpec p;
  SECTION("nothing to check against: figures only") {
    const PipelineFigures f = input_pipeline(100000, p, std::nullopt, 128256);
    // 100k tokens/s of raw text at 3.84 bytes a token: 384 kB/s; 100k / 110k = 0.909 cores.
    CHECK(f.storage_bytes_per_second == Approx(384000));
    CHECK(f.cpu_cores_needed == Approx(100000 / 1.1e5));
    CHECK(f.bound == PipelineBound::none);
    CHECK(f.slowdown == 1);
  }
  SECTION("slow storage bounds the run") {
    p.storage_bytes_per_second = 192000;  // half of what the GPUs read
    const PipelineFigures f = input_pipeline(100000, p, std::nullopt, 128256);
    CHECK(f.bound == PipelineBound::storage);
    CHECK(f.fed_tokens_per_second == Approx(50000));
    CHECK(f.slowdown == Approx(2));
  }
  SECTION("too few cores to tokenise") {
    p.cpu_cores = 1;  // 110k tokens/s against 300k wanted
    const PipelineFigures f = input_pipeline(300000, p, std::nullopt, 128256);
    CHECK(f.bound == PipelineBound::tokenisation);
    CHECK(f.slowdown == Approx(300000 / 1.1e5));
  }
  SECTION("pre-tokenised: ids of 4 bytes (vocab > 65536) or 2, nothing to tokenise") {
    p.pretokenised = true;
    p.cpu_cores = 1;
    CHECK(input_pipeline(100000, p, std::nullopt, 128256).storage_bytes_per_second == Approx(400000));
    CHECK(input_pipeline(100000, p, std::nullopt, 32000).storage_bytes_per_second == Approx(200000));
    CHECK(input_pipeline(1e7, p, std::nullopt, 32000).bound == PipelineBound::none);
  }
  SECTION("the nodes' network bounds remote reads when no bandwidth is given") {
    // 1 MB/s per node, 2 nodes (evaluate passes what job_links gives: the sheet's, else --network).
    const PipelineFigures f = input_pipeline(1e6, p, 2e6, 128256);
    REQUIRE(f.storage_limit);
    CHECK(*f.storage_limit == Approx(2e6));
    CHECK(f.storage_from_network);
    CHECK(f.bound == PipelineBound::storage);
  }
}
