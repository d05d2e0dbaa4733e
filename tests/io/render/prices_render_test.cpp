// prices update's report on three fixed rows (updated, unchanged, failed): JSON's nulls for what
// does not apply, the table's source-or-reason column and dashes, CSV's own columns, the errors.
#include <catch2/catch.hpp>

#include "io/render/prices_render.hpp"

using namespace gpuplan;
using namespace gpuplan::io;

namespace {

PricesUpdateView view() {
  PricesUpdateView v;
  v.cache_dir = "/home/a/.cache/gpuplan/prices";
  v.rows.push_back({"runpod", PriceUpdateOutcome::updated, "https://m/catalogs/v8/runpod/vms.csv", 4, 2048, "2026-12-05T05:00:00Z", std::nullopt});
  v.rows.push_back({"lambda", PriceUpdateOutcome::unchanged, "https://m/catalogs/v8/lambda/vms.csv", std::nullopt, std::nullopt, "2026-12-05T05:00:01Z",
                    std::nullopt});
  v.rows.push_back({"vast", PriceUpdateOutcome::failed, "https://m/catalogs/v8/vast/vms.csv", std::nullopt, std::nullopt, std::nullopt, "HTTP 404"});
  return v;
}

}  // namespace

TEST_CASE("prices update JSON: counts only for a fresh sheet, checked_at unless failed, a reason only for a failure", "[render][prices]") {
  const nlohmann::json j = prices_update_json(view());
  CHECK(j["cache_dir"] == "/home/a/.cache/gpuplan/prices");
  REQUIRE(j["updates"].size() == 3);
  const auto& up = j["updates"][0];
  CHECK(up == nlohmann::json{{"provider", "runpod"}, {"outcome", "updated"}, {"source", "https://m/catalogs/v8/runpod/vms.csv"},
                             {"offers", 4}, {"bytes", 2048}, {"checked_at", "2026-12-05T05:00:00Z"}, {"reason", nullptr}});
  CHECK(j["updates"][1]["offers"].is_null());
  CHECK(j["updates"][1]["bytes"].is_null());
  CHECK(j["updates"][1]["checked_at"] == "2026-12-05T05:00:01Z");
  CHECK(j["updates"][2]["checked_at"].is_null());
  CHECK(j["updates"][2]["reason"] == "HTTP 404");
  CHECK(j["updates"][2]["source"] == "https://m/catalogs/v8/vast/vms.csv");
}

TEST_CASE("prices update table: dashes for absent counts, the reason in place of a failed source", "[render][prices]") {
  const Table t = prices_update_table(view());
  CHECK(t.columns == std::vector<std::string>{"provider", "outcome", "offers", "bytes", "source / reason"});
  CHECK(t.cuttable == std::vector<std::size_t>{4});
  CHECK(t.rows == std::vector<std::vector<std::string>>{{"runpod", "updated", "4", "2048", "https://m/catalogs/v8/runpod/vms.csv"},
                                                        {"lambda", "unchanged", "-", "-", "https://m/catalogs/v8/lambda/vms.csv"},
                                                        {"vast", "failed", "-", "-", "HTTP 404"}});
  CHECK(t.csv_columns == std::vector<std::string>{"provider", "outcome", "offers", "bytes", "source", "reason"});
  CHECK(t.csv_rows[0] == std::vector<std::string>{"runpod", "updated", "4", "2048", "https://m/catalogs/v8/runpod/vms.csv", ""});
  CHECK(t.csv_rows[2] == std::vector<std::string>{"vast", "failed", "", "", "https://m/catalogs/v8/vast/vms.csv", "HTTP 404"});
}

TEST_CASE("prices update notes and errors: the cache named, one error per failed provider", "[render][prices]") {
  const auto notes = prices_update_notes(view());
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].rfind("cache: /home/a/.cache/gpuplan/prices; ", 0) == 0);
  CHECK(prices_update_errors(view()) ==
        std::vector<std::string>{"vast: HTTP 404 (https://m/catalogs/v8/vast/vms.csv); its previous cached sheet, if any, is kept"});
}

TEST_CASE("prices update with no providers: an empty list, no rows, no errors", "[render][prices]") {
  const PricesUpdateView v{"/c", {}};
  CHECK(prices_update_json(v)["updates"] == nlohmann::json::array());
  CHECK(prices_update_table(v).rows.empty());
  CHECK(prices_update_table(v).csv_rows.empty());
  CHECK(prices_update_errors(v).empty());
}
