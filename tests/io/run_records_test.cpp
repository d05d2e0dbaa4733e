// Run records (docs/run-records.md): what the probe writes and people type, and the mistakes
// refused with file, line and field.
#include <catch2/catch.hpp>

#include <string>

#include "io/usage/run_records.hpp"

using namespace gpuplan;

namespace {

InputError first_error(const std::string& text) {
  try {
    io::parse_run_records(text, "runs.jsonl");
  } catch (const InputErrors& e) {
    return e.errors().front();
  }
  FAIL("accepted: " << text);
  return InputError("unreachable");
}

}  // namespace

TEST_CASE("a probe record reads into settings and measurements", "[calibrate][records]") {
  const std::string text =
      "# a comment, then a blank line\n\n"
      R"({"schema": "gpuplan-run/1", "id": "r1", "gpu": "NVIDIA GeForce RTX 4090", "model": "llama-3.1-8b", )"
      R"("method": "lora", "precision": "bf16", "micro_batch": 2, "seq_len": 2048, "checkpointing": true, )"
      R"("attention": "flash_attention_2", "world_size": 1, "grad_accum": 4, "settings": {"lora_rank": 8, "double_quant": true, "dropout": false}, )"
      R"("peak_allocated_bytes": 17000000000, "peak_reserved_bytes": 18000000000, "device_bytes": null, "tokens_per_second": 2500.5})"
      "\n";
  const auto runs = io::parse_run_records(text, "runs.jsonl");
  REQUIRE(runs.size() == 1);
  const io::RunRecord& r = runs.front();
  CHECK(r.where.line == 3);
  CHECK(r.id == "r1");
  CHECK(r.gpu == "NVIDIA GeForce RTX 4090");
  CHECK(r.grad_accum == 4);
  CHECK(*r.allocated_bytes == 17e9);
  CHECK_FALSE(r.device_bytes);
  CHECK(*r.tokens_per_second == 2500.5);
  using S = std::pair<std::string, std::string>;
  const std::vector<S> want = {{"--method", "lora"}, {"--precision", "bf16"}, {"--micro-batch", "2"}, {"--seq-len", "2048"},
                               {"--gpus", "1"}, {"--checkpointing", "full"}, {"--attention", "flash"},
                               {"--double-quant", ""}, {"--lora-rank", "8"}};  // settings in key order
  CHECK(r.settings == want);
}

TEST_CASE("run record mistakes name the line and the field", "[calibrate][records]") {
  auto e = first_error("{\"model\": \"x\", \"tokens_per_secnd\": 5}\n");
  CHECK(e.where().line == 1);
  CHECK(e.field() == "tokens_per_secnd");
  CHECK(std::string(e.what()).find("did you mean 'tokens_per_second'") != std::string::npos);

  e = first_error("{\"model\": \"x\", \"tokens_per_second\": 5}\n{not json\n");
  CHECK(e.where().line == 2);

  e = first_error(R"({"model": "x", "peak_allocated_bytes": 10, "peak_reserved_bytes": 5})");
  CHECK(e.field() == "peak_reserved_bytes");

  e = first_error(R"({"model": "x", "tokens_per_second": -3})");
  CHECK(e.field() == "tokens_per_second");

  e = first_error(R"({"model": "x"})");  // measures nothing
  CHECK(e.field() == "tokens_per_second");

  e = first_error(R"({"tokens_per_second": 3})");
  CHECK(e.field() == "model");

  e = first_error(R"({"model_arch": {"layers": 2, "hidden_size": 8, "attention_heads": 2, "vocab_size": 10}, "tokens_per_second": 3})");
  CHECK(e.field() == "model_arch.intermediate_size");

  e = first_error(R"({"schema": "gpuplan-run/2", "model": "x", "tokens_per_second": 3})");
  CHECK(e.field() == "schema");

  e = first_error("\n\n");
  CHECK(std::string(e.what()).find("no run records") != std::string::npos);
}

TEST_CASE("run records carry the ledger's measured outcomes under the same checks", "[calibrate][records]") {
  const auto runs = io::parse_run_records(
      R"({"model": "llama-3.1-8b", "tokens_per_second": 100, "family": "sft", "metrics": [{"name": "eval_loss", "value": 1.8, "better": "lower"}], )"
      R"("utilization": 0.7, "samples": 5000, "requests": 20, "restore_seconds": 12.5})",
      "runs.jsonl");
  const LedgerRecord& o = runs.at(0).outcomes;
  CHECK(o.family == "sft");
  REQUIRE(o.metrics.size() == 1);
  CHECK(o.metrics[0].value == 1.8);
  CHECK(*o.utilization == 0.7);
  CHECK(o.samples == 5000);
  CHECK(*o.restore_seconds == 12.5);
  const InputError e = first_error(R"({"model": "llama-3.1-8b", "tokens_per_second": 100, "utilization": 63})");
  CHECK(e.field() == "utilization");
  CHECK(e.where().line == 1);
  CHECK(first_error(R"({"model": "llama-3.1-8b", "tokens_per_second": 100, "metrics": [{"name": "a", "value": 1, "better": "up"}]})").field() == "metrics");
}
