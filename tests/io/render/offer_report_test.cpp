// Priced offers on fixed rows (an 8-GPU instance re-sharded to fit, priced from a shipped sheet;
// a 1-GPU one from the price cache, over budget): the table's cells and marks, raw CSV, JSON's
// keys and nulls, and the notes chosen from what the rows say.
#include <catch2/catch.hpp>

#include "io/render/exclusion_text.hpp"
#include "io/render/offer_report.hpp"

using namespace gpuplan;
using namespace gpuplan::io;

namespace {

// Money as the CLI spells it without --grouping: Indian for INR, international otherwise.
const MoneyStyle automatic{DigitGrouping::automatic};

struct Sheets {
  Provider lambda, runpod;
  Offer eight, one;
  Gpu h100;
  Sheets() {
    lambda.id = "lambda";
    lambda.currency = "USD";
    lambda.prices_as_of = "2026-11-20";
    lambda.source = "data/lambda.yaml";
    runpod.id = "runpod";
    runpod.currency = "USD";
    runpod.prices_as_of = "2026-11-30";
    runpod.source = "https://example.com/prices.json";
    runpod.cached_at = "2026-11-30T08:15:00Z";
    eight.id = "gpu_8x_h100";
    eight.provider = "lambda";
    eight.gpu = "h100";
    eight.gpus = 8;
    eight.region = "us-east-1";
    one.id = "h100-1x";
    one.provider = "runpod";
    one.gpu = "h100";
    one.region = "eu";
    h100.id = "h100";
    h100.vendor = "nvidia";
    h100.interconnect_gbps = 450;
  }
};

RunSettings run_with_work() {
  RunSettings run;
  run.currency = "USD";
  run.today = "2026-12-01";
  run.spec.tokens = 5e8;
  run.spec.bill.deadline_seconds = 50000;
  run.budget = 100;
  return run;
}

PricedOffer resharded_eight(const Sheets& s) {
  PricedOffer p;
  p.provider = &s.lambda;
  p.offer = &s.eight;
  p.gpu = &s.h100;
  p.eval.workload.gpus = 8;
  p.eval.workload.sharding = Sharding::fsdp;
  p.eval.resharded = true;
  p.eval.per_gpu_bytes = 60e9;
  p.eval.time.step_seconds = 2.5;
  p.eval.time.tokens_per_second = 12345.6;
  p.eval.time.mfu = 0.4123;
  RunCost c;
  c.instances = 1;
  c.gpus_billed = 8;
  c.wall_seconds = 36000;
  c.billed_seconds = 36000;
  c.gpu_hours = 80;
  c.storage_priced = false;
  p.eval.cost = c;
  p.rate_per_hour = 23.92;
  p.per_step = 0.0166;
  p.per_million_tokens = 0.5382;
  p.total = 239.2;
  p.compute = 230;
  p.storage = 0;
  p.egress = 9.2;
  p.tax = 0;
  p.meets_budget = true;
  p.meets_deadline = false;
  p.pareto = true;
  p.same_price_regions = 2;
  return p;
}

PricedOffer cached_one(const Sheets& s) {
  PricedOffer p;
  p.provider = &s.runpod;
  p.offer = &s.one;
  p.gpu = &s.h100;
  p.eval.workload.gpus = 1;
  p.eval.time.tokens_per_second = 1800.2;
  p.eval.time.mfu = 0.45;
  RunCost c;
  c.instances = 1;
  c.gpus_billed = 1;
  c.wall_seconds = 100000;
  p.eval.cost = c;
  p.rate_per_hour = 2.99;
  p.per_million_tokens = 0.4614;
  p.total = 83.05;
  p.compute = 83.05;
  p.storage = p.egress = p.tax = 0;
  p.meets_budget = false;
  p.meets_deadline = true;
  return p;
}

Workload asked_eight() {
  Workload w;
  w.gpus = 8;
  return w;
}

}  // namespace

TEST_CASE("the offers table: run-as, rounding for people, over-budget, late and Pareto marks", "[render][offers]") {
  const Sheets s;
  const Table t = offers_table({resharded_eight(s), cached_one(s)}, run_with_work(), asked_eight(), "Offers by cost", automatic);
  CHECK(t.title == "Offers by cost");
  CHECK(t.columns == std::vector<std::string>{"provider", "offer", "gpu", "gpus", "tok/s", "mfu", "per_hour", "per_1M_tok", "wall", "total USD"});
  REQUIRE(t.rows.size() == 2);
  CHECK(t.rows[0] == std::vector<std::string>{"lambda", "gpu_8x_h100 (+2 regions)", "h100", "8 fsdp*", "12346", "41%", "23.92", "0.5382",
                                              "10.0h", "239 (late) *"});
  CHECK(t.rows[1] == std::vector<std::string>{"runpod", "h100-1x", "h100", "1", "1800", "45%", "2.99", "0.4614", "27.8h", "83.05 (over budget)"});
  CHECK(t.csv_columns == std::vector<std::string>{"provider", "offer", "gpu", "gpus", "sharding", "tokens_per_second", "mfu", "per_hour_USD",
                                                  "per_million_tokens_USD", "wall_seconds", "total_USD", "meets_budget", "meets_deadline",
                                                  "pareto"});
  CHECK(t.csv_rows[0] == std::vector<std::string>{"lambda", "gpu_8x_h100", "h100", "8", "fsdp", "12345.6", "0.4123", "23.92", "0.5382",
                                                  "36000", "239.2", "true", "false", "true"});
  CHECK(t.csv_rows[1] == std::vector<std::string>{"runpod", "h100-1x", "h100", "1", "ddp", "1800.2", "0.45", "2.99", "0.4614", "100000",
                                                  "83.05", "false", "true", "false"});
  CHECK(t.cuttable == std::vector<std::size_t>{1, 0});
}

TEST_CASE("without a run size the table is per hour and per million tokens", "[render][offers]") {
  const Sheets s;
  RunSettings run = run_with_work();
  run.spec.tokens.reset();
  PricedOffer p = cached_one(s);
  p.total.reset();
  p.eval.cost.reset();
  const Table t = offers_table({p}, run, asked_eight(), "Offers", automatic);
  CHECK(t.columns == std::vector<std::string>{"provider", "offer", "gpu", "gpus", "tok/s", "mfu", "per_hour", "per_1M_tok USD"});
  CHECK(t.rows[0].back() == "0.4614");
  CHECK(t.csv_columns.back() == "pareto");
  CHECK(t.csv_rows[0].size() == t.csv_columns.size());
}

TEST_CASE("a sheet older than --stale-after is marked with a !", "[render][offers]") {
  Sheets s;
  s.lambda.prices_as_of = "2026-06-01";
  const Table t = offers_table({resharded_eight(s)}, run_with_work(), asked_eight(), "Offers", automatic);
  CHECK(t.rows[0][0] == "lambda!");
  CHECK(t.csv_rows[0][0] == "lambda");
}

TEST_CASE("offer JSON: raw figures, the bill's breakdown, where the prices came from", "[render][offers]") {
  const Sheets s;
  const RunSettings run = run_with_work();
  const nlohmann::json j = offer_json(resharded_eight(s), run);
  CHECK(j["provider"] == "lambda");
  CHECK(j["offer"] == "gpu_8x_h100");
  CHECK(j["region"] == "us-east-1");
  CHECK(j["pricing"] == "on-demand");
  CHECK(j["gpus"] == 8);
  CHECK(j["sharding"] == "fsdp");
  CHECK(j["resharded"] == true);
  CHECK(j["currency"] == "USD");
  CHECK(j["prices_age_days"] == 11);
  CHECK(j["prices_stale"] == false);
  CHECK(j["rate_per_hour"] == 23.92);
  CHECK(j["per_million_tokens"] == 0.5382);
  CHECK(j["tokens_per_second"] == 12345.6);  // not rounded
  CHECK(j["mfu"] == 0.4123);
  CHECK(j["per_gpu_bytes"] == 60000000000LL);
  CHECK(j["pareto"] == true);
  CHECK(j["same_price_regions"] == 2);
  CHECK(j["total"] == 239.2);
  CHECK(j["meets_budget"] == true);
  CHECK(j["meets_deadline"] == false);
  CHECK(j["wall_seconds"] == 36000);
  CHECK(j["gpu_hours"] == 80);
  CHECK(j["breakdown"] == nlohmann::json::parse(R"({"compute": 230, "storage": 0, "egress": 9.2, "tax": 0})"));
  CHECK(j["storage_priced"] == false);
  CHECK(j["prices_source"] == "data/lambda.yaml");
  CHECK(j["prices_from_cache"] == false);
  CHECK(j["prices_cached_at"].is_null());
  CHECK(j["pipeline"].is_null());
  CHECK(j["links"]["node_shape_stated"] == false);  // training: the links it was timed over
  CHECK_FALSE(j.contains("tensor_parallel"));       // inference only
  CHECK_FALSE(j.contains("spot"));
  CHECK_FALSE(j.contains("hfu_clamped_from"));
  const nlohmann::json c = offer_json(cached_one(s), run);
  CHECK(c["prices_from_cache"] == true);
  CHECK(c["prices_cached_at"] == "2026-11-30T08:15:00Z");
  CHECK(c["prices_age_days"] == 1);
  PricedOffer unpriced = cached_one(s);
  unpriced.eval.cost.reset();
  unpriced.total.reset();
  unpriced.meets_budget.reset();
  const nlohmann::json u = offer_json(unpriced, run);
  CHECK(u["wall_seconds"].is_null());
  CHECK(u["total"].is_null());
  CHECK(u["meets_budget"].is_null());
  CHECK_FALSE(u.contains("breakdown"));
}

TEST_CASE("an inference row is run as replicas of a tensor-parallel split", "[render][offers]") {
  const Sheets s;
  PricedOffer p = resharded_eight(s);
  p.eval.workload.method = Method::inference;
  p.eval.workload.gpus = 8;
  p.eval.workload.tensor_parallel = 2;
  const nlohmann::json j = offer_json(p, run_with_work());
  CHECK(j["tensor_parallel"] == 2);
  CHECK(j["pipeline_parallel"] == 1);
  CHECK(j["replicas"] == 4);
  CHECK(j.contains("links"));  // a replica's all-reduces are timed over the job's links, as training's are
  const Table t = offers_table({p}, run_with_work(), asked_eight(), "Offers", automatic);
  CHECK(t.rows[0][3] == "8 tp2*");
  CHECK(t.rows[0][5] == "-");      // no MFU for inference
  CHECK(t.csv_rows[0][6].empty());
}

TEST_CASE("offer notes: spread GPUs, re-sharding, cached prices, unpriced storage", "[render][offers]") {
  const Sheets s;
  const std::vector<PricedOffer> offers = {resharded_eight(s), cached_one(s)};
  const std::string cached =
      "prices from `gpuplan prices update`: runpod from https://example.com/prices.json, fetched 2026-11-30 08:15 UTC (1 day old); "
      "other providers' from the shipped sheets (--offline: shipped only)";
  CHECK(cached_prices_note(offers, run_with_work()) == cached);
  CHECK(offer_notes(offers, asked_eight(), false, run_with_work()) ==
        std::vector<std::string>{"--gpus not given: each offer runs the job on every GPU its instance bills (give --gpus to fix the count)",
                                 "* ddp replicas do not fit those offers' GPUs: priced with the model states sharded (fsdp)", cached,
                                 "storage is not priced on these sheets (left out of their totals): lambda"});
  CHECK(offer_notes(offers, asked_eight(), true, run_with_work()).front().rfind("* ddp", 0) == 0);  // --gpus given: no spread note
  CHECK(cached_prices_note({resharded_eight(s)}, run_with_work()).empty());
  CHECK(offer_notes({}, asked_eight(), false, run_with_work()).empty());
}

TEST_CASE("excluded offers carry the engine's reason", "[render][offers]") {
  const Sheets s;
  PricedOffer p = cached_one(s);
  p.eval.excluded = Exclusion::no_price;
  const std::string why = exclusion_text(p.eval, s.h100, Pricing::spot);
  CHECK_FALSE(why.empty());
  CHECK(excluded_json({p}, Pricing::spot) ==
        nlohmann::json::parse(R"([{"provider": "runpod", "offer": "h100-1x", "gpu": "h100", "why": )" + nlohmann::json(why).dump() + "}]"));
  const Table t = excluded_table({p}, Pricing::spot);
  CHECK(t.title == "Excluded offers");
  CHECK(t.rows == std::vector<std::vector<std::string>>{{"runpod", "h100-1x", "h100", why}});
}
