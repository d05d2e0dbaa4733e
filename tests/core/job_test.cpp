#include <catch2/catch.hpp>

#include <algorithm>

#include "gpuplan/job.hpp"
#include "test_models.hpp"

using namespace gpuplan;

namespace {

bool breaks(const std::vector<JobProblem>& ps, JobRule r) {
  return std::any_of(ps.begin(), ps.end(), [&](const JobProblem& p) { return p.rule == r; });
}

}  // namespace

TEST_CASE("a plain job breaks no rule", "[job]") {
  Workload w;
  w.seq_len = 2048;
  CHECK(validate_workload(testing::llama31_8b(), w).empty());
}

TEST_CASE("each rule names its setting and the model's bound", "[job]") {
  const ModelArch m = testing::llama31_8b();
  Workload w;
  w.seq_len = 2048;
  w.gpus = 6;
  w.tensor_parallel = 3;  // divides 6 GPUs but not 32 heads
  auto ps = validate_workload(m, w);
  REQUIRE(breaks(ps, JobRule::tp_divides_heads));
  CHECK(std::string(ps.front().setting) == "tensor_parallel");
  CHECK(ps.front().limit == 32);

  w = Workload{};
  w.seq_len = 200000;
  ps = validate_workload(m, w);
  REQUIRE(breaks(ps, JobRule::seq_beyond_context));
  CHECK_FALSE(ps.front().warning);
  CHECK(ps.front().limit == 131072);
  CHECK(validate_workload(m, w, {true}).front().warning);  // --allow-long-context: priced, with a warning

  w = Workload{};
  w.seq_len = 2048;
  w.gpus = 4;
  w.pipeline_parallel = 33;  // more stages than layers
  CHECK(breaks(validate_workload(m, w), JobRule::pp_range));
  w.pipeline_parallel = 0;  // a zero degree never divides by zero
  CHECK(breaks(validate_workload(m, w), JobRule::pp_range));
  w.pipeline_parallel = 1;
  w.tensor_parallel = 0;
  CHECK(breaks(validate_workload(m, w), JobRule::tp_divides_gpus));
}

TEST_CASE("method rules: QLoRA in 16-bit, pure bf16, quantised bases, offload", "[job]") {
  const ModelArch m = testing::llama31_8b();
  Workload w;
  w.seq_len = 2048;
  w.method = Method::qlora;
  w.precision = Precision::fp32;
  CHECK(breaks(validate_workload(m, w), JobRule::qlora_needs_16bit));
  w = Workload{};
  w.seq_len = 2048;
  w.pure_bf16 = true;
  w.precision = Precision::fp16;
  CHECK(breaks(validate_workload(m, w), JobRule::pure_bf16_needs_bf16));
  w = Workload{};
  w.seq_len = 2048;
  w.weight_format = WeightFormat::nf4;  // full fine-tuning of 4-bit weights
  CHECK(breaks(validate_workload(m, w), JobRule::quant_needs_frozen_base));
  w = Workload{};
  w.seq_len = 2048;
  w.gpus = 2;
  w.offload = Offload::optimizer_params;
  CHECK(breaks(validate_workload(m, w), JobRule::offload_params_needs_shards));
  w.sharding = Sharding::zero3;
  CHECK(validate_workload(m, w).empty());
  w.gpus = 1;
  const auto ps = validate_workload(m, w);
  REQUIRE(breaks(ps, JobRule::shards_nothing));
  CHECK(ps.back().warning);
}
