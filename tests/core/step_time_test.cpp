#include <catch2/catch.hpp>

#include "core/test_models.hpp"
#include "gpuplan/step_time.hpp"

using namespace gpuplan;

namespace {
Gpu test_gpu() {
  Gpu g;
  g.id = "test";
  g.dense_tflops[static_cast<int>(PeakPrecision::bf16)] = 1000;
  g.memory_bandwidth_gbps = 3000;
  g.interconnect_gbps = 400;
  return g;
}
}  // namespace

TEST_CASE("training FLOPs follow 6N + attention, and recomputation adds a forward", "[time]") {
  const ModelArch m = testing::llama31_8b();
  const ParamCounts pc = count_params(m);
  Workload w;
  w.seq_len = 2048;
  const double attn = 12.0 * 32 * 32 * 128 * 2048;
  const double n = pc.total() - pc.embedding;  // untied: the head multiplies, the lookup does not
  TokenFlops f = training_flops_per_token(m, pc, w);
  CHECK(f.model == Approx(6 * n + attn));
  CHECK(f.hardware == Approx(f.model));
  w.checkpointing = Checkpointing::full;
  f = training_flops_per_token(m, pc, w);
  CHECK(f.hardware == Approx(8 * n + attn * 4 / 3));
  w.checkpointing = Checkpointing::none;
  w.method = Method::lora;
  CHECK(training_flops_per_token(m, pc, w).model == Approx(4 * n + attn));
}

TEST_CASE("one GPU's step time is FLOPs over peak x utilisation", "[time]") {
  const ModelArch m = testing::llama31_8b();
  const ParamCounts pc = count_params(m);
  Workload w;
  w.micro_batch = 4;
  w.seq_len = 1024;
  TimeConstants k;
  k.hfu = 0.5;
  const StepTime t = estimate_step_time(m, pc, w, 2, test_gpu(), Links{}, k);
  const double flops = 2 * 4 * 1024 * training_flops_per_token(m, pc, w).hardware;
  CHECK(t.step_seconds == Approx(flops / (1000e12 * 0.5)));
  CHECK(t.tokens_per_step == 2 * 4 * 1024);
  CHECK(t.mfu == Approx(0.5));
  CHECK(t.scaling_efficiency == 1);
}

TEST_CASE("data parallelism pays for its collectives on slow links", "[time]") {
  const ModelArch m = testing::llama31_8b();
  const ParamCounts pc = count_params(m);
  Workload w;
  w.micro_batch = 1;
  w.seq_len = 2048;
  w.gpus = 16;
  Links nvlink{8, 400, 400};
  Links ethernet{8, 400, 1.25};
  const StepTime fast = estimate_step_time(m, pc, w, 1, test_gpu(), nvlink);
  const StepTime slow = estimate_step_time(m, pc, w, 1, test_gpu(), ethernet);
  CHECK(slow.comm_seconds > 100 * fast.comm_seconds);
  CHECK(slow.scaling_efficiency < 0.2);
  CHECK(fast.scaling_efficiency > slow.scaling_efficiency);
  // Ring all-reduce moves 2(N-1)/N of the bf16 gradients over each node's NICs.
  const double grads = pc.total() * 2;
  CHECK(slow.comm_seconds == Approx(2 * 15.0 / 16 * grads / (1.25e9 * 0.8)));
  // FSDP also gathers parameters for every micro-batch: more traffic than DDP.
  w.sharding = Sharding::fsdp;
  CHECK(estimate_step_time(m, pc, w, 4, test_gpu(), nvlink).comm_seconds > fast.comm_seconds);
}

TEST_CASE("decode at batch 1 is bound by reading the weights", "[time]") {
  const ModelArch m = testing::llama31_8b();
  const ParamCounts pc = count_params(m);
  Workload w;
  w.method = Method::inference;
  w.micro_batch = 1;
  w.seq_len = 128;
  TimeConstants k;
  const DecodeTime d = estimate_decode(m, pc, w, test_gpu(), k);
  const double weights = (pc.total() - pc.embedding) * 2;  // the untied embedding is only looked up
  CHECK(d.tokens_per_second == Approx(3000e9 * k.bandwidth_efficiency / weights).epsilon(0.02));
  w.weight_format = WeightFormat::int4_gptq;
  // A quarter of the bytes, read at the dequantising kernels' lower bandwidth.
  CHECK(estimate_decode(m, pc, w, test_gpu(), k).tokens_per_second > 1.5 * d.tokens_per_second);
}
