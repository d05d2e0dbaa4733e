#include <catch2/catch.hpp>

#include "core/test_models.hpp"
#include "gpuplan/memory.hpp"
#include "gpuplan/plan.hpp"

using namespace gpuplan;

namespace {
struct Sheet {
  Gpu small, big;
  Provider p;
  Sheet() {
    small.id = "small";
    small.memory_bytes = 24ull << 30;
    small.dense_tflops[static_cast<int>(PeakPrecision::bf16)] = 150;
    small.interconnect_gbps = 32;
    big.id = "big";
    big.memory_bytes = 80ull << 30;
    big.dense_tflops[static_cast<int>(PeakPrecision::bf16)] = 1000;
    big.interconnect_gbps = 450;
    p.id = "p";
    p.billing_increment_seconds = 1;
    p.offers.resize(3);
    p.offers[0].id = "small-1";
    p.offers[0].gpu = "small";
    p.offers[0].gpus = 1;
    p.offers[0].per_gpu_hour[0] = 0.5;
    p.offers[1].id = "big-1";
    p.offers[1].gpu = "big";
    p.offers[1].gpus = 1;
    p.offers[1].per_gpu_hour[0] = 3.0;
    p.offers[2].id = "big-8";
    p.offers[2].gpu = "big";
    p.offers[2].gpus = 8;
    p.offers[2].per_gpu_hour[0] = 2.5;
  }
  PlanInputs inputs() const {
    PlanInputs in;
    in.model = testing::llama31_8b();
    in.params = count_params(in.model);
    in.base.seq_len = 2048;
    in.tokens = 1e8;
    in.offers = {{&p.offers[0], &p, &small, 1}, {&p.offers[1], &p, &big, 1}, {&p.offers[2], &p, &big, 1}};
    return in;
  }
};
PlanSpace small_space() {
  PlanSpace s;
  s.pricings = {Pricing::on_demand};
  s.nodes = {1, 2};
  return s;
}
}  // namespace

TEST_CASE("the search returns the cheapest fitting configuration, and it really is", "[plan]") {
  const Sheet sheet;
  const PlanInputs in = sheet.inputs();
  const PlanSpace space = small_space();
  const PlanResult r = search_plans(in, space);
  REQUIRE(!r.best.empty());
  const Candidate& best = r.best.front();
  CHECK(best.cost == Approx(r.cheapest->cost));
  for (const auto& c : r.best) CHECK(c.cost >= best.cost);
  for (const auto& c : r.pareto) CHECK(c.cost >= best.cost);
  // The chosen configuration fits its GPU by the memory model itself.
  const Workload w = candidate_workload(in, space, best);
  const Gpu& g = in.offers[static_cast<std::size_t>(best.offer)].gpu->id == "small" ? sheet.small : sheet.big;
  CHECK(estimate_memory(in.model, in.params, w).per_gpu_bytes() <= static_cast<double>(g.memory_bytes));
  CHECK(r.evaluated > 0);
  CHECK(r.considered >= r.evaluated);
}

TEST_CASE("a deadline moves the plan to faster hardware, an impossible one leaves none", "[plan]") {
  const Sheet sheet;
  PlanInputs in = sheet.inputs();
  const PlanSpace space = small_space();
  const PlanResult free = search_plans(in, space);
  REQUIRE(free.fastest);
  // Between the fastest plan and the cheapest one: only faster (dearer) plans qualify.
  REQUIRE(free.fastest->wall_seconds < free.best.front().wall_seconds);
  in.deadline_seconds = (free.fastest->wall_seconds + free.best.front().wall_seconds) / 2;
  const PlanResult tight = search_plans(in, space);
  REQUIRE(!tight.best.empty());
  CHECK(tight.best.front().wall_seconds <= *in.deadline_seconds);
  CHECK(tight.best.front().cost >= free.best.front().cost);
  in.deadline_seconds = free.fastest->wall_seconds / 2;
  CHECK(search_plans(in, space).best.empty());
  in.deadline_seconds.reset();
  in.budget = free.cheapest->cost / 2;
  CHECK(search_plans(in, space).best.empty());
}

TEST_CASE("the global batch is kept: micro-batch x accumulation x GPUs", "[plan]") {
  const Sheet sheet;
  PlanInputs in = sheet.inputs();
  in.global_batch = 32;
  const PlanResult r = search_plans(in, small_space());
  REQUIRE(!r.best.empty());
  for (const auto& c : r.best) CHECK(c.micro_batch * c.grad_accum * c.gpus == 32);
}

TEST_CASE("a method constraint is respected", "[plan]") {
  const Sheet sheet;
  const PlanInputs in = sheet.inputs();
  PlanSpace space = small_space();
  space.methods = {Method::full};
  const PlanResult r = search_plans(in, space);
  REQUIRE(!r.best.empty());
  // 8B full training with AdamW needs ~16 bytes/param: only the 8-GPU node, sharded, fits.
  CHECK(r.best.front().gpus >= 8);
  CHECK(candidate_workload(in, space, r.best.front()).method == Method::full);
}

TEST_CASE("a plan costs what the engine says for its configuration, every term included", "[plan]") {
  Sheet sheet;
  sheet.p.storage_per_gb_month = 0.2;
  sheet.p.egress_per_gb = 0.1;
  PlanInputs in = sheet.inputs();
  in.run.dataset_gb = 5000;  // storage must reach the plan's bill, as it reaches estimate's
  in.run.mfu = 0.3;
  const PlanSpace space = small_space();
  const PlanResult r = search_plans(in, space);
  REQUIRE(!r.best.empty());
  for (const Candidate& c : r.best) {
    const PlanOffer& po = in.offers[static_cast<std::size_t>(c.offer)];
    const OfferEvaluation e = evaluate_candidate(in, space, c);
    REQUIRE(e.cost);
    CHECK(e.cost->total * po.to_display == c.cost);
    CHECK(e.cost->wall_seconds == c.wall_seconds);
    CHECK(e.cost->storage > 0);
    CHECK(e.time.mfu == Approx(0.3).epsilon(0.05));  // exposed collectives come on top of --mfu's compute
  }
  // --mfu moves the plan: a tenth of the utilisation costs more.
  in.run.mfu = 0.03;
  const PlanResult slow = search_plans(in, space);
  REQUIRE(!slow.best.empty());
  CHECK(slow.best.front().cost > r.best.front().cost);
}

TEST_CASE("tensor and pipeline parallelism are searched, the global batch counts data-parallel replicas", "[plan]") {
  const Sheet sheet;
  PlanInputs in = sheet.inputs();
  in.global_batch = 16;
  PlanSpace space = small_space();
  space.methods = {Method::full};
  space.shardings = {Sharding::ddp};  // replicas of 8B full training fit nowhere: only TP/PP can split it
  space.tensor_parallel = {1, 2, 4, 8};
  space.pipeline_parallel = {1, 2};
  const PlanResult r = search_plans(in, space);
  REQUIRE(!r.best.empty());
  for (const Candidate& c : r.best) {
    const Workload w = candidate_workload(in, space, c);
    CHECK(w.tensor_parallel * w.pipeline_parallel > 1);
    CHECK(parallel_layout_problem(in.model, w) == nullptr);
    CHECK(c.micro_batch * c.grad_accum * data_parallel(w) == 16);
    CHECK(w.tensor_parallel <= in.offers[static_cast<std::size_t>(c.offer)].offer->gpus);
  }
  space.tensor_parallel = {1};
  space.pipeline_parallel = {1};
  CHECK(search_plans(in, space).best.empty());
}
