#include <catch2/catch.hpp>

#include <cmath>

#include "core/test_models.hpp"
#include "gpuplan/evaluate.hpp"

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
  CHECK(one.excluded == Exclusion::does_not_fit);
  CHECK(one.per_gpu_bytes > one.capacity_bytes);
  const OfferEvaluation eight = evaluate_offer(m, pc, w, gpu80(), node(8, 2), p, run);
  CHECK(eight.fits);
  CHECK(eight.workload.gpus == 8);
  CHECK(eight.workload.sharding == Sharding::fsdp);
  CHECK(eight.resharded);
  CHECK_FALSE(one.resharded);
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
  const OfferEvaluation spot = evaluate_offer(m, pc, w, gpu80(), node(1, 2.0), p, run);
  CHECK(spot.excluded == Exclusion::no_price);
  run.bill.pricing = Pricing::on_demand;
  w.precision = Precision::fp8;
  const OfferEvaluation fp8 = evaluate_offer(m, pc, w, gpu80(), node(1, 2.0), p, run);
  CHECK(fp8.excluded == Exclusion::no_precision);
}

TEST_CASE("every term of the run reaches the bill: storage, egress, --mfu", "[offer]") {
  const ModelArch m = testing::llama31_8b();
  const ParamCounts pc = count_params(m);
  Workload w;
  w.method = Method::lora;
  Provider p;
  p.storage_per_gb_month = 0.1;
  p.egress_per_gb = 0.09;
  RunSpec run;
  run.tokens = 1e9;
  const OfferEvaluation base = evaluate_offer(m, pc, w, gpu80(), node(1, 2.0), p, run);
  REQUIRE(base.cost);
  run.dataset_gb = 5000;
  const OfferEvaluation big_data = evaluate_offer(m, pc, w, gpu80(), node(1, 2.0), p, run);
  CHECK(big_data.cost->storage > base.cost->storage);
  CHECK(big_data.cost->total > base.cost->total);
  run.mfu = 0.10;
  const OfferEvaluation slow = evaluate_offer(m, pc, w, gpu80(), node(1, 2.0), p, run);
  run.mfu = 0.90;
  const OfferEvaluation fast = evaluate_offer(m, pc, w, gpu80(), node(1, 2.0), p, run);
  CHECK(slow.time.mfu == Approx(0.10));
  CHECK(fast.time.mfu == Approx(0.90).epsilon(0.05));
  CHECK(slow.cost->wall_seconds > 5 * fast.cost->wall_seconds);
}

TEST_CASE("the prepared path and the one-call path give identical numbers", "[offer]") {
  const ModelArch m = testing::llama31_8b();
  const ParamCounts pc = count_params(m);
  Workload w;
  w.method = Method::qlora;
  w.weight_format = WeightFormat::nf4;
  w.gpus = 2;
  Provider p;
  p.storage_per_gb_month = 0.1;
  RunSpec run;
  run.tokens = 3e8;
  run.gpus_fixed = true;
  run.dataset_gb = 40;
  run.mfu = 0.4;
  const OfferEvaluation a = evaluate_offer(m, pc, w, gpu80(), node(2, 1.5), p, run);
  const PreparedJob j = prepare_job(m, pc, w, run, run.grad_accum);
  OfferEvaluation b;
  evaluate_prepared(j, gpu80(), node(2, 1.5), p, run.bill.pricing, b);
  REQUIRE(a.cost);
  REQUIRE(b.cost);
  CHECK(a.cost->total == b.cost->total);
  CHECK(a.cost->wall_seconds == b.cost->wall_seconds);
  CHECK(a.per_gpu_bytes == b.per_gpu_bytes);
}

TEST_CASE("slow storage bounds the run: the step, the wall time and the cost stretch", "[offer][pipeline]") {
  const ModelArch m = testing::llama31_8b();
  const ParamCounts pc = count_params(m);
  Workload w;
  w.method = Method::lora;
  w.micro_batch = 4;
  const Provider p;
  RunSpec run;
  run.tokens = 1e9;
  const OfferEvaluation fast = evaluate_offer(m, pc, w, gpu80(), node(1, 2.0), p, run);
  REQUIRE(fast.pipeline);
  CHECK(fast.pipeline->bound == PipelineBound::none);
  // Storage at a quarter of what the GPUs read: 4x the step, the wall time and the compute bill.
  run.pipeline.storage_bytes_per_second = fast.pipeline->storage_bytes_per_second / 4;
  const OfferEvaluation slow = evaluate_offer(m, pc, w, gpu80(), node(1, 2.0), p, run);
  REQUIRE(slow.pipeline);
  CHECK(slow.pipeline->bound == PipelineBound::storage);
  CHECK(slow.pipeline->slowdown == Approx(4));
  CHECK(slow.time.step_seconds == Approx(4 * fast.time.step_seconds));
  REQUIRE(slow.cost);
  CHECK(slow.cost->wall_seconds == Approx(4 * fast.cost->wall_seconds).epsilon(0.01));
  CHECK(slow.cost->compute > 3.9 * fast.cost->compute);
  // Inference has no training data to read.
  w.method = Method::inference;
  CHECK_FALSE(evaluate_offer(m, pc, w, gpu80(), node(1, 2.0), p, run).pipeline);
}
