// serve's rows on one fixed option (2-way TP replicas on an 8-GPU instance): JSON's raw figures
// and nulls, the table's rounding, the roofline and the excluded offers.
#include <catch2/catch.hpp>

#include "gpuplan/units.hpp"
#include "io/render/serve_render.hpp"

using namespace gpuplan;
using namespace gpuplan::io;

namespace {

// Money as the CLI spells it without --grouping: Indian for INR, international otherwise.
const MoneyStyle automatic{DigitGrouping::automatic};

struct Sheet {
  Provider provider;
  Offer offer;
  Sheet() {
    provider.id = "runpod";
    provider.prices_as_of = "2026-11-01";
    offer.id = "h100-sxm";
    offer.provider = "runpod";
    offer.gpu = "h100";
    offer.region = "us-east";
    offer.gpus = 8;
  }
};

ServingOption option(const Sheet& s) {
  ServingOption o;
  o.where = {&s.provider, &s.offer, nullptr, 1};
  o.tp = 2;
  o.plan.capacity.max_concurrent_sequences = 128;
  o.plan.capacity.kv_bound_sequences = 300;
  o.plan.capacity.weight_bytes = 8e9 + 0.4;
  o.plan.capacity.kv_free_bytes = 6e10;
  o.plan.operating_batch = 64;
  o.plan.knee_batch = 150.4;
  o.plan.tpot_seconds = 0.025;
  o.plan.prefill_seconds = 0.12;
  o.plan.tokens_per_second = 2560;
  o.fleet.replicas = 3;
  o.fleet.utilization = 0.42;
  o.fleet.ttft_seconds = 0.4567;
  o.fleet.at_peak.tpot_seconds = 0.0312;
  o.fleet.at_peak.mean_batch = 20.5;
  o.fleet.meets_latency = true;
  o.fleet.replica_hours_per_month = 2190;
  o.fleet.output_tokens_per_month = 1.2e9;
  o.cost.replicas_per_instance = 4;
  o.cost.instances = 1;
  o.cost.gpus_billed = 8;
  o.cost.per_month = 12345.678;
  o.cost.rate_per_hour = 16.91;
  o.cost.per_million_output_tokens = 10.2881;
  o.cost.per_request = 0.0041152;
  o.cost.at_full_load_per_million_output_tokens = 4.32;
  o.cold_start_seconds = 95;
  return o;
}

}  // namespace

TEST_CASE("a serving option's JSON: raw figures, per-GPU speeds and nulls for what does not apply", "[render][serve]") {
  const Sheet s;
  const nlohmann::json j = serving_option_json(option(s), {"chat", "on_demand", "USD", false});
  CHECK(j["route"] == "chat");
  CHECK(j["provider"] == "runpod");
  CHECK(j["offer"] == "h100-sxm");
  CHECK(j["region"] == "us-east");
  CHECK(j["prices_as_of"] == "2026-11-01");
  CHECK(j["tensor_parallel"] == 2);
  CHECK(j["replicas"] == 3);
  CHECK(j["gpus_billed"] == 8);
  CHECK(j["weight_bytes_per_gpu"] == 8000000000LL);  // whole bytes
  CHECK(j["kv_cache_bytes_per_gpu"] == 60000000000LL);
  CHECK(j["tokens_per_second_per_gpu"] == 1280);    // 2560 per replica over its 2 GPUs
  // 1.2e9 tokens a month over 730 h, spread over 3 replicas x 2 GPUs
  CHECK(j["served_tokens_per_second_per_gpu"].get<double>() == Approx(1.2e9 / (730.0 * 3600) / 6));
  CHECK(j["utilization"] == 0.42);
  CHECK(j["ttft_p95_seconds"] == 0.4567);
  CHECK(j["tpot_seconds"] == 0.0312);
  CHECK(j["tpot_at_operating_batch_seconds"] == 0.025);
  CHECK(j["meets_latency"] == true);
  CHECK(j["latency_problem"].is_null());
  CHECK(j["cold_start_seconds"].is_null());  // only with scale to zero
  CHECK(j["cost_per_month"] == 12345.678);   // not rounded
  CHECK(j["cost_per_request"] == 0.0041152);
  CHECK(serving_option_json(option(s), {"chat", "spot", "USD", true})["cold_start_seconds"] == 95);
  ServingOption late = option(s);
  late.fleet.latency_why = "TTFT p95 0.9 s over the 0.5 s target";
  CHECK(serving_option_json(late, {"chat", "on_demand", "USD", false})["latency_problem"] == "TTFT p95 0.9 s over the 0.5 s target");
}

TEST_CASE("the serving table rounds for people; its CSV keeps raw numbers", "[render][serve]") {
  const Sheet s;
  const Table t = serving_options_table({option(s)}, "Serving options", "USD", automatic);
  CHECK(t.title == "Serving options (USD)");
  REQUIRE(t.rows.size() == 1);
  CHECK(t.rows[0] == std::vector<std::string>{"runpod/h100-sxm", "h100", "2", "3", "64", "42%", "1280", "457 ms", "31 ms", "yes", "12,346",
                                              "10.29", "0.004115"});
  CHECK(t.csv_columns[11] == "cost_per_month_USD");
  CHECK(t.csv_rows[0] == std::vector<std::string>{"runpod", "h100-sxm", "h100", "2", "3", "64", "0.42", "1280", "0.4567", "0.0312",
                                                  "true", "12345.678", "10.2881", "0.0041152"});
  CHECK(serving_options_table({}, "None", "EUR", automatic).rows.empty());
}

TEST_CASE("rates and per-request money are spelled to suit their size", "[render][serve]") {
  CHECK(rate_text(5) == "5.00 req/s");
  CHECK(rate_text(12.5) == "12.5 req/s");
  CHECK(rate_text(0.05) == "180.0 req/hour");
  CHECK(rate_text(3.0 / 86400) == "3.0 req/day");
  CHECK(serving_money(1234.4, "USD", automatic) == "1,234");
  CHECK(serving_money(2.5, "USD", automatic) == "2.50");
  CHECK(serving_money(0.05, "USD", automatic) == "0.0500");
  CHECK(serving_money(0.001234, "USD", automatic) == "0.001234");
}

TEST_CASE("the roofline: memory or compute bound per batch, past the KV cache marked", "[render][serve]") {
  const Sheet s;
  ServingSearch search;
  CHECK(roofline_table(search).columns.empty());  // no option: no table
  CHECK(roofline_json(search) == nlohmann::json::array());
  search.options = {option(s)};
  search.roofline = {{1, 0.01, 100, false}, {256, 0.08, 3200, true}};
  search.roofline_capacity = 128;
  CHECK(roofline_json(search) == nlohmann::json::parse(R"([
      {"batch": 1, "step_seconds": 0.01, "tokens_per_second": 100, "bound": "memory", "fits": true},
      {"batch": 256, "step_seconds": 0.08, "tokens_per_second": 3200, "bound": "compute", "fits": false}])"));
  const Table t = roofline_table(search);
  CHECK(t.title == "Decode roofline on h100 (knee at batch 150)");
  CHECK(t.rows == std::vector<std::vector<std::string>>{{"1", "10.00 ms", "100", "memory"},
                                                        {"256", "80.00 ms", "3200", "compute (over the KV cache or --max-batch)"}});
}

TEST_CASE("excluded serving offers say why", "[render][serve]") {
  const Sheet s;
  ServingSearch search;
  search.excluded = {{{&s.provider, &s.offer, nullptr, 1}, "no spot price on the sheet", ServingRefusal::no_price}};
  const Table t = serving_excluded_table(search);
  CHECK(t.columns == std::vector<std::string>{"offer", "why"});
  CHECK(t.rows == std::vector<std::vector<std::string>>{{"runpod/h100-sxm", "no spot price on the sheet"}});
}
