// The input pipeline's figures as JSON and as the lines under an offer table, on fixed figures:
// one that keeps up, one bound by storage, one bound by tokenizing CPUs.
#include <catch2/catch.hpp>

#include "io/render/pipeline_render.hpp"

using namespace gpuplan;
using namespace gpuplan::io;

namespace {

// Raw text read at 0.04 MB/s, half a core to tokenize it: the GPUs set the pace.
PipelineFigures keeps_up() {
  PipelineFigures f;
  f.tokens_per_second = 10000;
  f.bytes_per_token = kRawTextBytesPerToken;
  f.storage_bytes_per_second = 38400;
  f.cpu_cores_needed = 0.5;
  f.fed_tokens_per_second = 10000;
  return f;
}

// Token ids at 8 MB/s against a 5 MB/s network: storage feeds 1.25 M tokens/s of the 2 M.
PipelineFigures storage_bound() {
  PipelineFigures f;
  f.tokens_per_second = 2e6;
  f.bytes_per_token = 4;
  f.storage_bytes_per_second = 8e6;
  f.storage_limit = 5e6;
  f.storage_from_network = true;
  f.fed_tokens_per_second = 1.25e6;
  f.bound = PipelineBound::storage;
  f.slowdown = 1.6;
  return f;
}

PipelineFigures cpu_bound() {
  PipelineFigures f;
  f.tokens_per_second = 500000;
  f.bytes_per_token = kRawTextBytesPerToken;
  f.storage_bytes_per_second = 1.92e6;
  f.storage_limit = 1e8;
  f.cpu_cores_needed = 4.5454;
  f.tokenise_limit = 220000;
  f.fed_tokens_per_second = 220000;
  f.bound = PipelineBound::tokenisation;
  f.slowdown = 2.2727;
  return f;
}

}  // namespace

TEST_CASE("pipeline JSON carries raw figures, with null for what was not given", "[render][pipeline]") {
  const nlohmann::json j = pipeline_json(keeps_up());
  CHECK(j == nlohmann::json::parse(R"({"tokens_per_second": 10000, "bytes_per_token": 3.84, "storage_bytes_per_second": 38400,
      "storage_limit_bytes_per_second": null, "storage_limit_source": null, "cpu_cores_needed": 0.5,
      "tokenize_limit_tokens_per_second": null, "fed_tokens_per_second": 10000, "bound": null, "slowdown": 1})"));
  const nlohmann::json s = pipeline_json(storage_bound());
  CHECK(s["storage_limit_bytes_per_second"] == 5e6);
  CHECK(s["storage_limit_source"] == "network");
  CHECK(s["bound"] == "storage");
  CHECK(s["slowdown"] == 1.6);
  const nlohmann::json c = pipeline_json(cpu_bound());
  CHECK(c["storage_limit_source"] == "--storage-bandwidth");
  CHECK(c["tokenize_limit_tokens_per_second"] == 220000);
  CHECK(c["bound"] == "tokenization");  // American, as the flags (--tokenize-rate)
}

TEST_CASE("a pipeline that keeps up is one line and no warning", "[render][pipeline]") {
  CHECK(pipeline_bound_text(keeps_up()).empty());
  CHECK(pipeline_notes("lambda/gpu_1x_h100", keeps_up()) ==
        std::vector<std::string>{"input pipeline on lambda/gpu_1x_h100: the GPUs consume 10000 tokens/s = 0.04 MB/s of raw text; "
                                 "tokenising that takes 0.5 CPU cores (--cpu-cores checks it; --pretokenized if stored as ids)"});
}

TEST_CASE("a storage-bound pipeline names its limit and warns that the cost includes it", "[render][pipeline]") {
  CHECK(pipeline_bound_text(storage_bound()) ==
        "the input pipeline (storage), not the GPUs, bounds this run: 1250000 tokens/s, 1.60x the GPU-bound step");
  const auto notes = pipeline_notes("p/o", storage_bound());
  REQUIRE(notes.size() == 2);
  CHECK(notes[0] == "input pipeline on p/o: the GPUs consume 2000000 tokens/s = 8.00 MB/s of token ids (storage: 5.00 MB/s, the nodes' network)");
  CHECK(notes[1] == "warning: the input pipeline (storage), not the GPUs, bounds this run: 1250000 tokens/s, 1.60x the GPU-bound step; "
                    "the wall time and cost shown include it (fix the data pipeline before buying compute: a faster GPU would wait on it too)");
}

TEST_CASE("a CPU-bound pipeline says what the cores sustain", "[render][pipeline]") {
  const auto notes = pipeline_notes("p/o", cpu_bound());
  REQUIRE(notes.size() == 2);
  CHECK(notes[0] == "input pipeline on p/o: the GPUs consume 500000 tokens/s = 1.92 MB/s of raw text (storage: 100 MB/s, --storage-bandwidth); "
                    "tokenising that takes 4.5 CPU cores (--cpu-cores sustain 220000 tokens/s)");
  CHECK(pipeline_bound_text(cpu_bound()) ==
        "the input pipeline (tokenization), not the GPUs, bounds this run: 220000 tokens/s, 2.27x the GPU-bound step");
}

TEST_CASE("an offer list's notes come from the first offer with figures", "[render][pipeline]") {
  Offer first, second;
  first.provider = "a", first.id = "one";
  second.provider = "b", second.id = "two";
  std::vector<PricedOffer> offers(2);
  offers[0].offer = &first;
  offers[1].offer = &second;
  CHECK(pipeline_notes(offers).empty());
  offers[1].eval.pipeline = storage_bound();
  const auto notes = pipeline_notes(offers);
  REQUIRE(notes.size() == 2);
  CHECK(notes[0].rfind("input pipeline on b/two: ", 0) == 0);
}
