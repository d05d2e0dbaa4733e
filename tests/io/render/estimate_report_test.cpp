// estimate's report on a fixed value: a 40 GiB full fine-tune, two GPUs (one fits), advice for
// the one that does not, time from a GPU no sheet prices; then the same with one priced offer.
#include <catch2/catch.hpp>

#include "gpuplan/units.hpp"
#include "io/render/assumed_model_text.hpp"
#include "io/render/estimate_report.hpp"

using namespace gpuplan;
using namespace gpuplan::io;

namespace {

// Money as the CLI spells it without --grouping: Indian for INR, international otherwise.
const MoneyStyle automatic{DigitGrouping::automatic};

struct Gpus {
  Gpu h100, l4;
  Gpus() {
    h100.id = "h100";
    h100.usable_memory_bytes = 80000000000ULL;
    l4.id = "l4";
    l4.usable_memory_bytes = 24000000000ULL;
  }
};

MemoryBreakdown forty_gib() {
  MemoryBreakdown m;
  m[MemComponent::weights] = 8 * kGiB;
  m[MemComponent::gradients] = 8 * kGiB;
  m[MemComponent::optimizer] = 16 * kGiB;
  m[MemComponent::activations] = 6 * kGiB;
  m[MemComponent::overhead] = 1 * kGiB;
  m[MemComponent::fragmentation] = 1 * kGiB;
  m.params_total = m.params_trainable = 4.3e9;
  return m;
}

EstimateReport report(const Gpus& g) {
  EstimateReport r;
  r.model_id = "llama-3-8b";
  r.model_name = "Llama 3 8B";
  r.model_source = "catalog";
  r.assumptions = {"vocab 128256 from the catalog"};
  r.workload.micro_batch = 4;
  r.workload.seq_len = 2048;
  r.workload.constants.fragmentation = 0.05;
  r.memory = forty_gib();
  r.fits = {{&g.h100, true, 12}, {&g.l4, false, 0}};
  r.advice_gpu = &g.l4;
  MemoryAdvice ck, lora;
  ck.fix = MemoryFix::checkpointing;
  ck.per_gpu_bytes = 36e9;
  lora.fix = MemoryFix::lora;
  lora.per_gpu_bytes = 20e9;
  lora.fits = true;
  r.advice = {ck, lora};
  StepTime step;
  step.tokens_per_second = 3000;
  step.mfu = 0.42;
  step.step_seconds = 2.7307;
  r.time = EstimateTime{step, "l4", std::nullopt};
  r.cost_notes = {"1 offer has no on-demand price"};
  return r;
}

std::string blocks(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += "█";
  return s;
}

}  // namespace

TEST_CASE("estimate's memory table: GiB to two places, shares, bars, raw bytes in CSV", "[render][estimate]") {
  const Gpus g;
  const auto tables = estimate_tables(report(g), automatic);
  REQUIRE(tables.size() == 3);  // memory, fits, advice; no offers
  const Table& m = tables[0];
  CHECK(m.title == "Memory per GPU: Llama 3 8B, full, bf16, micro-batch 4 x 2048 tokens, activations as HF eager saves them");
  CHECK(m.rows == std::vector<std::vector<std::string>>{{"weights", "8.00", "20.0%", blocks(6)},
                                                        {"gradients", "8.00", "20.0%", blocks(6)},
                                                        {"optimizer states", "16.00", "40.0%", blocks(12)},
                                                        {"activations", "6.00", "15.0%", blocks(4) + "▌"},
                                                        {"CUDA context + workspace", "1.00", "2.5%", "▊"},
                                                        {"allocator fragmentation", "1.00", "2.5%", "▊"},
                                                        {"total per GPU", "40.00", "100.0%", ""}});
  CHECK(m.csv_rows.front() == std::vector<std::string>{"weights", "8589934592", "0.2"});
  CHECK(m.csv_rows[3] == std::vector<std::string>{"activations", "6442450944", "0.15"});
  CHECK(m.csv_rows.back() == std::vector<std::string>{"total", "42949672960", "1"});
}

TEST_CASE("estimate's fits and advice tables", "[render][estimate]") {
  const Gpus g;
  const auto tables = estimate_tables(report(g), automatic);
  const Table& f = tables[1];
  CHECK(f.columns == std::vector<std::string>{"gpu", "usable_gib", "fits", "headroom_gib", "max_micro_batch"});
  CHECK(f.rows == std::vector<std::vector<std::string>>{{"h100", "74.51", "yes", "34.5", "12"}, {"l4", "22.35", "no", "-17.6", "0"}});
  CHECK(f.csv_rows[1] == std::vector<std::string>{"l4", "24000000000", "false", "-18949672960", "0"});
  const Table& a = tables[2];
  CHECK(a.title == "Ways to fit on l4 (22.35 GiB usable)");
  CHECK(a.rows == std::vector<std::vector<std::string>>{{"--checkpointing full", "33.53", "no", "keep only each layer's input; costs about one extra forward pass"},
                                                        {"--method lora", "18.63", "yes", "train low-rank adapters; the base model stays frozen in 16-bit"}});
  CHECK(a.csv_rows[1] == std::vector<std::string>{"--method lora", "20000000000", "true", "train low-rank adapters; the base model stays frozen in 16-bit"});
}

TEST_CASE("estimate JSON: whole bytes, every component, null where nothing applies", "[render][estimate]") {
  const Gpus g;
  const nlohmann::json j = estimate_json(report(g));
  CHECK(j["model"] == nlohmann::json::parse(R"({"id": "llama-3-8b", "name": "Llama 3 8B", "source": "catalog"})"));
  CHECK(j["assumptions"] == nlohmann::json::array({"vocab 128256 from the catalog"}));
  CHECK(j["workload"]["method"] == "full");
  CHECK(j["workload"]["micro_batch"] == 4);
  CHECK(j["workload"]["seq_len"] == 2048);
  CHECK(j["workload"]["activations"] == "hf");
  CHECK(j["workload"]["qlora_backend"].is_null());  // not QLoRA
  CHECK(j["params"] == nlohmann::json::parse(R"({"total": 4300000000, "trainable": 4300000000})"));
  CHECK(j["memory"]["per_gpu_bytes"] == 42949672960LL);
  CHECK(j["memory"]["tensor_bytes"] == 40802189312LL);  // without context and fragmentation
  CHECK(j["memory"]["cpu_offload_bytes"] == 0);
  CHECK(j["memory"]["components"].size() == 10);
  CHECK(j["memory"]["components"]["optimizer"] == 17179869184LL);
  CHECK(j["memory"]["components"]["kv_cache"] == 0);
  CHECK(j["fits"][0] == nlohmann::json::parse(R"({"gpu": "h100", "usable_bytes": 80000000000, "fits": true,
      "headroom_bytes": 37050327040, "max_micro_batch": 12})"));
  CHECK(j["advice"][0] == nlohmann::json::parse(R"({"gpu": "l4", "change": "--checkpointing full", "per_gpu_bytes": 36000000000,
      "fits": false, "why": "keep only each layer's input; costs about one extra forward pass"})"));
  CHECK(j["cost"] == nlohmann::json::array());  // no sheet lists the GPU
  CHECK(j["warnings"] == nlohmann::json::array());
  CHECK(j["time"]["gpu"] == "l4");
  CHECK(j["time"]["tokens_per_second"] == 3000);
  CHECK(j["time"]["mfu"] == 0.42);
  CHECK(j["time"]["wall_seconds"].is_null());
  EstimateReport none = report(g);
  none.time.reset();
  none.advice_gpu = nullptr;
  none.advice.clear();
  CHECK(estimate_json(none)["time"].is_null());
  CHECK(estimate_json(none)["advice"] == nlohmann::json::array());
  CHECK(estimate_tables(none, automatic).size() == 2);
}

TEST_CASE("step time JSON names every part of the step", "[render][estimate]") {
  StepTime t;
  t.step_seconds = 2;
  t.comm_seconds = 0.5;
  t.exposed_comm_seconds = 0.25;
  t.data_parallel = 8;
  const nlohmann::json j = step_time_json(t);
  CHECK(j.size() == 12);
  CHECK(j["step_seconds"] == 2);
  CHECK(j["exposed_comm_seconds"] == 0.25);
  CHECK(j["scaling_efficiency"] == 1);
  CHECK(j["data_parallel"] == 8);
}

TEST_CASE("estimate's notes: time without a price, the engine's notes, then memory", "[render][estimate]") {
  const Gpus g;
  CHECK(estimate_notes(report(g)) ==
        std::vector<std::string>{"no offer in the loaded sheets lists l4: time only (3000 tokens/s, MFU 42%)", "1 offer has no on-demand price",
                                 "trainable parameters: 4.30B of 4.30B",
                                 "per-GPU total = tensors + 5% allocator fragmentation + CUDA context/workspace (what nvidia-smi shows)",
                                 "assumed: vocab 128256 from the catalog"});
  EstimateReport r = report(g);
  r.memory.cpu_bytes = 3 * kGiB;
  r.workload.method = Method::qlora;
  const auto notes = estimate_notes(r);
  CHECK(std::find(notes.begin(), notes.end(), "CPU RAM for offloaded states: 3.0 GiB") != notes.end());
  CHECK(std::find(notes.begin(), notes.end(), "QLoRA keeps embeddings, norms and lm_head in 16-bit; only the layers' linear weights are 4-bit") !=
        notes.end());
}

TEST_CASE("estimate with a priced offer: the offers table, its JSON cost row and the cost notes", "[render][estimate]") {
  const Gpus g;
  Provider lambda;
  lambda.id = "lambda";
  lambda.prices_as_of = "2026-11-20";
  Offer one;
  one.id = "gpu_1x_h100";
  one.provider = "lambda";
  one.gpu = "h100";
  PricedOffer p;
  p.provider = &lambda;
  p.offer = &one;
  p.gpu = &g.h100;
  p.eval.workload.gpus = 1;
  p.rate_per_hour = 2.49;
  p.per_million_tokens = 0.2306;
  p.pareto = true;
  p.meets_budget = false;
  EstimateReport r = report(g);
  r.offers = {p};
  r.offers_title = "Offers by cost";
  r.run.today = "2026-12-01";
  r.run.budget = 0.1;
  const auto tables = estimate_tables(r, automatic);
  REQUIRE(tables.size() == 4);
  CHECK(tables[3].title == "Offers by cost");
  CHECK(tables[3].rows[0][7] == "0.2306 *");
  const nlohmann::json j = estimate_json(r);
  REQUIRE(j["cost"].size() == 1);  // an array of offers, best first
  CHECK(j["offers"][0]["offer"] == "gpu_1x_h100");
  CHECK(j["offers"][0]["per_million_tokens"] == 0.2306);
  CHECK(j["cost"] == j["offers"]);  // the deprecated name of the same rows
  const auto notes = estimate_notes(r);
  REQUIRE(notes.size() >= 3);
  CHECK(notes[0] == "no offer meets the budget and deadline");
  CHECK(notes[1] == "no run size given (--tokens, --steps or --dataset-tokens): costs are per step and per million tokens");
  CHECK(std::find(notes.begin(), notes.end(), "* after a cost: on the cost/time Pareto front (no offer is both cheaper and faster)") != notes.end());
}

TEST_CASE("an assumed model's lines: its shape, depth, the MLP width that reaches the count, and the warning", "[render][estimate]") {
  AssumedModel a;
  a.arch.layers = 20;
  a.arch.hidden_size = 2048;
  a.arch.attention_heads = 16;
  a.arch.kv_heads = 8;
  a.arch.vocab_size = 128256;
  a.arch.tied_embeddings = true;
  a.arch.intermediate_size = 6144;
  a.shape_of = "Llama 3.2 1B";
  a.shape_layers = 16;
  a.asked_params = 1.5e9;
  a.total_params = 1.5004e9;
  CHECK(assumed_model_lines(a) ==
        std::vector<std::string>{"dense Llama-style decoder (gated SwiGLU MLP, RMSNorm, RoPE, no biases)",
                                 "depth 20, hidden 2048, 16 heads, 8 KV heads, vocabulary 128256 (tied embeddings), as Llama 3.2 1B at depth 20 instead of 16",
                                 "intermediate size 6144 chosen so the total is 1500M (asked: 1500M)",
                                 "activation and KV-cache memory depend on these guesses; give --model or --model-config for real figures"});
  a.arch.layers = 16;
  a.arch.tied_embeddings = false;
  a.asked_params = 1e6;
  a.total_params = 2.5e6;
  const auto lines = assumed_model_lines(a);
  CHECK(lines[1] == "depth 16, hidden 2048, 16 heads, 8 KV heads, vocabulary 128256 (untied), as Llama 3.2 1B");
  CHECK(lines[2] == "no assumed architecture reaches 1M: the smallest has 2.5M parameters");
}
