#include <catch2/catch.hpp>

#include <algorithm>

#include "core/test_models.hpp"
#include "gpuplan/memory_advice.hpp"
#include "gpuplan/units.hpp"

using namespace gpuplan;

TEST_CASE("every piece of advice is re-estimated with the memory model", "[memory][advice]") {
  const ModelArch m = testing::llama31_8b();
  const ParamCounts pc = count_params(m);
  Workload w;  // full fine-tune, 16 bytes/param: ~120 GiB
  const double cap = 24.0 * kGiB;
  const auto advice = advise_memory(m, pc, w, cap);
  REQUIRE_FALSE(advice.empty());
  for (const auto& a : advice) {
    INFO(static_cast<int>(a.fix));
    CHECK(a.per_gpu_bytes > 0);
    CHECK(a.fits == (a.per_gpu_bytes <= cap));
  }
  auto qlora = std::find_if(advice.begin(), advice.end(), [](const MemoryAdvice& a) { return a.fix == MemoryFix::qlora && !a.with_checkpointing; });
  REQUIRE(qlora != advice.end());
  Workload q = w;
  q.method = Method::qlora;
  CHECK(qlora->per_gpu_bytes == Approx(estimate_memory(m, pc, q).per_gpu_bytes()));
}

TEST_CASE("when no single change is enough, combinations with checkpointing are offered", "[memory][advice]") {
  ModelArch m = testing::llama31_8b();
  m.layers = 80;  // a 70B-class depth and width
  m.hidden_size = 8192;
  m.intermediate_size = 28672;
  m.attention_heads = 64;
  const auto advice = advise_memory(m, count_params(m), Workload{}, 80.0 * kGiB);
  const bool single_fits = std::any_of(advice.begin(), advice.end(), [](const MemoryAdvice& a) {
    return a.fits && !a.with_checkpointing;
  });
  CHECK_FALSE(single_fits);
  const bool combo_fits = std::any_of(advice.begin(), advice.end(), [](const MemoryAdvice& a) {
    return a.fits && a.with_checkpointing;
  });
  CHECK(combo_fits);
}
