// Inference against first principles (issue #28): KV bytes per sequence against hand
// computations, tokens/s per replica against the bandwidth bound, and the reproducers
// through the evaluation engine estimate uses. Shipped catalogs: the real models and cards.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <random>

#include "gpuplan/evaluate.hpp"
#include "gpuplan/memory.hpp"
#include "gpuplan/serving.hpp"
#include "gpuplan/step_time.hpp"
#include "io/shipped_catalog.hpp"

using namespace gpuplan;
using gpuplan::testing::shipped_gpu;
using gpuplan::testing::shipped_model;

namespace {

Workload inference(int tp, std::int64_t ctx) {
  Workload w;
  w.method = Method::inference;
  w.precision = Precision::bf16;
  w.tensor_parallel = tp;
  w.gpus = tp;
  w.micro_batch = 1;
  w.seq_len = ctx;
  return w;
}

double kv_per_sequence(const ModelArch& m, int tp, std::int64_t ctx) {
  return estimate_memory(m, inference(tp, ctx))[MemComponent::kv_cache];
}

// An 8-GPU instance at $1/GPU-hour with the card's own links.
Offer node_of(const std::string& gpu, int gpus) {
  Offer o;
  o.id = gpu + "-x" + std::to_string(gpus);
  o.provider = "test";
  o.gpu = gpu;
  o.gpus = gpus;
  o.per_gpu_hour[static_cast<int>(Pricing::on_demand)] = 1.0;
  return o;
}

OfferEvaluation run_inference(const std::string& model, const std::string& gpu, int gpus, std::int64_t batch,
                              std::int64_t ctx, Precision p = Precision::bf16, int tp = 1, int pp = 1) {
  const ModelArch& m = shipped_model(model);
  Workload w = inference(tp, ctx);
  w.precision = p;
  w.pipeline_parallel = pp;
  w.micro_batch = batch;
  w.gpus = gpus;
  RunSpec run;
  run.gpus_fixed = true;
  run.tokens = 1e6;
  const ParamCounts pc = count_params(m);
  return evaluate_offer(m, pc, w, shipped_gpu(gpu), node_of(gpu, gpus), Provider{}, run);
}

// Bytes a decode step must read per generated token at batch b, whole replica: every matmul
// weight a token passes through (the embedding lookup excluded), plus b sequences' KV, over b.
double min_bytes_per_token(const ModelArch& m, double weight_bytes, double batch, double ctx, const Workload& w) {
  const ParamCounts pc = count_params(m);
  const double head = m.tied_embeddings ? static_cast<double>(m.vocab_size) * m.hidden_size : pc.lm_head;
  const double weights = (pc.active - pc.embedding - pc.lm_head + head) * weight_bytes;
  return (weights + batch * kv_cache_values(m, ctx) * kv_cache_element_bytes(w)) / batch;
}

}  // namespace

TEST_CASE("KV bytes per sequence equal a hand computation: GQA, MLA, sliding windows at TP 1-16", "[inference][kv]") {
  for (int tp : {1, 2, 8, 16}) {
    CAPTURE(tp);
    // Llama 3.1 70B: 80 layers x 2 (K, V) x 8 KV heads x 128 x 2 bytes per token; the 8 heads
    // split at most 8 ways (TP 16 keeps a copy of each head on two GPUs).
    const double gqa = 80.0 * 2 * 8 * 128 * 2 * 1000 / std::min(tp, 8);
    CHECK(kv_per_sequence(shipped_model("llama-3.1-70b"), tp, 1000) == Approx(gqa));
    // DeepSeek-V3: 61 layers x (512 latent + 64 rope) x 2 bytes, the same latent on every GPU.
    const double mla = 61.0 * (512 + 64) * 2 * 1000;
    CHECK(kv_per_sequence(shipped_model("deepseek-v3"), tp, 1000) == Approx(mla));
    // Gemma 3 1B at 6,250 tokens: 26 layers, 4 global (every 6th) hold all 6,250 tokens, 22
    // local ones their 512-token window; 1 KV head x 256 x 2 (K, V) x 2 bytes; one head never splits.
    const double gemma3 = (4.0 * 6250 + 22.0 * 512) * 2 * 256 * 2;
    CHECK(kv_per_sequence(shipped_model("gemma-3-1b"), tp, 6250) == Approx(gemma3));
    CHECK(gemma3 == Approx(37134336));  // the 37.1 MB
    // Gemma 3 4B: 34 layers, every 6th global (layers 6-30: 5 of them) holds the whole context,
    // the 29 local ones min(context, 1,024); 4 KV heads x 256 x 2 (K, V) x 2 bytes, heads split
    // at most 4 ways. 4,096 tokens: (5 x 4,096 + 29 x 1,024) x 4,096 B = 205,520,896 B (TP 1).
    const double gemma3_4k = (5.0 * 4096 + 29.0 * 1024) * 2 * 4 * 256 * 2 / std::min(tp, 4);
    CHECK(kv_per_sequence(shipped_model("gemma-3-4b"), tp, 4096) == Approx(gemma3_4k));
    // 32,768 tokens: (5 x 32,768 + 29 x 1,024) x 4,096 B = 792,723,456 B at TP 1, against
    // 34 x 32,768 x 4,096 B = 4,563,402,752 B were every layer global.
    const double gemma3_32k = (5.0 * 32768 + 29.0 * 1024) * 2 * 4 * 256 * 2 / std::min(tp, 4);
    CHECK(kv_per_sequence(shipped_model("gemma-3-4b"), tp, 32768) == Approx(gemma3_32k));
    if (tp == 1) {
      CHECK(gemma3_4k == 205520896.0);
      CHECK(gemma3_32k == 792723456.0);
    }
    // Gemma 2 2B at 8,192: 13 global + 13 local (4,096) layers, 4 KV heads x 256.
    const double gemma2 = (13.0 * 8192 + 13.0 * 4096) * 2 * 4 * 256 * 2 / std::min(tp, 4);
    CHECK(kv_per_sequence(shipped_model("gemma-2-2b"), tp, 8192) == Approx(gemma2));
    // Mistral 7B v0.1: every layer windowed at 4,096.
    const double mistral = 32.0 * 4096 * 2 * 8 * 128 * 2 / std::min(tp, 8);
    CHECK(kv_per_sequence(shipped_model("mistral-7b"), tp, 16384) == Approx(mistral));
  }
}

TEST_CASE("serve's KV per sequence is the memory model's, sliding windows included", "[inference][kv][serving]") {
  const ModelArch& m = shipped_model("gemma-3-1b");
  ServingConfig c;
  c.workload = inference(1, 1);
  ServingRequest r;
  r.prompt_tokens = 6000;
  r.output_tokens = 512;  // held context 6,256 tokens: whole 16-token blocks
  const ReplicaCapacity cap = replica_capacity(m, count_params(m), shipped_gpu("h100-sxm"), c, r);
  CHECK(cap.kv_bytes_per_sequence == Approx((4.0 * 6256 + 22.0 * 512) * 2 * 256 * 2));
}

TEST_CASE("tokens/s per replica never exceed HBM bandwidth over the bytes read per token", "[inference][bound]") {
  std::mt19937 rng(28);
  const std::vector<std::string> models = {"llama-3-8b", "llama-3.1-70b", "mixtral-8x7b", "qwen2.5-7b", "gemma-2-9b", "mistral-7b",
                                           "deepseek-v3", "gemma-3-1b"};
  const std::vector<std::string> gpus = {"h100-sxm", "a100-80gb", "l4", "rtx-4090", "h200"};
  for (int i = 0; i < 300; ++i) {
    const std::string model = models[rng() % models.size()];
    const std::string gpu = gpus[rng() % gpus.size()];
    const int tp = 1 << (rng() % 4), pp = 1 << (rng() % 3);
    const std::int64_t batch = 1 + rng() % 128, ctx = 128 << (rng() % 6);
    CAPTURE(model, gpu, tp, pp, batch, ctx);
    const ModelArch& m = shipped_model(model);
    Workload w = inference(tp, ctx);
    w.pipeline_parallel = pp;
    w.gpus = tp * pp;
    w.micro_batch = batch;
    const Gpu& g = shipped_gpu(gpu);
    const DecodeTime d = estimate_decode(m, count_params(m), w, g);
    if (!(d.tokens_per_second > 0)) continue;
    // Decode sequences sit at half the context on average; MoE bound with active experts only.
    const double bytes = min_bytes_per_token(m, 2.0, static_cast<double>(batch), ctx / 2.0, w);
    const double bound = tp * pp * g.memory_bandwidth_gbps * 1e9 / bytes;
    CHECK(d.tokens_per_second <= bound);
    // A pipeline never makes one stream faster than the same TP without it.
    if (pp > 1 && batch == 1) {
      Workload flat = w;
      flat.pipeline_parallel = 1;
      flat.gpus = tp;
      CHECK(d.tokens_per_second <= estimate_decode(m, count_params(m), flat, g).tokens_per_second);
    }
  }
}

TEST_CASE("issue #28 inference reproducers land within their physical bounds", "[inference][bound]") {
  SECTION("Mixtral 8x7B at batch 1 on 8 L4s: split by TP, never FSDP replicas") {
    const OfferEvaluation e = run_inference("mixtral-8x7b", "l4", 8, 1, 512);
    REQUIRE(e.priced());
    CHECK(e.workload.sharding == Sharding::ddp);
    CHECK(e.workload.tensor_parallel >= 4);
    CHECK(e.resharded);
    const int replicas = inference_replicas(e.workload);
    CHECK(replicas == 8 / e.workload.tensor_parallel);
    const ModelArch& m = shipped_model("mixtral-8x7b");
    const double per_replica = e.time.tokens_per_second / replicas;
    // 8 of 8 experts' weights are not read at batch 1, only the 2 routed: the active bytes.
    const double bound = e.workload.tensor_parallel * shipped_gpu("l4").memory_bandwidth_gbps * 1e9 /
                         min_bytes_per_token(m, 2.0, 1, 256, e.workload);
    CHECK(per_replica <= bound);
    CHECK(e.time.tokens_per_second < 400);  // was 6,034
  }
  SECTION("Llama 3.1 70B at batch 1 on 8 H100s") {
    const OfferEvaluation e = run_inference("llama-3.1-70b", "h100-sxm", 8, 1, 512);
    REQUIRE(e.priced());
    CHECK(e.workload.tensor_parallel >= 2);
    const double per_replica = e.time.tokens_per_second / inference_replicas(e.workload);
    const double bound = e.workload.tensor_parallel * shipped_gpu("h100-sxm").memory_bandwidth_gbps * 1e9 /
                         min_bytes_per_token(shipped_model("llama-3.1-70b"), 2.0, 1, 256, e.workload);
    CHECK(per_replica <= bound);
    CHECK(e.time.tokens_per_second < 300);  // was 929
  }
  SECTION("a pipeline adds stage latency; it never multiplies one stream's speed") {
    // Llama 3 8B fp16 on 8 RTX 4090s, PP 8: one replica, the box's bound 8 x 1008 GB/s / 16 GB.
    const OfferEvaluation e = run_inference("llama-3-8b", "rtx-4090", 8, 1, 256, Precision::fp16, 1, 8);
    REQUIRE(e.priced());
    CHECK(inference_replicas(e.workload) == 1);
    const OfferEvaluation one = run_inference("llama-3-8b", "rtx-4090", 1, 1, 256, Precision::fp16);
    REQUIRE(one.priced());
    CHECK(e.time.tokens_per_second <= one.time.tokens_per_second);
    CHECK(e.time.tokens_per_second < 500);  // was 2,402
    // Llama 3 70B (3.1's shape) fp16 PP 8: llama.cpp measured 6.47 tokens/s on 8 x 4090.
    const OfferEvaluation big = run_inference("llama-3.1-70b", "rtx-4090", 8, 1, 256, Precision::fp16, 1, 8);
    REQUIRE(big.priced());
    CHECK(big.time.tokens_per_second == Approx(6.47).epsilon(0.25));  // was 337
  }
}

// Held out (no constant was set from them): llama.cpp's layer split, which runs the layers of
// each GPU in turn, one pipeline stage per GPU, batch 1. Source: XiongjieDai/
// GPU-Benchmarks-on-LLM-Inference README.md @ 00dd2bdeb2404263f22bd6c1cd46ce397e341db5, LLaMA 3
// NVIDIA table (May 2024), tg 512 (F16 GGUF, modelled as fp16 weights and KV). LLaMA 3 70B is
// modelled with the catalog's Llama 3.1 70B (the same shape).
TEST_CASE("multi-GPU decode against llama.cpp's layer-split runs (held out)", "[inference][measured]") {
  struct Row {
    const char* model;
    const char* gpu;
    int gpus;
    double measured;
  };
  const Row rows[] = {
      {"llama-3-8b", "rtx-4090", 2, 53.64},    {"llama-3-8b", "rtx-4090", 4, 53.10},
      {"llama-3-8b", "rtx-4090", 8, 52.51},    {"llama-3-8b", "rtx-3090", 2, 47.72},
      {"llama-3-8b", "rtx-3090", 4, 47.07},    {"llama-3-8b", "rtx-3090", 6, 46.23},
      {"llama-3.1-70b", "rtx-4090", 8, 6.47},  {"llama-3.1-70b", "rtx-3090", 6, 5.85},
  };
  std::vector<double> errors;
  for (const Row& r : rows) {
    const ModelArch& m = shipped_model(r.model);
    Workload w = inference(1, 512);
    w.precision = Precision::fp16;
    w.pipeline_parallel = r.gpus;
    w.gpus = r.gpus;
    const double est = estimate_decode(m, count_params(m), w, shipped_gpu(r.gpu)).tokens_per_second;
    const double err = est / r.measured - 1;
    errors.push_back(std::abs(err));
    std::printf("| llama.cpp %s F16 tg512, PP %d | %d x %s | %.2f | %.2f | %+.1f%% |\n", r.model, r.gpus, r.gpus, r.gpu, est,
                r.measured, 100 * err);
    CHECK(std::abs(err) <= 0.35);
  }
  CHECK(gpuplan::testing::median(errors) <= 0.20);
}
