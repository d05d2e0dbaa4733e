#include <catch2/catch.hpp>

#include "core/test_models.hpp"
#include "gpuplan/model.hpp"

using namespace gpuplan;

namespace {
ModelArch llama31_8b() { return testing::llama31_8b(); }
}  // namespace

TEST_CASE("Llama 3.1 8B counts to its published total", "[model]") {
  // 8,030,261,248: the safetensors total of meta-llama/Llama-3.1-8B.
  CHECK(count_params(llama31_8b()).total() == 8030261248.0);
}

TEST_CASE("GQA makes k and v narrower", "[model]") {
  const LayerShapes s = layer_shapes(llama31_8b());
  CHECK(s.q.out == 4096);
  CHECK(s.k.out == 1024);
  CHECK(s.v.out == 1024);
  CHECK(s.down.in == 14336);
}

TEST_CASE("MoE active parameters count only the routed experts", "[model]") {
  ModelArch m = llama31_8b();
  m.vocab_size = 32000;
  m.intermediate_size = 14336;
  m.experts = 8;
  m.experts_per_token = 2;
  const ParamCounts pc = count_params(m);
  const double expert = 3.0 * 4096 * 14336 * 32;
  CHECK(pc.total() - pc.active == Approx(6 * expert));
}

TEST_CASE("a bare parameter count gets an assumed architecture that matches it", "[model]") {
  for (double p : {0.5e9, 7e9, 13e9, 70e9}) {
    const AssumedModel a = model_from_param_count(p);
    CHECK(count_params(a.arch).total() == Approx(p).epsilon(0.02));
    CHECK_FALSE(a.shape_of.empty());  // the published model its shape follows, for the "assumed:" lines
    CHECK(a.asked_params == p);
    CHECK(a.total_params == Approx(count_params(a.arch).total()));
    CHECK(a.matches());
    CHECK(a.arch.params_only);
  }
}
