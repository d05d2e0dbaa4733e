// Hugging Face config.json of current models (DeepSeek-V3, Gemma 3, Qwen3-MoE), copied from
// their published repositories into tests/fixtures/hf: read as the catalog writes them, they
// count to the catalog's exact published totals and hold the same KV cache.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <utility>

#include "gpuplan/error.hpp"
#include "gpuplan/model.hpp"
#include "io/model_files/hf_config.hpp"
#include "io/shipped_catalog.hpp"

using namespace gpuplan;
using testing::shipped_model;

namespace {

ModelArch fixture(const std::string& dir) {
  return io::read_hf_config(std::string(GPUPLAN_TEST_FIXTURES_DIR) + "/hf/" + dir + "/config.json");
}

// The fields the catalog entry and the config must agree on.
void check_same_shape(const ModelArch& got, const ModelArch& want) {
  CHECK(got.layers == want.layers);
  CHECK(got.hidden_size == want.hidden_size);
  CHECK(got.intermediate_size == want.intermediate_size);
  CHECK(got.attention_heads == want.attention_heads);
  CHECK(got.kv_heads == want.kv_heads);
  CHECK(got.head_dim == want.head_dim);
  CHECK(got.vocab_size == want.vocab_size);
  CHECK(got.tied_embeddings == want.tied_embeddings);
  CHECK(got.norms_per_layer == want.norms_per_layer);
  CHECK(got.qk_norm == want.qk_norm);
  CHECK(got.experts == want.experts);
  CHECK(got.experts_per_token == want.experts_per_token);
  CHECK(got.shared_experts == want.shared_experts);
  CHECK(got.first_dense_layers == want.first_dense_layers);
  CHECK(got.dense_intermediate_size == want.dense_intermediate_size);
  CHECK(got.router_bias == want.router_bias);
  CHECK(got.q_lora_rank == want.q_lora_rank);
  CHECK(got.kv_lora_rank == want.kv_lora_rank);
  CHECK(got.qk_nope_head_dim == want.qk_nope_head_dim);
  CHECK(got.qk_rope_head_dim == want.qk_rope_head_dim);
  CHECK(got.v_head_dim == want.v_head_dim);
  CHECK(got.sliding_window == want.sliding_window);
  CHECK(got.global_every == want.global_every);
  CHECK(got.max_context == want.max_context);
}

}  // namespace

TEST_CASE("DeepSeek-V3's config.json: MLA, shared expert, three dense layers", "[hf][current]") {
  const ModelArch m = fixture("deepseek-v3");
  check_same_shape(m, shipped_model("deepseek-v3"));
  // 671,026,419,200: the main model's exact count (MTP module excluded), as the catalog cites.
  CHECK(m.published_params == 671026419200);
  CHECK(count_params(m).total() == 671026419200.0);
  // The cache holds the 512-wide latent plus the 64-wide rope key per token and layer.
  CHECK(kv_cache_values(m, 4096) == 61.0 * (512 + 64) * 4096);
  CHECK(kv_cache_values(m, 163840) == kv_cache_values(shipped_model("deepseek-v3"), 163840));
}

TEST_CASE("Qwen3-30B-A3B's config.json: 128 experts of moe_intermediate_size, QK-norm", "[hf][current]") {
  const ModelArch m = fixture("qwen3-30b-a3b");
  check_same_shape(m, shipped_model("qwen3-30b-a3b"));
  CHECK(m.published_params == 30532122624);  // GGUF general.parameter_count
  // use_sliding_window is false: no window, the whole 40,960 tokens cached.
  CHECK(m.sliding_window == 0);
  CHECK(kv_cache_values(m, 40960) == 48.0 * 2 * 4 * 128 * 40960);
}

TEST_CASE("Gemma 3 1B's config.json: five local layers of 512 tokens, then one global", "[hf][current]") {
  const ModelArch m = fixture("gemma-3-1b");
  check_same_shape(m, shipped_model("gemma-3-1b"));
  CHECK(m.published_params == 999885952);  // KerasHub gemma3_1b "params"
  // 26 layers: 4 global (layers 6, 12, 18, 24) keep the whole context, 22 keep 512 tokens.
  CHECK(kv_cache_values(m, 32768) == 2.0 * 256 * (4 * 32768.0 + 22 * 512.0));
  CHECK(kv_cache_values(m, 32768) == kv_cache_values(shipped_model("gemma-3-1b"), 32768));
}

TEST_CASE("Gemma 3 4B, 12B and 27B config.json: the text decoder under text_config, defaults filled", "[hf][current]") {
  // The multimodal files leave out every key equal to Gemma3TextConfig's default (4B: heads,
  // head_dim; all three: vocab_size 262208, 131072 positions, sliding_window_pattern 6).
  const std::pair<const char*, std::int64_t> sizes[] = {
      {"gemma-3-4b", 3880263168}, {"gemma-3-12b", 11766034176}, {"gemma-3-27b", 27009346304}};
  for (const auto& [id, total] : sizes) {
    INFO(id);
    const ModelArch m = fixture(id);
    check_same_shape(m, shipped_model(id));
    CHECK(m.vocab_size == 262208);
    CHECK(m.max_context == 131072);
    CHECK(m.sliding_window == 1024);
    CHECK(m.global_every == 6);
    // The SigLIP tower under vision_config is not counted: the text model's exact total.
    CHECK(m.published_params == total);
    CHECK(m.published_params == shipped_model(id).published_params);
  }
  // 4B's text_config names no head counts: the defaults (8 heads, 4 KV heads of 256) apply.
  const ModelArch g4 = fixture("gemma-3-4b");
  CHECK(g4.attention_heads == 8);
  CHECK(g4.kv_heads == 4);
  CHECK(g4.head_dim == 256);
}

TEST_CASE("a Gemma 3 text_config without its layer count or widths is refused, not defaulted", "[hf][current]") {
  // Gemma3TextConfig's own defaults (26 layers x 2304) describe no released model.
  const std::string no_layers = R"({"model_type":"gemma3","text_config":{"hidden_size":2560,"intermediate_size":10240}})";
  CHECK_THROWS_WITH(io::parse_hf_config(no_layers, "g/config.json"), Catch::Contains("num_hidden_layers"));
  const std::string no_width = R"({"model_type":"gemma3","text_config":{"num_hidden_layers":34,"intermediate_size":10240}})";
  CHECK_THROWS_WITH(io::parse_hf_config(no_width, "g/config.json"), Catch::Contains("hidden_size"));
}

TEST_CASE("Gemma 3's layer_types list and multimodal text_config read the same layout", "[hf][current]") {
  // Newer configs list each layer's kind instead of sliding_window_pattern; the 4B-and-up
  // checkpoints keep the language model under text_config.
  std::string types;
  for (int i = 0; i < 26; ++i) types += std::string(i ? "," : "") + ((i + 1) % 6 == 0 ? "\"full_attention\"" : "\"sliding_attention\"");
  const std::string text = R"("head_dim":256,"hidden_size":1152,"intermediate_size":6912,"max_position_embeddings":32768,
    "num_attention_heads":4,"num_hidden_layers":26,"num_key_value_heads":1,"sliding_window":512,"vocab_size":262144,
    "layer_types":[)" + types + "]";
  const ModelArch listed = io::parse_hf_config("{\"model_type\":\"gemma3_text\"," + text + "}", "g/config.json");
  CHECK(listed.global_every == 6);
  CHECK(listed.published_params == 999885952);
  const ModelArch nested = io::parse_hf_config("{\"model_type\":\"gemma3\",\"text_config\":{" + text + "}}", "g/config.json");
  CHECK(nested.global_every == 6);
  CHECK(nested.published_params == 999885952);
  // A layout that is not one global every N layers is refused, not guessed.
  const std::string odd = R"({"model_type":"gemma3_text","head_dim":256,"hidden_size":1152,"intermediate_size":6912,
    "num_attention_heads":4,"num_hidden_layers":3,"num_key_value_heads":1,"sliding_window":512,"vocab_size":262144,
    "layer_types":["full_attention","full_attention","sliding_attention"]})";
  CHECK_THROWS_AS(io::parse_hf_config(odd, "odd/config.json"), InputError);
}

TEST_CASE("MLA widths past the model limits are refused before any shape is built", "[hf][current]") {
  // 16 heads x (1 + 65536) value-side width exceeds 2^20: an error naming the limit, not an
  // int overflow in layer_shapes.
  const std::string text = R"({"model_type":"deepseek_v3","num_hidden_layers":2,"hidden_size":64,"intermediate_size":64,
    "moe_intermediate_size":32,"num_attention_heads":16,"num_key_value_heads":16,"n_routed_experts":4,"num_experts_per_tok":2,
    "kv_lora_rank":8,"qk_nope_head_dim":1,"qk_rope_head_dim":1,"v_head_dim":65536,"vocab_size":100})";
  CHECK_THROWS_WITH(io::parse_hf_config(text, "big/config.json"), Catch::Contains("v_head_dim"));
}
