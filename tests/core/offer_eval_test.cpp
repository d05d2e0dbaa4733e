#include <catch2/catch.hpp>

#include <cmath>

#include "core/test_models.hpp"
#include "gpuplan/offer_eval.hpp"

using namespace gpuplan;

namespace {
Gpu gpu80() {
  Gpu g;
  g.id = "g80";
  g.memory_bytes = 80ull << 30;
  g.dense_tflops[static_cast<int>(PeakPrecision::bf16)] = 1000;
  g.memory_bandwidth_gbps = 3000;
  g.interconnect_gbps = 400;
  return g;
}
Offer node(int gpus, double price) {
  Offer o;
  o.id = "n" + std::to_string(gpus);
  o.gpu = "g80";
  o.gpus = gpus;
  o.per_gpu_hour[static_cast<int>(Pricing::on_demand)] = price;
  return o;
}
}  // namespace

TEST_CASE("an 8-GPU instance shards a job whose replicas do not fit", "[offer]") {
  const ModelArch m = testing::llama31_8b();
  const ParamCounts pc = count_params(m);
  Workload w;  // full fine-tune, mixed-precision AdamW: 16 bytes/param, ~120 GiB replicated
  w.checkpointing = Checkpointing::full;
  Provider p;
  RunSpec run;
  const OfferEvaluation one = evaluate_offer(m, pc, w, gpu80(), node(1, 2), p, run);
  CHECK_FALSE(one.fits);
  CHECK(one.excluded.find("GiB per GPU") != std::string::npos);
  const OfferEvaluation eight = evaluate_offer(m, pc, w, gpu80(), node(8, 2), p, run);
  CHECK(eight.fits);
  CHECK(eight.workload.gpus == 8);
  CHECK(eight.workload.sharding == Sharding::fsdp);
}

TEST_CASE("without a run size, costs come from the hourly rate", "[offer]") {
  const ModelArch m = testing::llama31_8b();
  const ParamCounts pc = count_params(m);
  Workload w;
  w.method = Method::qlora;
  Provider p;
  p.tax_rate = 0.18;
  RunSpec run;
  const OfferEvaluation e = evaluate_offer(m, pc, w, gpu80(), node(1, 2.0), p, run);
  REQUIRE(e.fits);
  CHECK_FALSE(e.cost);
  CHECK(e.rate_per_hour == Approx(2.0 * 1.18));
  CHECK(e.per_step == Approx(e.rate_per_hour * e.time.step_seconds / 3600));
  CHECK(e.per_million_tokens == Approx(e.per_step / e.time.tokens_per_step * 1e6));
}

TEST_CASE("a run size gives steps, a bill and a checkpoint to store", "[offer]") {
  const ModelArch m = testing::llama31_8b();
  const ParamCounts pc = count_params(m);
  Workload w;
  w.method = Method::lora;
  w.micro_batch = 4;
  Provider p;
  p.storage_per_gb_month = 0.1;
  RunSpec run;
  run.tokens = 1e9;
  run.grad_accum = 2;
  const OfferEvaluation e = evaluate_offer(m, pc, w, gpu80(), node(1, 2.0), p, run);
  REQUIRE(e.cost);
  CHECK(e.steps == Approx(std::ceil(1e9 / (4 * 2048 * 2))));
  CHECK(e.cost->wall_seconds == Approx(e.steps * e.time.step_seconds).epsilon(0.001));
  // LoRA checkpoints hold the fp32 adapters and their AdamW moments: 12 bytes per adapter param.
  CHECK(e.checkpoint_bytes == Approx(e.workload.method == Method::lora ? trainable_params(m, pc, w) * 12 : 0));
  CHECK(e.cost->storage > 0);
  // Padding waste: half the tokens useful means twice the steps.
  run.padding_efficiency = 0.5;
  CHECK(evaluate_offer(m, pc, w, gpu80(), node(1, 2.0), p, run).steps == std::ceil(1e9 / (4 * 2048 * 2 * 0.5)));
}

TEST_CASE("offers without the pricing or the precision are excluded with a reason", "[offer]") {
  const ModelArch m = testing::llama31_8b();
  const ParamCounts pc = count_params(m);
  Workload w;
  w.method = Method::qlora;
  Provider p;
  RunSpec run;
  run.bill.pricing = Pricing::spot;
  CHECK(evaluate_offer(m, pc, w, gpu80(), node(1, 2.0), p, run).excluded == "no spot price");
  run.bill.pricing = Pricing::on_demand;
  w.precision = Precision::fp8;
  CHECK(evaluate_offer(m, pc, w, gpu80(), node(1, 2.0), p, run).excluded.find("no fp8") != std::string::npos);
}
