#include <catch2/catch.hpp>

#include "gpuplan/error.hpp"
#include "io/model_files/hf_config.hpp"

using namespace gpuplan;

TEST_CASE("a Llama config.json gives the Llama 3.1 8B architecture", "[io][hf]") {
  const std::string cfg = R"({
  "model_type": "llama", "num_hidden_layers": 32, "hidden_size": 4096, "intermediate_size": 14336,
  "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256,
  "tie_word_embeddings": false, "max_position_embeddings": 131072, "torch_dtype": "bfloat16"
})";
  const ModelArch m = io::parse_hf_config(cfg, "llama/config.json");
  CHECK(m.head_dim == 128);
  CHECK(count_params(m).total() == 8030261248.0);
  CHECK(m.max_context == 131072);
}

TEST_CASE("Qwen2 gets its qkv bias and GPT-2 its biases and positions", "[io][hf]") {
  const ModelArch q = io::parse_hf_config(R"({"model_type":"qwen2","num_hidden_layers":24,"hidden_size":896,
    "intermediate_size":4864,"num_attention_heads":14,"num_key_value_heads":2,"vocab_size":151936,
    "tie_word_embeddings":true,"max_position_embeddings":32768})", "q.json");
  CHECK(count_params(q).total() == 494032768.0);  // Qwen2.5-0.5B
  const ModelArch g = io::parse_hf_config(R"({"model_type":"gpt2","n_layer":12,"n_embd":768,"n_head":12,
    "n_positions":1024,"vocab_size":50257})", "g.json");
  CHECK(count_params(g).total() == 124439808.0);  // GPT-2 small
}

TEST_CASE("bad config.json files give clear errors", "[io][hf]") {
  CHECK_THROWS_WITH(io::parse_hf_config(R"({"model_type":"bert"})", "c.json"),
                    Catch::Contains("unsupported model_type \"bert\"") && Catch::Contains("llama"));
  CHECK_THROWS_WITH(io::parse_hf_config(R"({"model_type":"llama","num_hidden_layers":2})", "c.json"),
                    Catch::Contains("c.json") && Catch::Contains("hidden_size") && Catch::Contains("missing"));
  CHECK_THROWS_WITH(io::parse_hf_config("{\n\"model_type\": \"llama\", \"num_hidden_layers\": 2,\n\"hidden_size\": \"big\"\n}", "c.json"),
                    Catch::Contains("c.json:3") && Catch::Contains("whole number"));
  CHECK_THROWS_WITH(io::parse_hf_config("{\"model_type\": ", "c.json"), Catch::Contains("invalid JSON"));
  CHECK_THROWS_WITH(io::parse_hf_config(std::string(1000, '[') + std::string(1000, ']'), "c.json"),
                    Catch::Contains("nested deeper"));
  CHECK_THROWS_WITH(io::parse_hf_config(R"({"model_type":"llama","num_hidden_layers":1e30,"hidden_size":8})", "c.json"),
                    Catch::Contains("num_hidden_layers"));
}

TEST_CASE("regression: a number too large for a double is an input error, not an abort", "[io][hf][fuzz]") {
  // Found by fuzz_hf_config: nlohmann throws out_of_range (not parse_error) for 40E128250.
  CHECK_THROWS_AS(io::parse_hf_config(R"({"model_typhd__edlmnayer":16,"hi~izi:::::::::":40E128250})", "c.json"), InputError);
  CHECK_THROWS_WITH(io::parse_hf_config(R"({"model_type":"llama","hidden_size":1e400})", "c.json"), Catch::Contains("invalid JSON"));
}
