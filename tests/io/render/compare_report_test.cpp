// compare's report on two fixed priced offers and three --sheet files (one with no offer that
// fits): the sheets side by side, JSON's per-sheet best and difference, and the notes.
#include <catch2/catch.hpp>

#include "io/render/compare_report.hpp"

using namespace gpuplan;
using namespace gpuplan::io;

namespace {

// Money as the CLI spells it without --grouping: Indian for INR, international otherwise.
const MoneyStyle automatic{DigitGrouping::automatic};

struct Fixture {
  Provider lambda, runpod;
  Offer a, b;
  Gpu h100;
  CompareReport r;

  PricedOffer priced(const Provider& p, const Offer& o, double per_million, double total) const {
    PricedOffer x;
    x.provider = &p;
    x.offer = &o;
    x.gpu = &h100;
    x.eval.workload.gpus = 1;
    x.per_million_tokens = per_million;
    x.total = total;
    x.eval.cost = RunCost{};
    // What convert_for_display fills beside the total whenever the run is priced.
    x.compute = total;
    x.storage = x.egress = x.tax = 0.0;
    return x;
  }

  Fixture() {
    lambda.id = "lambda";
    lambda.prices_as_of = "2026-11-20";
    runpod.id = "runpod";
    runpod.prices_as_of = "2026-11-25";
    a.id = "gpu_1x_h100";
    a.provider = "lambda";
    a.gpu = "h100";
    b.id = "h100-1x";
    b.provider = "runpod";
    b.gpu = "h100";
    h100.id = "h100";
    r.model_id = "llama-3-8b";
    r.model_name = "Llama 3 8B";
    r.model_source = "catalog";
    r.sort = "cost";
    r.run.today = "2026-12-01";
    r.run.spec.tokens = 1e9;
    // What compare fills from its compact ranking: the rows shown, the counts, the best cost,
    // whether any row meets the limits, and each sheet's best row.
    r.shown = {priced(lambda, a, 0.2, 50), priced(runpod, b, 0.25, 62.5)};
    r.priced = 2;
    r.best_cost = 50;
    r.limits_met = true;
    r.sheets = {{"data/lambda.yaml", {"lambda"}}, {"my-sheet.csv", {"runpod"}}, {"empty.yaml", {"vast"}}};
    r.sheet_best = {r.shown[0], r.shown[1], std::nullopt};
  }
};

}  // namespace

TEST_CASE("sheets side by side: each sheet's best, how far from the best of all", "[render][compare]") {
  const Fixture f;
  const auto tables = compare_tables(f.r, automatic);
  REQUIRE(tables.size() == 2);  // offers, sheets (no --explain)
  CHECK(tables[0].title == "Offers by cost: Llama 3 8B, full, on-demand");
  CHECK(tables[0].rows.size() == 2);
  const Table& s = tables[1];
  CHECK(s.columns == std::vector<std::string>{"sheet", "provider", "offer", "per_1M_tok", "total", "vs best"});
  CHECK(s.rows == std::vector<std::vector<std::string>>{{"data/lambda.yaml", "lambda", "gpu_1x_h100", "0.20", "50.00", "best"},
                                                        {"my-sheet.csv", "runpod", "h100-1x", "0.25", "62.50", "+12.50 (+25%)"},
                                                        {"empty.yaml", "vast", "-", "-", "-", "nothing fits"}});
}

TEST_CASE("compare JSON: the offers shown, the excluded, each sheet's best and its difference", "[render][compare]") {
  const Fixture f;
  const nlohmann::json j = compare_json(f.r);
  CHECK(j["model"]["name"] == "Llama 3 8B");
  CHECK(j["sort"] == "cost");
  CHECK(j["currency"] == "USD");
  REQUIRE(j["offers"].size() == 2);
  CHECK(j["offers"][1]["offer"] == "h100-1x");
  CHECK(j["excluded"] == nlohmann::json::array());
  REQUIRE(j["sheets"].size() == 3);
  CHECK(j["sheets"][0]["sheet"] == "data/lambda.yaml");
  CHECK(j["sheets"][0]["best"]["offer"] == "gpu_1x_h100");
  CHECK(j["sheets"][0]["difference"] == 0);
  CHECK(j["sheets"][1]["difference"] == 12.5);  // raw, in the display currency
  CHECK(j["sheets"][2] == nlohmann::json::parse(R"({"sheet": "empty.yaml", "best": null})"));
  Fixture plain;
  plain.r.sheets.clear();
  CHECK_FALSE(compare_json(plain.r).contains("sheets"));
}

TEST_CASE("compare notes: counts, the exchange rates, assumptions", "[render][compare]") {
  Fixture f;
  f.r.assumptions = {"seq_len 4096"};
  CHECK(compare_notes(f.r) ==
        std::vector<std::string>{"2 offers priced, 0 excluded (--explain lists them); * = on the cost/time Pareto front", "assumed: seq_len 4096"});
  CHECK_FALSE(f.r.answer_is_no());
  f.r.run.currency = "INR";
  f.r.run.fx.as_of = "2026-11-01";
  CHECK(compare_notes(f.r).back() == "assumed: seq_len 4096");
  CHECK(compare_notes(f.r)[1] == "exchange rates as of 2026-11-01");
}

TEST_CASE("compare's answer is no when nothing runs or nothing meets the limits", "[render][compare]") {
  Fixture f;
  f.r.run.budget = 10;
  for (auto& p : f.r.shown) p.meets_budget = false;
  f.r.limits_met = false;
  CHECK(f.r.answer_is_no());
  CHECK(compare_notes(f.r)[0] == "no offer meets the budget and deadline");

  Fixture none;
  none.r.shown.clear();
  none.r.priced = 0;
  none.r.best_cost = 0;
  none.r.limits_met = false;
  none.r.sheet_best = {std::nullopt, std::nullopt, std::nullopt};
  none.r.run.spec.tokens.reset();
  none.r.explain = true;
  none.r.excluded = {f.priced(f.lambda, f.a, 0, 0)};
  none.r.excluded[0].eval.excluded = Exclusion::does_not_fit;
  none.r.excluded_count = 1;
  CHECK(none.r.answer_is_no());
  CHECK(compare_notes(none.r) ==
        std::vector<std::string>{"no offer can run this job",
                                 "no run size given (--tokens, --steps or --dataset-tokens): costs are per step and per million tokens",
                                 "0 offers priced, 1 excluded; * = on the cost/time Pareto front"});
  const auto tables = compare_tables(none.r, automatic);
  REQUIRE(tables.size() == 3);  // offers (empty), sheets, excluded with --explain
  CHECK(tables[0].rows.empty());
  CHECK(tables[1].rows[0].back() == "nothing fits");
  CHECK(tables[2].title == "Excluded offers");
  CHECK(compare_json(none.r)["excluded"].size() == 1);
}
