#include <catch2/catch.hpp>

#include <cmath>

#include "core/test_models.hpp"
#include "gpuplan/memory.hpp"
#include "gpuplan/serving.hpp"
#include "gpuplan/serving_routes.hpp"
#include "gpuplan/step_time.hpp"
#include "gpuplan/units.hpp"

using namespace gpuplan;

namespace {

// A round-number card: 80 GiB, 3000 GB/s, 1000 TFLOP/s bf16, 400 GB/s links.
Gpu card() {
  Gpu g;
  g.id = "card";
  g.memory_bytes = 80ull << 30;
  g.memory_bandwidth_gbps = 3000;
  g.dense_tflops[static_cast<int>(PeakPrecision::bf16)] = 1000;
  g.dense_tflops[static_cast<int>(PeakPrecision::fp16)] = 1000;
  g.interconnect_gbps = 400;
  return g;
}

ServingConfig config(WeightFormat f = WeightFormat::native) {
  ServingConfig c;
  c.workload.method = Method::inference;
  c.workload.weight_format = f;
  return c;
}

ServingRequest request(double prompt, double output) {
  ServingRequest r;
  r.prompt_tokens = prompt;
  r.output_tokens = output;
  return r;
}

Offer offer(int gpus, double price) {
  Offer o;
  o.id = "o" + std::to_string(gpus);
  o.gpu = "card";
  o.gpus = gpus;
  o.per_gpu_hour[static_cast<int>(Pricing::on_demand)] = price;
  return o;
}

}  // namespace

TEST_CASE("KV capacity is what the memory-utilisation share leaves after weights and workspace", "[serving]") {
  const ModelArch m = testing::llama31_8b();
  const ParamCounts pc = count_params(m);
  const ServingConfig c = config();
  const ServingRequest r = request(512, 256);
  const ReplicaCapacity cap = replica_capacity(m, pc, card(), c, r);
  REQUIRE(cap.fits);
  CHECK(cap.usable_bytes == Approx(0.9 * 80 * kGiB));
  CHECK(cap.weight_bytes == Approx(pc.total() * 2));
  // GQA: 2 x 32 layers x 8 KV heads x 128 x 2 bytes per token.
  CHECK(cap.kv_bytes_per_token == Approx(2.0 * 32 * 8 * 128 * 2));
  CHECK(cap.context_tokens == Approx(512 + 128));  // the mean context while decoding
  CHECK(cap.kv_free_bytes == Approx(cap.usable_bytes - cap.weight_bytes - cap.workspace_bytes));
  CHECK(cap.kv_bound_sequences == static_cast<std::int64_t>(std::floor(cap.kv_free_bytes / cap.kv_bytes_per_sequence)));
  CHECK(cap.max_concurrent_sequences == 256);  // capped at vLLM's max_num_seqs
  CHECK(cap.kv_bound_sequences > 256);

  // An fp8 KV cache holds twice the sequences; a shared prefix stored once holds more.
  ServingConfig fp8 = c;
  fp8.workload.kv_cache_dtype = KvDtype::fp8;
  CHECK(replica_capacity(m, pc, card(), fp8, r).kv_bound_sequences == Approx(2 * cap.kv_bound_sequences).epsilon(0.01));
  ServingRequest shared = r;
  shared.shared_prefix_tokens = 384;
  CHECK(replica_capacity(m, pc, card(), c, shared).kv_bound_sequences > 2 * cap.kv_bound_sequences);

  // vLLM's 0.9 is a knob: less of the card, fewer sequences.
  ServingConfig half = c;
  half.k.memory_utilization = 0.5;
  CHECK(replica_capacity(m, pc, card(), half, r).kv_bound_sequences < cap.kv_bound_sequences);
}

TEST_CASE("a model whose weights leave no KV room does not fit, with the reason", "[serving]") {
  const ModelArch m = testing::llama31_70b();
  Gpu small = card();
  small.memory_bytes = 24ull << 30;
  const ReplicaCapacity cap = replica_capacity(m, count_params(m), small, config(), request(512, 256));
  CHECK_FALSE(cap.fits);
  REQUIRE(cap.shortfall.limit == ServingLimit::does_not_fit);
  CHECK(cap.shortfall.weight_bytes == cap.weight_bytes);
  CHECK(cap.shortfall.usable_bytes == Approx(0.9 * static_cast<double>(small.usable_bytes())));
  CHECK(cap.shortfall.kv_free_bytes < cap.shortfall.sequence_bytes);  // less left than one sequence needs
  CHECK(cap.shortfall.sequence_bytes > 0);
  const ReplicaPlan p = plan_replica(m, count_params(m), small, config(), request(512, 256), {});
  CHECK_FALSE(p.meets_latency);
  CHECK(p.latency_shortfall.limit == ServingLimit::does_not_fit);
}

TEST_CASE("decode is memory-bound at batch 1 and compute-bound past the knee", "[serving]") {
  const ModelArch m = testing::llama31_8b();
  const ParamCounts pc = count_params(m);
  const ServingConfig c = config();
  const Gpu g = card();
  // Batch 1: every matmul weight read once (the embedding table is looked up, not read).
  const double weights = pc.total() * 2 - pc.embedding * 2;
  CHECK(decode_weight_bytes(m, pc, c, 1) == Approx(weights));
  const PassTime one = decode_step(m, pc, g, c, 1, 0);
  CHECK_FALSE(one.compute_bound);
  CHECK(one.memory_seconds == Approx(weights / (3000e9 * 0.75)));
  CHECK(one.seconds == Approx(one.memory_seconds + 0.001));
  // Large batch: 2N FLOPs per sequence at 65% of peak.
  const PassTime big = decode_step(m, pc, g, c, 4096, 0);
  CHECK(big.compute_bound);
  const double n = pc.total() - pc.embedding;
  CHECK(big.compute_seconds == Approx(4096 * 2 * n / (1000e12 * 0.65)));

  const ServingRequest r = request(512, 256);
  const double knee = knee_batch(m, pc, g, c, r);
  CHECK(knee > 1);
  CHECK(knee < 1024);
  const auto points = roofline(m, pc, g, c, r, 1024);
  REQUIRE(points.size() == 11);  // 1, 2, 4, ..., 512, 1024
  CHECK(points.front().batch == 1);
  CHECK(points.back().batch == 1024);
  for (std::size_t i = 1; i < points.size(); ++i) CHECK(points[i].tokens_per_second > points[i - 1].tokens_per_second);
  CHECK_FALSE(points.front().compute_bound);
  CHECK(points.back().compute_bound);
  // Past the knee, throughput flattens: doubling the batch gains far less than 2x.
  CHECK(points.back().tokens_per_second / points[points.size() - 2].tokens_per_second < 1.5);
}

TEST_CASE("quantised weights read fewer bytes, at the dequantising kernels' lower bandwidth", "[serving]") {
  const ModelArch m = testing::llama31_8b();
  const ParamCounts pc = count_params(m);
  const ServingConfig bf16 = config(), int4 = config(WeightFormat::int4_awq);
  const double b16 = decode_weight_bytes(m, pc, bf16, 1), b4 = decode_weight_bytes(m, pc, int4, 1);
  CHECK(b4 < b16 / 2.5);
  const double t16 = decode_step(m, pc, card(), bf16, 1, 0).memory_seconds;
  const double t4 = decode_step(m, pc, card(), int4, 1, 0).memory_seconds;
  CHECK(t4 == Approx(b4 / (3000e9 * 0.75 * 862.69 / 1397.31)));
  CHECK(t4 < t16);
  // fp8 on a card with fp8 tensor cores runs at the fp8 peak and full bandwidth.
  Gpu hopper = card();
  hopper.dense_tflops[static_cast<int>(PeakPrecision::fp8)] = 2000;
  const ServingConfig fp8 = config(WeightFormat::fp8);
  CHECK(serving_peak_tflops(hopper, fp8) == 2000);
  CHECK(serving_peak_tflops(card(), fp8) == 1000);
  CHECK(decode_step(m, pc, hopper, fp8, 1, 0).memory_seconds == Approx(decode_weight_bytes(m, pc, fp8, 1) / (3000e9 * 0.75)));
}

TEST_CASE("prefill is compute-bound: 2N per prompt token plus causal attention", "[serving]") {
  const ModelArch m = testing::llama31_8b();
  const ParamCounts pc = count_params(m);
  const PassTime p = prefill(m, pc, card(), config(), 2048);
  CHECK(p.compute_bound);
  const double n = pc.total() - pc.embedding;
  const double attn = 4.0 * 32 * 32 * 128 * 1024 * 2048;  // each token attends to half the prompt on average
  CHECK(p.compute_seconds == Approx((2 * n * 2048 + attn) / (1000e12 * 0.65)));
  // A cached prefix is not recomputed.
  CHECK(prefill(m, pc, card(), config(), 512, 1, 1536).compute_seconds < p.compute_seconds / 3);
}

TEST_CASE("tensor parallelism splits the work and adds two all-reduces per layer", "[serving]") {
  const ModelArch m = testing::llama31_70b();
  const ParamCounts pc = count_params(m);
  ServingConfig c = config();
  c.workload.tensor_parallel = 4;
  const PassTime t = decode_step(m, pc, card(), c, 1, 0);
  const double bytes = 1.0 * m.hidden_size * 2 * 2.0 * 3 / 4;
  CHECK(t.comm_seconds == Approx(2.0 * m.layers * (20e-6 + bytes / (400e9 * 0.8))));
  CHECK(t.memory_seconds == Approx(decode_weight_bytes(m, pc, c, 1) / (3000e9 * 0.75)));
  CHECK(decode_weight_bytes(m, pc, c, 1) == Approx((pc.total() - pc.embedding) * 2 / 4));
}

TEST_CASE("Erlang C and the M/M/c wait quantile match closed forms", "[serving]") {
  CHECK(erlang_c(1, 0.5) == Approx(0.5));   // one server: P(wait) = utilisation
  CHECK(erlang_c(2, 1.0) == Approx(1.0 / 3));
  CHECK(erlang_c(4, 0) == 0);
  CHECK(erlang_c(4, 4) == 1);
  // One server at 50%: P(W > t) = 0.5 e^{-0.5 t}; the 95th percentile is ln(10)/0.5.
  CHECK(mmc_wait_quantile(1, 0.5, 1.0, 0.95) == Approx(std::log(10.0) / 0.5));
  CHECK(mmc_wait_quantile(100, 1.0, 1.0, 0.95) == 0);  // lightly loaded: nobody waits
  CHECK(std::isinf(mmc_wait_quantile(2, 3.0, 1.0, 0.95)));
}

TEST_CASE("a TPOT target caps the batch, an impossible one is reported", "[serving]") {
  const ModelArch m = testing::llama31_8b();
  const ParamCounts pc = count_params(m);
  const ServingRequest r = request(512, 256);
  const ReplicaPlan free = plan_replica(m, pc, card(), config(), r, {});
  REQUIRE(free.meets_latency);
  CHECK(free.operating_batch == 256);
  LatencyTargets t;
  t.tpot_seconds = 0.5 * (free.tpot_seconds + decode_step(m, pc, card(), config(), 1, 640).seconds);
  const ReplicaPlan capped = plan_replica(m, pc, card(), config(), r, t);
  CHECK(capped.meets_latency);
  CHECK(capped.operating_batch < 256);
  CHECK(capped.tpot_seconds <= *t.tpot_seconds);
  CHECK(capped.max_requests_per_second < free.max_requests_per_second);
  t.tpot_seconds = 0.001;
  const ReplicaPlan impossible = plan_replica(m, pc, card(), config(), r, t);
  CHECK_FALSE(impossible.meets_latency);
  CHECK(impossible.latency_shortfall.limit == ServingLimit::tpot_at_batch_one);
  CHECK(impossible.latency_shortfall.value == Approx(decode_step(m, pc, card(), config(), 1, 640, 2, 256).seconds));
  CHECK(impossible.latency_shortfall.target == 0.001);
  LatencyTargets ttft;
  ttft.ttft_seconds = 0.001;
  const ReplicaPlan slow = plan_replica(m, pc, card(), config(), r, ttft);
  CHECK_FALSE(slow.meets_latency);
  CHECK(slow.latency_shortfall.limit == ServingLimit::ttft_idle);
  CHECK(slow.latency_shortfall.value > 0.001);
  CHECK(slow.latency_shortfall.target == 0.001);
  ttft.tpot_seconds = 0.001;  // both missed: the TPOT is named
  CHECK(plan_replica(m, pc, card(), config(), r, ttft).latency_shortfall.limit == ServingLimit::tpot_at_batch_one);
}

TEST_CASE("a TTFT target limits the traffic one replica takes", "[serving]") {
  const ModelArch m = testing::llama31_8b();
  const ParamCounts pc = count_params(m);
  const ServingConfig c = config();
  const ServingRequest r = request(512, 256);
  const ReplicaPlan loose = plan_replica(m, pc, card(), c, r, {});
  CHECK(loose.max_requests_per_second == Approx(0.9 * loose.capacity_requests_per_second));
  LatencyTargets t;
  t.ttft_seconds = loose.prefill_seconds + 0.5 * loose.tpot_seconds;
  const ReplicaPlan tight = plan_replica(m, pc, card(), c, r, t);
  REQUIRE(tight.meets_latency);
  CHECK(tight.max_requests_per_second < loose.max_requests_per_second);
  CHECK(ttft_quantile(m, pc, card(), c, r, tight, tight.max_requests_per_second) <= *t.ttft_seconds + 1e-9);
}

TEST_CASE("static batching pays for padding and waits for the batch", "[serving]") {
  const ModelArch m = testing::llama31_8b();
  const ParamCounts pc = count_params(m);
  ServingRequest r = request(512, 256);
  r.max_output_tokens = 1024;  // each batch runs until its longest output
  ServingConfig cont = config(), stat = config();
  stat.batching = Batching::static_batch;
  const ReplicaPlan a = plan_replica(m, pc, card(), cont, r, {});
  const ReplicaPlan b = plan_replica(m, pc, card(), stat, r, {});
  REQUIRE(b.capacity.fits);
  CHECK(b.capacity.context_tokens == Approx(512 + 1024));  // reserved for the whole sequence
  CHECK(b.tokens_per_second < a.tokens_per_second / 2);
  CHECK(ttft_quantile(m, pc, card(), stat, r, b, 1.0) > ttft_quantile(m, pc, card(), cont, r, a, 1.0));
}

TEST_CASE("replicas follow the traffic, low traffic pays for idle capacity", "[serving]") {
  const ModelArch m = testing::llama31_8b();
  const ParamCounts pc = count_params(m);
  const ServingConfig c = config();
  const ServingRequest r = request(512, 256);
  const ReplicaPlan p = plan_replica(m, pc, card(), c, r, {});
  Traffic busy{3.5 * p.max_requests_per_second, 1};
  FleetPlan f = plan_fleet(m, pc, card(), p, c, r, busy, {}, {});
  CHECK(f.replicas == 4);
  CHECK(f.replica_hours_per_month == Approx(4 * 730));
  CHECK(f.meets_latency);
  Traffic peaky{busy.mean_requests_per_second, 2};
  CHECK(plan_fleet(m, pc, card(), p, c, r, peaky, {}, {}).replicas == 7);

  Traffic quiet{0.01, 1};
  f = plan_fleet(m, pc, card(), p, c, r, quiet, {}, {});
  CHECK(f.replicas == 1);
  CHECK(f.utilization < 0.01);
  Scaling zero;
  zero.autoscale = true;
  zero.min_replicas = 0;
  zero.cold_start_seconds = 30;
  const FleetPlan z = plan_fleet(m, pc, card(), p, c, r, quiet, zero, {});
  CHECK(z.replica_hours_per_month < f.replica_hours_per_month);
  CHECK(z.cold_start_request_share > 0.05);
  CHECK(z.ttft_seconds > 30);  // more than 5% of requests meet a cold start
  LatencyTargets t;
  t.ttft_seconds = 2.0;
  const FleetPlan cold = plan_fleet(m, pc, card(), p, c, r, quiet, zero, t);
  CHECK_FALSE(cold.meets_latency);
  CHECK(cold.latency_shortfall.limit == ServingLimit::cold_starts);
  CHECK(cold.latency_shortfall.value == cold.cold_start_request_share);
}

TEST_CASE("a replica loaded past the planning cap is named with its utilization and the cap", "[serving]") {
  const ModelArch m = testing::llama31_8b();
  const ParamCounts pc = count_params(m);
  const ServingConfig c = config();
  const ServingRequest r = request(512, 256);
  ReplicaPlan p = plan_replica(m, pc, card(), c, r, {});
  REQUIRE(p.meets_latency);
  // A plan that lets one replica take all it can (past max_utilization): 95% of that is one replica at 95%.
  p.max_requests_per_second = p.capacity_requests_per_second;
  const FleetPlan f = plan_fleet(m, pc, card(), p, c, r, Traffic{0.95 * p.capacity_requests_per_second, 1}, {}, {});
  REQUIRE(f.replicas == 1);
  CHECK_FALSE(f.meets_latency);
  CHECK(f.latency_shortfall.limit == ServingLimit::utilization_cap);
  CHECK(f.latency_shortfall.value == Approx(0.95));
  CHECK(f.latency_shortfall.target == Approx(0.9));
  CHECK(plan_fleet(m, pc, card(), plan_replica(m, pc, card(), c, r, {}), c, r, Traffic{1.0, 1}, {}, {}).latency_shortfall.limit ==
        ServingLimit::none);
}

TEST_CASE("a month of serving is billed in whole instances", "[serving]") {
  const ModelArch m = testing::llama31_8b();
  const ParamCounts pc = count_params(m);
  const ServingConfig c = config();
  const ServingRequest r = request(512, 256);
  const ReplicaPlan p = plan_replica(m, pc, card(), c, r, {});
  const FleetPlan f = plan_fleet(m, pc, card(), p, c, r, Traffic{1.0, 1}, {}, {});
  REQUIRE(f.replicas == 1);
  Provider prov;
  prov.tax_rate = 0.18;
  RunInputs bill;
  const auto one = price_serving(offer(1, 2.0), prov, c, p, f, {}, bill);
  REQUIRE(one);
  CHECK(one->instances == 1);
  CHECK(one->per_month == Approx(2.0 * 730 * 1.18));
  CHECK(one->per_request == Approx(one->per_month / (1.0 * 730 * 3600)));
  CHECK(one->per_million_output_tokens == Approx(one->per_month / (730 * 3600 * 256.0) * 1e6));
  CHECK(one->at_full_load_per_million_output_tokens < one->per_million_output_tokens);
  // One replica on an 8-GPU instance pays for all eight.
  const auto eight = price_serving(offer(8, 2.0), prov, c, p, f, {}, bill);
  REQUIRE(eight);
  CHECK(eight->replicas_per_instance == 8);
  CHECK(eight->per_month == Approx(8 * one->per_month));
  // A replica wider than the instance cannot be placed.
  ServingConfig tp4 = c;
  tp4.workload.tensor_parallel = 4;
  CHECK_FALSE(price_serving(offer(2, 2.0), prov, tp4, p, f, {}, bill));
  // Autoscaling bills the mean traffic's share of replicas, at least the minimum.
  Scaling as;
  as.autoscale = true;
  as.min_replicas = 1;
  const FleetPlan fa = plan_fleet(m, pc, card(), p, c, r, Traffic{0.1, 1}, as, {});
  const auto a = price_serving(offer(1, 2.0), prov, c, p, fa, as, bill);
  REQUIRE(a);
  CHECK(a->per_month == Approx(one->per_month));
}

TEST_CASE("an MoE decode step reads only the experts its batch routes to", "[serving]") {
  ModelArch m = testing::llama31_8b();
  m.experts = 8;
  m.experts_per_token = 2;
  const ParamCounts pc = count_params(m);
  const ServingConfig c = config();
  const double one = decode_weight_bytes(m, pc, c, 1), many = decode_weight_bytes(m, pc, c, 64);
  CHECK(one < many);
  CHECK(many == Approx(pc.total() * 2 - pc.embedding * 2).epsilon(1e-6));
  CHECK(one == Approx(pc.total() * 2 - pc.embedding * 2 - pc.mlp * 2 * 0.75));
}

TEST_CASE("scale to zero bills on-periods, a big instance is up whenever its one replica is", "[serving]") {
  const ModelArch m = testing::llama31_8b();
  const ParamCounts pc = count_params(m);
  const ServingConfig c = config();
  const ServingRequest r = request(512, 256);
  const ReplicaPlan p = plan_replica(m, pc, card(), c, r, {});
  Scaling zero;
  zero.autoscale = true;
  zero.min_replicas = 0;
  zero.cold_start_seconds = 30;
  const FleetPlan f = plan_fleet(m, pc, card(), p, c, r, Traffic{0.001, 1}, zero, {});
  REQUIRE(f.launches_per_month > 0);
  Provider per_second;
  RunInputs bill;
  const auto one = price_serving(offer(1, 2.0), per_second, c, p, f, zero, bill);
  const auto eight = price_serving(offer(8, 2.0), per_second, c, p, f, zero, bill);
  REQUIRE(one);
  REQUIRE(eight);
  CHECK(one->per_month == Approx(2.0 * f.replica_hours_per_month).epsilon(0.01));
  CHECK(eight->per_month == Approx(8 * one->per_month).epsilon(0.01));
  // Hourly billing rounds every launch up to an hour.
  Provider hourly;
  hourly.billing_increment_seconds = 3600;
  const auto h = price_serving(offer(1, 2.0), hourly, c, p, f, zero, bill);
  REQUIRE(h);
  CHECK(h->per_month == Approx(2.0 * f.launches_per_month).epsilon(0.01));
  CHECK(h->per_month > 5 * one->per_month);
}

TEST_CASE("traffic beyond any sane fleet is refused, never priced at over 100% utilisation", "[serving][overload]") {
  const ModelArch m = testing::llama31_8b();
  const ParamCounts pc = count_params(m);
  const ServingConfig c = config();
  const ServingRequest r = request(512, 256);
  const ReplicaPlan p = plan_replica(m, pc, card(), c, r, {});
  REQUIRE(p.max_requests_per_second > 0);
  // Ten million requests a second needs millions of replicas: past the 100,000-GPU limit.
  const FleetPlan f = plan_fleet(m, pc, card(), p, c, r, Traffic{1e7, 1}, {}, {});
  CHECK_FALSE(f.meets_latency);
  CHECK(f.utilization <= c.k.max_utilization + 1e-9);
  CHECK(f.beyond_limit);
  CHECK(f.replicas == 0);
  CHECK(f.replicas_needed == Approx(std::ceil(1e7 / p.max_requests_per_second)));
  CHECK(f.latency_shortfall.limit == ServingLimit::beyond_fleet);
  CHECK(f.latency_shortfall.value == f.replicas_needed);
  CHECK(f.latency_shortfall.target == 100000);
  CHECK(f.latency_shortfall.gpus_per_replica == 1);
  Provider prov;
  CHECK_FALSE(price_serving(offer(8, 2.0), prov, c, p, f, {}, RunInputs{}));
  // Just inside the limit: priced, and the GPU count is exact (no 32-bit overflow).
  ServingConfig wide = c;
  wide.k.max_fleet_gpus = 1e6;
  const double rps = 2e5 * p.max_requests_per_second;  // 200,000 replicas
  const FleetPlan big = plan_fleet(m, pc, card(), p, wide, r, Traffic{rps, 1}, {}, {});
  REQUIRE_FALSE(big.beyond_limit);
  CHECK(big.replicas == 200000);
  CHECK(big.utilization <= c.k.max_utilization + 1e-9);
  Offer o = offer(8, 2.0);
  const auto cost = price_serving(o, prov, wide, p, big, {}, RunInputs{});
  REQUIRE(cost);
  CHECK(cost->gpus_billed == 200000);
}

TEST_CASE("serve's offer search picks the tensor-parallel degree and explains exclusions", "[serving][overload]") {
  const ModelArch m = testing::llama31_8b();
  Provider prov;
  prov.id = "p";
  prov.currency = "USD";
  Offer o1 = offer(1, 2.0), o8 = offer(8, 2.0);
  o1.provider = o8.provider = "p";
  const Gpu g = card();
  ServingJob j{.model = m,
               .params = count_params(m),
               .cfg = config(),
               .req = request(512, 256),
               .targets = {},
               .traffic = Traffic{1.0, 1},
               .scaling = {},
               .bill = RunInputs{},
               .tensor_parallel = 0,
               .cold_start_seconds = std::nullopt,
               .node_shape = {}};
  ServingSearch s = search_serving(j, {{&prov, &o1, &g, 1.0}, {&prov, &o8, &g, 2.0}});
  REQUIRE(s.options.size() == 2);
  CHECK(s.options.front().where.offer == &o1);  // one GPU at 2.00/h beats eight converted at 2x
  CHECK(s.options.front().tp == 1);
  CHECK(s.options.back().cost.per_month == Approx(2.0 * 8 * s.options.front().cost.per_month));
  CHECK_FALSE(s.roofline.empty());
  // Overload: every offer excluded with the fleet limit named.
  j.traffic.mean_requests_per_second = 1e7;
  s = search_serving(j, {{&prov, &o1, &g, 1.0}});
  CHECK(s.options.empty());
  REQUIRE(s.excluded.size() == 1);
  CHECK(s.excluded.front().refusal == ServingRefusal::beyond_fleet);  // what serve's "no answer" note goes by
  CHECK(s.excluded.front().shortfall.limit == ServingLimit::beyond_fleet);
  CHECK(s.excluded.front().where.offer == &o1);
  // A replica of two GPUs asked of a one-GPU instance (no stated node shape): the node is too
  // small, and the refusal carries the degree and the node's width for its words.
  j.traffic.mean_requests_per_second = 1.0;
  j.tensor_parallel = 2;
  s = search_serving(j, {{&prov, &o1, &g, 1.0}});
  REQUIRE(s.excluded.size() == 1);
  const ServingExclusion& small = s.excluded.front();
  CHECK(small.refusal == ServingRefusal::node_too_small);
  CHECK(small.tp == 2);
  CHECK(small.gpus_per_node == 1);
  CHECK_FALSE(small.stated_node);
  // The eight-GPU instance holds that replica.
  s = search_serving(j, {{&prov, &o8, &g, 1.0}});
  REQUIRE(s.options.size() == 1);
  CHECK(s.options.front().tp == 2);
}

TEST_CASE("estimate's decode speed is serve's: one pass model", "[serving][time]") {
  const ModelArch m = testing::llama31_8b();
  const ParamCounts pc = count_params(m);
  for (WeightFormat f : {WeightFormat::native, WeightFormat::int4_gptq}) {
    for (std::int64_t batch : {1, 8, 64}) {
      for (int tp : {1, 2}) {
        Workload w;
        w.method = Method::inference;
        w.weight_format = f;
        w.micro_batch = batch;
        w.seq_len = 1024;
        w.tensor_parallel = tp;
        w.gpus = tp;
        ServingConfig c;
        c.workload = w;
        const PassTime step = decode_step(m, pc, card(), c, static_cast<double>(batch), 512);
        const DecodeTime d = estimate_decode(m, pc, w, card());
        CHECK(d.step_seconds == Approx(step.seconds).epsilon(1e-12));
        CHECK(d.tokens_per_second == Approx(batch / step.seconds).epsilon(1e-12));
        CHECK(d.prefill_tokens_per_second == Approx(batch * 1024 / prefill(m, pc, card(), c, 1024, batch).seconds));
      }
    }
  }
}

TEST_CASE("a route's answer is its first option meeting the targets, and routes together sum money over summed traffic", "[serving]") {
  ServingSearch s;
  CHECK(best_serving_option(s) == nullptr);
  s.options.resize(3);
  s.options[0].cost.per_month = 100;  // cheaper, but misses the latency target
  s.options[1].fleet.meets_latency = true;
  s.options[1].cost.per_month = 300;
  s.options[1].fleet.output_tokens_per_month = 1e8;
  s.options[1].fleet.requests_per_month = 1e5;
  s.options[2].fleet.meets_latency = true;
  s.options[2].cost.per_month = 900;
  s.options[2].fleet.output_tokens_per_month = 2e8;
  s.options[2].fleet.requests_per_month = 5e5;
  CHECK(best_serving_option(s) == &s.options[1]);

  // 1200 a month over 3e8 tokens (4 per 1M) and 6e5 requests (0.002 each).
  const auto both = routed_serving_cost({&s.options[1], &s.options[2]});
  REQUIRE(both);
  CHECK(both->per_month == Approx(1200));
  CHECK(both->per_million_output_tokens == Approx(4));
  CHECK(both->per_request == Approx(0.002));
  CHECK_FALSE(routed_serving_cost({&s.options[1], nullptr}));  // a route without an answer: no total
  const auto idle = routed_serving_cost({&s.options[0]});     // no traffic: per-unit costs 0, not NaN
  REQUIRE(idle);
  CHECK(idle->per_month == 100);
  CHECK(idle->per_million_output_tokens == 0);
  CHECK(idle->per_request == 0);
}
