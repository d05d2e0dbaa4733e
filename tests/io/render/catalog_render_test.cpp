// The catalog listings (gpus, models, providers) on fixed values: every cell below is what
// the table must print for the value built in the test.
#include <catch2/catch.hpp>

#include "gpuplan/units.hpp"
#include "io/render/catalog_render.hpp"

using namespace gpuplan;
using namespace gpuplan::io;

namespace {

Gpu card() {
  Gpu g;
  g.id = "rtx-4090";
  g.name = "GeForce RTX 4090";
  g.form = GpuForm::consumer;
  g.memory_bytes = 24ull << 30;
  g.memory_bandwidth_gbps = 1008;
  g.dense_tflops[static_cast<int>(PeakPrecision::bf16)] = 165.2;
  g.tdp_watts = 450;
  g.interconnect_kind = "pcie4";
  g.interconnect_gbps = 32;
  g.aliases = {"4090", "RTX 4090"};
  return g;
}

Provider sheet() {
  Provider p;
  p.id = "cloud";
  p.name = "Cloud";
  p.currency = "EUR";
  p.prices_as_of = "2026-11-01";
  p.billing_increment_seconds = 60;
  Offer o;
  o.id = "a-x1";
  o.gpu = "rtx-4090";
  o.gpus = 1;
  o.region = "eu";
  o.per_gpu_hour[static_cast<int>(Pricing::on_demand)] = 0.69;
  o.per_gpu_hour[static_cast<int>(Pricing::spot)] = 0.345;
  p.offers = {o};
  return p;
}

}  // namespace

TEST_CASE("gpus: one row per GPU, raw numbers in CSV, dashes where there is no figure") {
  const Gpu g = card();
  const Table t = gpus_table({&g});
  REQUIRE(t.rows.size() == 1);
  CHECK(t.rows[0] == std::vector<std::string>{"rtx-4090", "GeForce RTX 4090", "consumer", "24", "1008", "165.2", "-", "450",
                                              "pcie4 32 GB/s", "-"});
  // CSV: no fp8 peak and no list price leave empty cells, never "-"; the link speed has its own column.
  CHECK(t.csv_rows[0] == std::vector<std::string>{"rtx-4090", "GeForce RTX 4090", "consumer", "24", "1008", "165.2", "", "450",
                                                  "pcie4", "32", ""});
  CHECK(t.csv_columns.size() == t.csv_rows[0].size());
  CHECK(t.columns.size() == t.rows[0].size());
}

TEST_CASE("gpus show: every peak precision is spelled out, unsupported ones say so") {
  Gpu g = card();
  g.price_usd = 1599;
  g.dense_tflops[static_cast<int>(PeakPrecision::int8)] = 660.6;
  const Table d = gpu_detail_table(g);
  CHECK(d.title == "GeForce RTX 4090 (rtx-4090)");
  auto value = [&](const std::string& field) {
    for (const auto& r : d.rows)
      if (r[0] == field) return r[1];
    return std::string("(missing)");
  };
  CHECK(value("memory") == "24 GiB");
  CHECK(value("bf16 dense peak") == "165.2 TFLOPS");
  CHECK(value("int8 dense peak") == "660.6 TOPS");  // integer peaks are operations, not FLOPs
  CHECK(value("fp8 dense peak") == "unsupported");
  CHECK(value("list price") == "$1599");
  CHECK(value("aliases") == "4090, RTX 4090");
  CHECK(value("ECC") == "no");
}

TEST_CASE("models: counts shortened for people, exact in CSV, parts add to the total") {
  ModelArch m;
  m.id = "tiny";
  m.name = "Tiny";
  m.family = "llama";
  m.layers = 2;
  m.hidden_size = 64;
  m.intermediate_size = 256;
  m.attention_heads = 4;
  m.kv_heads = 2;
  m.head_dim = 16;
  m.vocab_size = 1000;
  m.max_context = 2048;
  const double total = count_params(m).total();
  const Table t = models_table({&m});
  REQUIRE(t.rows.size() == 1);
  CHECK(t.rows[0][0] == "tiny");
  CHECK(t.rows[0][5] == "2");
  CHECK(t.rows[0][8] == "2");
  CHECK(t.rows[0][10] == "2048");
  CHECK(t.csv_rows[0][3] == std::to_string(static_cast<long long>(total)));
  CHECK(t.rows[0][3] == format_count(total));
  const Table parts = model_parts_table(m);
  CHECK(parts.title == "Parameters of Tiny");
  CHECK(parts.rows.back() == std::vector<std::string>{"total", std::to_string(static_cast<long long>(total)), "100.0%"});
  for (const auto& r : parts.rows) CHECK(r[0] != "router");  // a dense model has no router row
}

TEST_CASE("providers list: age and origin as found, empty CSV cells where a sheet states nothing") {
  Provider p = sheet();
  Provider cached = sheet();
  cached.id = "fetched";
  cached.cached_at = "2026-12-01T10:00:00Z";
  cached.source = "https://example.invalid/vms.csv";
  cached.tax_rate = 0.19;
  const std::vector<ProviderListing> rows{{&p, 34, "shipped"}, {&cached, std::nullopt, "cache"}};
  const Table t = providers_table(rows);
  CHECK(t.rows[0] == std::vector<std::string>{"cloud", "Cloud", "EUR", "1", "2026-11-01", "34", "shipped", "60", "-"});
  CHECK(t.csv_rows[0][8] == "");  // no tax stated: empty, not "-"
  CHECK(t.rows[1][5] == "-");
  CHECK(t.csv_rows[1][5] == "");
  CHECK(t.csv_rows[1][8] == "0.19");
  const nlohmann::json j = providers_json(rows);
  CHECK(j[0]["offer_count"] == 1);
  CHECK(j[0]["prices_age_days"] == 34);
  CHECK(j[0]["prices_from"] == "shipped");
  CHECK(j[0]["prices_cached_at"].is_null());
  CHECK(j[1]["prices_age_days"].is_null());
  CHECK(j[1]["prices_cached_at"] == "2026-12-01T10:00:00Z");
  const auto notes = providers_notes(rows);
  REQUIRE(notes.size() == 2);
  CHECK(notes[0] == "fetched: fetched from https://example.invalid/vms.csv at 2026-12-01T10:00:00Z");
  CHECK(providers_notes({{&p, 34, "shipped"}}).empty());
}

TEST_CASE("providers show: only the rows the format prints, prices to four places") {
  const Provider p = sheet();
  const Table shown = provider_offers_table(p, OfferRows::display);
  CHECK(shown.title == "Cloud — prices per GPU-hour in EUR, as of 2026-11-01");
  REQUIRE(shown.rows.size() == 1);
  CHECK(shown.rows[0] == std::vector<std::string>{"a-x1", "rtx-4090", "1", "eu", "0.6900", "0.3450", "-", "-"});
  CHECK(shown.csv_rows.empty());
  const Table csv = provider_offers_table(p, OfferRows::csv);
  CHECK(csv.rows.empty());
  CHECK(csv.csv_rows[0] == std::vector<std::string>{"a-x1", "rtx-4090", "1", "eu", "0.69", "0.345", "", ""});
  CHECK(csv.csv_columns[4] == "on_demand_EUR");
  const Table none = provider_offers_table(p, OfferRows::none);
  CHECK(none.rows.empty());
  CHECK(none.csv_rows.empty());
}

TEST_CASE("catalog validate: each file's counts and problems, and valid only when none has one") {
  CatalogFileCheck good{"gpus.yaml", 3, 0, 0, 0, {}};
  CatalogFileCheck bad{"prices.yaml", 0, 0, 1, 2, {}};
  bad.problems.emplace_back(SourceLocation{"prices.yaml", 7, 5}, "per_gpu_hour", "expected a positive number, got \"abc\"");
  const nlohmann::json j = catalog_check_json({good, bad});
  CHECK(j["valid"] == false);
  CHECK(j["files"][0]["valid"] == true);
  CHECK(j["files"][0]["problems"].empty());
  CHECK(j["files"][1]["path"] == "prices.yaml");
  CHECK(j["files"][1]["problems"][0]["line"] == 7);
  CHECK(j["files"][1]["problems"][0]["column"] == 5);
  CHECK(j["files"][1]["problems"][0]["field"] == "per_gpu_hour");
  CHECK(j["files"][1]["problems"][0]["message"] == "expected a positive number, got \"abc\"");
  CHECK(catalog_check_json({good})["valid"] == true);
  const Table t = catalog_check_table({good, bad});
  CHECK(t.rows[0] == std::vector<std::string>{"gpus.yaml", "3", "0", "0", "0", "0"});
  CHECK(t.rows[1] == std::vector<std::string>{"prices.yaml", "0", "0", "1", "2", "1"});
}

TEST_CASE("providers show: the sheet's source, and when prices update fetched it") {
  Provider p = sheet();
  p.source = "https://example.com/prices";
  CHECK(provider_notes(p) == std::vector<std::string>{"source: https://example.com/prices"});
  p.cached_at = "2026-12-05T05:00:00Z";
  CHECK(provider_notes(p) == std::vector<std::string>{"source: https://example.com/prices (`gpuplan prices update`, fetched 2026-12-05T05:00:00Z)"});
}
