// plan's report on a fixed search result: a LoRA plan on one 8-GPU offer with a full fine-tune
// on spot as runner-up; then no feasible plan (budget and deadline bind); then nothing fits.
#include <catch2/catch.hpp>

#include "gpuplan/units.hpp"
#include "io/render/plan_report.hpp"

using namespace gpuplan;
using namespace gpuplan::io;

namespace {

// Money as the CLI spells it without --grouping: Indian for INR, international otherwise.
const MoneyStyle automatic{DigitGrouping::automatic};

struct Fixture {
  Provider lambda;
  Offer eight;
  Gpu h100;
  PlanSpace space;
  PlanInputs in;
  PlanResult res;
  Candidate lora, full;

  Fixture() {
    lambda.id = "lambda";
    eight.id = "gpu_8x_h100";
    eight.provider = "lambda";
    eight.gpu = "h100";
    eight.gpus = 8;
    eight.spot_preemptions_per_hour = 0.05;
    h100.id = "h100";
    h100.usable_memory_bytes = 80000000000ULL;
    space.methods = {Method::full, Method::lora};
    space.optimizers = {Optimizer::adamw};
    space.checkpointing = {Checkpointing::none, Checkpointing::full};
    space.shardings = {Sharding::fsdp};
    space.pricings = {Pricing::on_demand, Pricing::spot};
    in.base.seq_len = 2048;
    in.tokens = 2e9;
    in.budget = 500;
    in.deadline_seconds = 36000;
    in.offers = {PlanOffer{&eight, &lambda, &h100, 1, 0}};

    lora.method = 1;
    lora.checkpointing = 1;
    lora.micro_batch = 4;
    lora.grad_accum = 2;
    lora.gpus = 8;
    lora.per_gpu_bytes = 30 * kGiB;
    lora.step_seconds = 1.234;
    lora.wall_seconds = 5400;
    lora.gpu_hours = 12;
    lora.cost = 123.456;
    lora.mfu = 0.38;

    full.pricing = 1;
    full.micro_batch = 2;
    full.grad_accum = 4;
    full.gpus = 8;
    full.per_gpu_bytes = 70 * kGiB;
    full.wall_seconds = 9000;
    full.cost = 234.6;
    full.mfu = 0.41;
    full.checkpoint_interval_seconds = 1800;
    full.expected_preemptions = 1.5;

    res.considered = 96;
    res.evaluated = 40;
    res.best = {lora, full};
    res.pareto = {lora};
    res.cheapest = res.fastest = lora;
    res.best_by_method = {full, lora};
    res.best_by_checkpointing = {full, lora};
    res.best_by_pricing = {lora, full};
  }
  PlanReport report() const { return {in, space, res, "USD", "cost", "llama-3-8b", "Llama 3 8B", "catalog", 5, std::nullopt}; }
};

}  // namespace

TEST_CASE("plan's reasons: each setting chosen, with what the best plan with another value costs", "[render][plan]") {
  const Fixture f;
  const auto tables = plan_tables(f.report(), automatic);
  REQUIRE(tables.size() == 4);  // reasons, outcome, runners-up, Pareto front
  const Table& r = tables[0];
  CHECK(r.title == "Plan: Llama 3 8B, 2.00B tokens, by cost");
  CHECK(r.rows == std::vector<std::vector<std::string>>{
                      {"method", "lora", "full: best costs 235 USD (1.90x)"},
                      {"precision", "bf16", "the only option searched"},
                      {"optimizer", "adamw", "the only option searched"},
                      {"checkpointing", "full", "none: best costs 235 USD (1.90x)"},
                      {"sharding", "8 GPUs (dp8), fsdp", "the only option searched"},
                      {"batch", "4 x 2 accumulation", "the best micro-batch searched (no --global-batch to keep)"},
                      {"offer", "lambda/gpu_8x_h100 (h100)", "priced on-demand at 123 USD for the run"},
                      {"pricing", "on-demand", "spot: best costs 235 USD (1.90x)"}});
}

TEST_CASE("plan's outcome: memory, step, wall time and cost against the limits, raw in CSV", "[render][plan]") {
  const Fixture f;
  const Table o = plan_tables(f.report(), automatic)[1];
  CHECK(o.rows == std::vector<std::vector<std::string>>{{"memory per GPU", "30.0 GiB of 74.5 usable"},
                                                        {"step", "1.23 s, MFU 38%"},
                                                        {"wall time", "1.5 h (deadline 10.0 h)"},
                                                        {"cost", "123 USD (budget 500 USD)"}});
  CHECK(o.csv_rows == std::vector<std::vector<std::string>>{{"per_gpu_bytes", "32212254720", "bytes"},
                                                            {"step_seconds", "1.234", "s"},
                                                            {"wall_seconds", "5400", "s"},
                                                            {"cost", "123.456", "USD"}});
}

TEST_CASE("plan's candidate tables: one row per plan, raw CSV", "[render][plan]") {
  const Fixture f;
  const auto tables = plan_tables(f.report(), automatic);
  const Table& runners = tables[2];
  CHECK(runners.title == "Runners-up");
  CHECK(runners.rows == std::vector<std::vector<std::string>>{
                            {"full", "bf16/adamw", "none", "2x4", "8 fsdp", "lambda/gpu_8x_h100", "spot", "70.0", "2.5 h", "235 USD"}});
  CHECK(runners.csv_columns.back() == "cost_USD");
  CHECK(runners.csv_rows[0] == std::vector<std::string>{"full", "bf16", "adamw", "none", "2", "4", "8", "fsdp", "lambda/gpu_8x_h100", "spot",
                                                        "75161927680", "9000", "234.6"});
  CHECK(tables[3].title == "Cost/time Pareto front");
  CHECK(tables[3].rows[0][0] == "lora");
  const Table csv = plan_csv_table(f.report(), automatic);
  CHECK(csv.title == "Plans");
  CHECK(csv.csv_rows.size() == 2);  // the plan and its runner-up
}

TEST_CASE("plan JSON: the plan's settings and raw figures, runners-up with spot terms", "[render][plan]") {
  const Fixture f;
  const nlohmann::json j = plan_json(f.report());
  CHECK(j["model"]["id"] == "llama-3-8b");
  CHECK(j["objective"] == "cost");
  CHECK(j["searched"] == nlohmann::json::parse(R"({"configurations": 96, "scored": 40, "offers": 1})"));
  const auto& p = j["plan"];
  CHECK(p["method"] == "lora");
  CHECK(p["checkpointing"] == "full");
  CHECK(p["sharding"] == "fsdp");
  CHECK(p["micro_batch"] == 4);
  CHECK(p["grad_accum"] == 2);
  CHECK(p["global_batch"] == 64);  // 4 x 2 x 8 replicas
  CHECK(p["gpus"] == 8);
  CHECK(p["provider"] == "lambda");
  CHECK(p["offer"] == "gpu_8x_h100");
  CHECK(p["pricing"] == "on-demand");
  CHECK(p["per_gpu_bytes"] == 32212254720LL);
  CHECK(p["wall_seconds"] == 5400);
  CHECK(p["cost"] == 123.456);  // not rounded
  CHECK(p["currency"] == "USD");
  CHECK(p["layout"]["data_parallel"] == 8);
  CHECK_FALSE(p.contains("spot"));
  REQUIRE(j["runners_up"].size() == 1);
  CHECK(j["runners_up"][0]["spot"] == nlohmann::json::parse(R"({"checkpoint_interval_seconds": 1800, "expected_preemptions": 1.5})"));
  CHECK(j["pareto"].size() == 1);
  REQUIRE(j["reasons"].size() == 8);
  CHECK(j["reasons"][0] == nlohmann::json::parse(R"j({"setting": "method", "choice": "lora", "why": "full: best costs 235 USD (1.90x)"})j"));
  REQUIRE(j["next_steps"].size() == 5);
  CHECK(j["next_steps"][0] == "run a 50-step baseline on one h100 with these settings and pass its measured MFU as --mfu to re-plan");
  CHECK(j["pipeline"].is_null());
  CHECK_FALSE(j.contains("why_none"));
}

TEST_CASE("plan notes: next steps, then what was searched", "[render][plan]") {
  const Fixture f;
  const auto notes = plan_notes(f.report(), automatic);
  REQUIRE(notes.size() == 6);
  CHECK(notes[1] == "next: start from lora; move to full fine-tuning only if your evaluation needs it");
  CHECK(notes[5] == "searched 96 configurations (40 fit and priced) over 1 offers");
}

TEST_CASE("no feasible plan: which limit binds, and the closest plans", "[render][plan]") {
  Fixture f;
  f.in.budget = 200;
  f.in.deadline_seconds = 3600;
  f.res.best.clear();
  f.res.cheapest = f.res.fastest = f.full;
  f.res.pareto = {f.full};
  const std::vector<std::string> why = {"the cheapest plan that fits costs 235 USD, budget 200 USD",
                                        "the fastest plan misses the deadline by 1.5 h"};
  const nlohmann::json j = plan_json(f.report());
  CHECK(j["plan"].is_null());
  CHECK(j["why_none"] == nlohmann::json(why));
  CHECK(j["runners_up"] == nlohmann::json::array());
  CHECK_FALSE(j.contains("reasons"));
  const auto tables = plan_tables(f.report(), automatic);
  REQUIRE(tables.size() == 1);
  CHECK(tables[0].title == "Closest plans (cost/time front)");
  CHECK(tables[0].rows[0][0] == "full");
  auto notes = why;
  notes.push_back("searched 96 configurations over 1 offers");
  CHECK(plan_notes(f.report(), automatic) == notes);
  CHECK(plan_csv_table(f.report(), automatic).title == "Closest plans");
}

TEST_CASE("nothing fits: said in words, no tables", "[render][plan]") {
  Fixture f;
  f.res = PlanResult{};
  f.res.considered = 12;
  CHECK(plan_tables(f.report(), automatic).empty());
  CHECK(plan_json(f.report())["why_none"] ==
        nlohmann::json::array({"nothing fits: no configuration of Llama 3 8B fits any loaded offer's GPU memory"}));
  CHECK(plan_notes(f.report(), automatic).back() == "searched 12 configurations over 1 offers");
}
