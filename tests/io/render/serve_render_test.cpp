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

// A limit with its number and the bound it passes (and, beyond the fleet, the GPUs per replica).
ServingShortfall limit(ServingLimit l, double value, double target, int gpus_per_replica = 0) {
  ServingShortfall f;
  f.limit = l;
  f.value = value;
  f.target = target;
  f.gpus_per_replica = gpus_per_replica;
  return f;
}

// The sheet's offer, left out for want of a spot price.
ServingExclusion no_spot_price(const Sheet& s) {
  ServingExclusion e;
  e.where = {&s.provider, &s.offer, nullptr, 1};
  e.refusal = ServingRefusal::no_price;
  e.pricing = Pricing::spot;
  return e;
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
  late.fleet.latency_shortfall = limit(ServingLimit::ttft_idle, 0.9, 0.5);
  CHECK(serving_option_json(late, {"chat", "on_demand", "USD", false})["latency_problem"] == "TTFT with no queue is 900 ms, over the 500 ms target");
}

TEST_CASE("the serving table rounds for people, its CSV keeps raw numbers", "[render][serve]") {
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
  search.excluded = {no_spot_price(s)};
  const Table t = serving_excluded_table(search);
  CHECK(t.columns == std::vector<std::string>{"offer", "why"});
  CHECK(t.rows == std::vector<std::vector<std::string>>{{"runpod/h100-sxm", "no spot price"}});
}

// --- the whole report ---------------------------------------------------------------------------

namespace {

// One route at 2 req/s (peak x3), the fixed option above meeting the targets, one offer excluded.
ServeReport report(const Sheet& s) {
  ServeReport r;
  r.traffic = {2, 3};
  r.req.prompt_tokens = 1000;
  r.req.output_tokens = 200;
  r.req.shared_prefix_tokens = 100;
  r.targets.tpot_seconds = 0.05;
  r.cfg.k.memory_utilization = 0.9;
  r.cfg.k.max_batch = 256;
  r.run.currency = "USD";
  r.run.fx.as_of = "2026-11-01";
  ServeRoute route;
  route.model_id = "llama-3.1-8b";
  route.model_name = "Llama 3.1 8B";
  route.model_source = "catalog";
  route.search.options = {option(s)};
  route.search.excluded = {no_spot_price(s)};
  r.routes = {route};
  return r;
}

}  // namespace

TEST_CASE("serve's JSON: the inputs echoed, the shown offers, each route's best and the combined cost", "[render][serve]") {
  const Sheet s;
  ServeReport r = report(s);
  r.price_warnings = {"runpod: prices are 40 days old"};
  const nlohmann::json j = serve_json(r);
  CHECK(j["traffic"] == nlohmann::json{{"requests_per_second_mean", 2.0}, {"requests_per_second_peak", 6.0}, {"peak_factor", 3.0},
                                       {"prompt_tokens", 1000.0}, {"output_tokens", 200.0}, {"shared_prefix_tokens", 100.0},
                                       {"ttft_p95_target_seconds", nullptr}, {"tpot_target_seconds", 0.05}});
  CHECK(j["serving"] == nlohmann::json{{"quant", "native"}, {"kv_cache_dtype", "bf16"}, {"batching", "continuous"},
                                       {"memory_utilization", 0.9}, {"max_batch", 256}, {"scaling", "fixed"}, {"min_replicas", nullptr}});
  CHECK(j["currency"] == "USD");
  REQUIRE(j["offers"].size() == 1);
  CHECK(j["offers"][0]["route"] == "all");
  CHECK(j["offers"][0]["pricing"] == "on-demand");
  REQUIRE(j["routes"].size() == 1);
  CHECK(j["routes"][0]["model"] == nlohmann::json{{"id", "llama-3.1-8b"}, {"name", "Llama 3.1 8B"}, {"source", "catalog"}});
  CHECK(j["routes"][0]["share"] == 1.0);
  CHECK(j["routes"][0]["best"]["cost_per_month"] == 12345.678);
  CHECK(j["excluded"] == nlohmann::json::parse(R"([{"route": "all", "offer": "runpod/h100-sxm", "why": "no spot price"}])"));
  // One route: the combined cost is its own; 1.2e9 tokens and (unset) 0 requests a month.
  CHECK(j["combined"]["cost_per_month"] == 12345.678);
  CHECK(j["combined"]["cost_per_million_output_tokens"].get<double>() == Approx(12345.678 / 1200));
  CHECK(j["combined"]["cost_per_request"] == 0.0);
  CHECK(j["warnings"] == nlohmann::json{"runpod: prices are 40 days old"});

  r.scaling.autoscale = true;
  r.scaling.min_replicas = 0;
  CHECK(serve_json(r)["serving"]["scaling"] == "scale-to-zero");
  CHECK(serve_json(r)["serving"]["min_replicas"] == 0);
  CHECK(serve_json(r)["offers"][0]["cold_start_seconds"] == 95);  // shown with scale to zero only
  r.routes[0].search.options[0].fleet.meets_latency = false;     // nothing meets the targets
  CHECK(serve_json(r)["routes"][0]["best"].is_null());
  CHECK(serve_json(r)["combined"].is_null());
}

TEST_CASE("serve's tables: options titled by model, quant, KV, rate and peak, then the roofline and (asked) exclusions", "[render][serve]") {
  const Sheet s;
  ServeReport r = report(s);
  r.routes[0].search.roofline = {{1, 0.01, 100, false}};
  std::vector<Table> t = serve_tables(r, automatic);
  REQUIRE(t.size() == 2);  // no --explain: the exclusion is not listed
  CHECK(t[0].title == "Llama 3.1 8B, 16-bit, KV bf16, 2.00 req/s (peak x3.0) (USD)");
  CHECK(t[1].title == "Decode roofline on h100 (knee at batch 150)");
  r.explain = true;
  r.quant = "int4-awq";
  r.routes[0].model_name = "";
  t = serve_tables(r, automatic);
  REQUIRE(t.size() == 3);
  CHECK(t[0].title == "llama-3.1-8b, int4-awq, KV bf16, 2.00 req/s (peak x3.0) (USD)");
  CHECK(t[2].title == "Excluded offers");
  r.top = 0;
  CHECK(serve_tables(r, automatic)[0].rows.empty());
  // Routed: each route titled with its share, no roofline.
  r.routed = true;
  r.top = 10;
  r.routes[0].name = "small";
  r.routes[0].share = 0.7;
  r.traffic.peak_factor = 1;
  t = serve_tables(r, automatic);
  REQUIRE(t.size() == 2);
  CHECK(t[0].title == "Route small (70%): llama-3.1-8b, int4-awq, KV bf16, 1.40 req/s (USD)");
  CHECK(t[1].title == "Excluded offers");
}

TEST_CASE("serve's notes are chosen from the report's fields and the search's codes", "[render][serve]") {
  const Sheet s;
  ServeReport r = report(s);
  const std::string method = "tok/s/GPU at the max batch; TTFT and TPOT at the peak rate (p95: M/M/c queue, Poisson concurrency); "
                             "costs include idle capacity at the mean rate";
  CHECK(serve_notes(r, automatic) == std::vector<std::string>{method});  // 42% utilised: no idle note

  r.routes[0].search.options[0].fleet.utilization = 0.123;
  r.routes[0].assumptions = {"vocabulary of 128256"};
  r.quant = "int4-awq";
  r.daily_rate = true;
  r.traffic.peak_factor = 1;
  r.cpu_box = true;
  r.run.currency = "INR";
  CHECK(serve_notes(r, automatic) ==
        std::vector<std::string>{
            "the cheapest fleet is 12% utilised: most paid hours are idle capacity (--autoscale or --scale-to-zero bills less at low traffic)",
            "assumed: vocabulary of 128256",
            "int4-awq weights: quality must be checked on your own evaluation set; gpuplan models speed and memory, not accuracy",
            "sized for the daily mean rate: give --peak-factor for busy hours", method,
            "the CPU box uses the GPU constants (bandwidth 75%, compute 65%): no measured CPU case backs them",
            "exchange rates as of 2026-11-01"});
  r.scaling.autoscale = true;
  CHECK(serve_notes(r, automatic)[0] == "the cheapest fleet is 12% utilised: most paid hours are idle capacity");
}

TEST_CASE("serve's notes say why a route has no answer: latency, beyond any fleet, or nothing hosts it", "[render][serve]") {
  const Sheet s;
  ServeReport r = report(s);
  r.routes[0].search.options[0].fleet.meets_latency = false;
  r.routes[0].search.options[0].fleet.latency_shortfall = limit(ServingLimit::tpot_at_batch_one, 0.08, 0.05);
  CHECK(serve_notes(r, automatic)[0] == "no offer meets the latency target: TPOT at batch 1 is 80 ms, over the 50 ms target");
  r.routes[0].search.options.clear();
  CHECK(serve_notes(r, automatic)[0] == "no offer meets the latency target (nothing can host the model; --explain lists why)");
  ServingExclusion beyond = no_spot_price(s);
  beyond.refusal = ServingRefusal::beyond_fleet;
  beyond.shortfall = limit(ServingLimit::beyond_fleet, 120000, 100000, 1);
  r.routes[0].search.excluded.push_back(beyond);
  CHECK(serve_notes(r, automatic)[0] == "the traffic is beyond any sane fleet on every offer that hosts the model (runpod/h100-sxm: "
                                        "the peak needs 120000 replicas (1 GPU each), beyond any sane fleet (limit 100000 GPUs)); "
                                        "split it, lower it, or shorten the requests");
  r.routed = true;
  r.routes[0].name = "large";
  CHECK(serve_notes(r, automatic)[0].rfind("route large: the traffic is beyond", 0) == 0);
}

TEST_CASE("serve's routed total: each route's cheapest option summed, said only when routed", "[render][serve]") {
  const Sheet s;
  ServeReport r = report(s);
  r.routes[0].search.options[0].fleet.requests_per_month = 6e6;
  ServeRoute second = r.routes[0];
  second.name = "large";
  second.search.options[0].cost.per_month = 654.322;
  second.search.options[0].fleet.output_tokens_per_month = 0.8e9;
  second.search.options[0].fleet.requests_per_month = 4e6;
  r.routes.push_back(second);
  CHECK(serve_notes(r, automatic).size() == 1);  // not routed: no total line
  r.routed = true;
  // 13000 USD over 2e9 tokens (6.50 per 1M) and 1e7 requests (0.0013 each).
  CHECK(serve_notes(r, automatic).at(0) == "routed total: 13,000 USD a month, 6.50 per 1M output tokens, 0.001300 per request (each route's cheapest offer)");
  const nlohmann::json c = serve_json(r)["combined"];
  CHECK(c["cost_per_month"].get<double>() == Approx(13000));
  CHECK(c["cost_per_million_output_tokens"].get<double>() == Approx(6.5));
  CHECK(c["cost_per_request"].get<double>() == Approx(0.0013));
}

TEST_CASE("serve's report with no routes: empty lists and a zero total", "[render][serve]") {
  ServeReport r;
  const nlohmann::json j = serve_json(r);
  CHECK(j["offers"] == nlohmann::json::array());
  CHECK(j["routes"] == nlohmann::json::array());
  CHECK(j["excluded"] == nlohmann::json::array());
  CHECK(j["warnings"] == nlohmann::json::array());
  CHECK(j["combined"]["cost_per_month"] == 0.0);
  CHECK(serve_tables(r, automatic).empty());
  CHECK(serve_notes(r, automatic).size() == 1);  // the method note only
}
