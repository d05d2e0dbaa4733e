// Current open models (issue 22): exact parameter counts from the architecture, the features
// they need in the KV cache, and instruct/chat names resolving to their base.
#include <catch2/catch.hpp>

#include <cstdint>
#include <fstream>
#include <sstream>

#include "gpuplan/model.hpp"
#include "gpuplan/name_match.hpp"
#include "io/shipped_catalog.hpp"

using namespace gpuplan;
using testing::shipped;
using testing::shipped_model;

TEST_CASE("every new model counts to its exact published total", "[model][current]") {
  // Published totals (data/models/current.yaml names each source).
  const std::pair<const char*, std::int64_t> published[] = {
      {"llama-3.3-70b", 70553706496},     {"qwen3-8b", 8190735360},      {"qwen3-30b-a3b", 30532122624},
      {"qwen3-235b-a22b", 235093634560},  {"gemma-3-1b", 999885952},     {"mistral-small-3-24b", 23572403200},
      {"deepseek-v3", 671026419200},      {"deepseek-r1", 671026419200}, {"phi-4", 14659507200},
      {"sarvam-m", 23572403200},          {"gemma-3-4b", 3880263168},    {"gemma-3-12b", 11766034176},
      {"gemma-3-27b", 27009346304},
  };
  for (const auto& [id, total] : published) {
    INFO(id);
    const ModelArch& m = shipped_model(id);
    CHECK(m.published_params == total);
    CHECK(count_params(m).total() == static_cast<double>(total));
  }
}

TEST_CASE("each architecture feature changes the count as the checkpoint's tensors do", "[model][current]") {
  // Qwen3-8B by hand: per layer q/k/v/o 41,943,040 + q_norm/k_norm 2 x 128 + MLP 150,994,944 +
  // 2 norms 8,192 = 192,946,432; x 36 + 2 x 151,936 x 4,096 + 4,096 = 8,190,735,360.
  ModelArch q = shipped_model("qwen3-8b");
  const double with_norm = count_params(q).total();
  q.qk_norm = false;
  CHECK(with_norm - count_params(q).total() == 36.0 * 2 * 128);

  // DeepSeek-V3: 3 dense layers (18,432 wide), 58 MoE layers of 256 routed + 1 shared expert,
  // a 256-wide gate bias per MoE layer, MLA projections. Active = all but 248 routed experts.
  const ModelArch& ds = shipped_model("deepseek-v3");
  const ParamCounts c = count_params(ds);
  const double expert = 3.0 * 7168 * 2048;
  CHECK(c.router == 58.0 * (7168 * 256 + 256));
  CHECK(c.mlp == 3.0 * 3 * 7168 * 18432 + 58.0 * 257 * expert);
  // MLA per layer: q_a 7168x1536 + q_b 1536x(128x192) + kv_a 7168x576 + kv_b 512x(128x256) + o 16384x7168.
  CHECK(c.attention == 61.0 * (7168.0 * 1536 + 1536.0 * 128 * 192 + 7168.0 * 576 + 512.0 * 128 * 256 + 128.0 * 128 * 7168));
  CHECK(c.active == Approx(c.total() - 58.0 * (256 - 8) * expert));
  CHECK(c.active / 1e9 == Approx(37.55).epsilon(0.001));  // DeepSeek: "37B activated"
}

TEST_CASE("KV cache: MLA keeps the latent, sliding windows keep the window", "[model][current][memory]") {
  // DeepSeek-V3 caches kv_lora_rank + qk_rope_head_dim = 576 values per token and layer.
  const ModelArch& ds = shipped_model("deepseek-v3");
  CHECK(kv_cache_values(ds, 1000) == 61.0 * 576 * 1000);
  // Gemma 3 1B: 26 layers, every 6th global (4 of them), the rest keep 512 tokens; 1 kv head x 256.
  const ModelArch& g = shipped_model("gemma-3-1b");
  CHECK(kv_cache_values(g, 32768) == 2.0 * 256 * (4 * 32768.0 + 22 * 512.0));
  CHECK(kv_cache_values(g, 100) == 2.0 * 256 * 26 * 100);  // shorter than the window: all layers keep all
  // A dense GQA model is unchanged: 2 x kv_heads x head_dim per token and layer.
  const ModelArch& llama = shipped_model("llama-3.3-70b");
  CHECK(kv_cache_values(llama, 4096) == 2.0 * 8 * 128 * 80 * 4096);
}

TEST_CASE("instruct and chat names resolve to their base model", "[model][names]") {
  CHECK(base_model_name("Meta-Llama-3.1-8B-Instruct") == "llama-3.1-8b");
  CHECK(base_model_name("meta-llama/Llama-3.2-3B-Instruct") == "llama-3.2-3b");
  CHECK(base_model_name("Qwen/Qwen3-30B-A3B-Instruct-2507") == "qwen3-30b-a3b");
  CHECK(base_model_name("gemma-3-1b-it") == "gemma-3-1b");
  CHECK(shipped().find_model("google/gemma-3-27b-it").found->id == "gemma-3-27b");
  CHECK(shipped().find_model("gemma3:4b").found->id == "gemma-3-4b");
  CHECK(base_model_name("Llama-2-7b-chat-hf") == "llama-2-7b");
  const auto hit = shipped().find_model("Meta-Llama-3.1-8B-Instruct");
  REQUIRE(hit.found);
  CHECK(hit.found->id == "llama-3.1-8b");
  CHECK(shipped().find_model("mistralai/Mistral-Small-24B-Instruct-2501").found->id == "mistral-small-3-24b");
  CHECK(shipped().find_model("Phi-4-instruct").found->id == "phi-4");
  CHECK_FALSE(shipped().find_model("Totally-Unknown-7B-Instruct").found);
}

TEST_CASE("every shipped price sheet states its tax basis", "[data][tax]") {
  for (const auto& p : shipped().providers) {
    INFO(p.id);
    std::ifstream in(p.where.path);
    std::stringstream text;
    text << in.rdbuf();
    CHECK(text.str().find("\n    tax_basis: ") != std::string::npos);
  }
}
