// The time model on DeepSeek-V3 and Qwen3-MoE: active parameters per token count the dense
// first layers and the shared expert, as the published "activated" figures do; FLOPs, expert
// all-to-alls and decode reads follow from them. Published figures are rounded down to their
// stated digits (671B, 37B; 30.5B, 3.3B; 235B, 22B), so each check is: published <= ours <
// published + one unit of its last digit.
#include <catch2/catch.hpp>

#include "gpuplan/memory.hpp"
#include "gpuplan/model.hpp"
#include "gpuplan/serving.hpp"
#include "gpuplan/step_time.hpp"
#include "io/shipped_catalog.hpp"

using namespace gpuplan;
using testing::shipped_model;

TEST_CASE("active parameters per token match the published activated counts", "[model][current][moe]") {
  // DeepSeek-V3: 671,026,419,200 less 58 MoE layers x 248 idle routed experts x 3 x 7168 x 2048
  // (44,040,192 each) = 37,552,297,472: dense layers, the shared expert and 8 routed experts
  // count. DeepSeek: "671B total parameters with 37B activated for each token".
  const ParamCounts ds = count_params(shipped_model("deepseek-v3"));
  CHECK(ds.active == 37552297472.0);
  CHECK(ds.active >= 37e9);
  CHECK(ds.active < 38e9);
  // Leaving out the 3 dense layers' width or the shared expert would miss the figure.
  CHECK(ds.routed_experts == 58.0 * 256 * 44040192);
  // Qwen3-30B-A3B: 30,532,122,624 less 48 x 120 idle experts x 3 x 2048 x 768 = 3,353,032,704.
  // Qwen: "30.5B in total and 3.3B activated".
  const ParamCounts q = count_params(shipped_model("qwen3-30b-a3b"));
  CHECK(q.active == 3353032704.0);
  CHECK(q.active >= 3.3e9);
  CHECK(q.active < 3.4e9);
  // Qwen3-235B-A22B: 235,093,634,560 less 94 x 120 x 3 x 4096 x 1536 = 22,190,763,520 ("22B activated").
  const ParamCounts big = count_params(shipped_model("qwen3-235b-a22b"));
  CHECK(big.active == 22190763520.0);
  CHECK(big.active >= 22e9);
  CHECK(big.active < 23e9);
}

TEST_CASE("training FLOPs per token: 6 x active matmul parameters plus MLA's attention", "[step_time][current][moe]") {
  const ModelArch& m = shipped_model("deepseek-v3");
  const ParamCounts pc = count_params(m);
  Workload w;
  w.method = Method::full;
  w.seq_len = 4096;
  // Matmul parameters: 37,552,297,472 active less the 926,679,040-entry embedding lookup =
  // 36,625,618,432. Attention multiply-adds: 61 layers x 128 heads x (192 query-key + 128 value)
  // x 4096 = 10,234,101,760. 6 x (36,625,618,432 + 10,234,101,760) = 281,158,321,152.
  CHECK(attention_macs_per_token(m, 4096) == 10234101760.0);
  CHECK(training_flops_per_token(m, pc, w).model == Approx(281158321152.0).epsilon(1e-12));
}

TEST_CASE("a decode step reads the dense layers and shared experts whole", "[serving][current][moe]") {
  const ModelArch& m = shipped_model("deepseek-v3");
  const ParamCounts pc = count_params(m);
  ServingConfig c;
  c.workload.method = Method::inference;
  // Batch 1 in bf16: every weight but the embedding table, less the 248/256 of the routed
  // experts (653,908,770,816 parameters) a token does not reach:
  // 2 x (671,026,419,200 - 926,679,040 - 653,908,770,816 x 248/256) = 73,251,236,864 bytes.
  CHECK(decode_weight_bytes(m, pc, c, 1) == Approx(73251236864.0).epsilon(1e-9));
}
