#include <catch2/catch.hpp>

#include "io/catalogs/yaml_catalog.hpp"

using namespace gpuplan;
using gpuplan::io::parse_catalog_yaml;

namespace {

const char* kGoodGpu = R"(schema_version: 1
gpus:
  - id: test-gpu
    name: Test GPU
    vendor: nvidia
    architecture: ada
    form: consumer
    aliases: ["TG"]
    memory_gib: 24
    memory_bandwidth_gbps: 1008
    tflops: {fp32: 82.6, bf16: 165.2}
    tdp_watts: 450
    interconnect: {kind: pcie4, bandwidth_gbps: 32}
    ecc: false
    price_usd: 1599
)";

// The first error's line and a fragment of its message.
void expect_error(const std::string& yaml, int line, const std::string& fragment) {
  const auto load = parse_catalog_yaml(yaml, "bad.yaml", Catalog{});
  INFO(yaml);
  REQUIRE_FALSE(load.errors.empty());
  bool found = false;
  for (const auto& e : load.errors) {
    if (e.where().line == line && std::string(e.what()).find(fragment) != std::string::npos) found = true;
  }
  if (!found)
    for (const auto& e : load.errors) WARN(e.what());
  CHECK(found);
}

}  // namespace

TEST_CASE("a good GPU entry loads with every field", "[io][yaml]") {
  const auto load = parse_catalog_yaml(kGoodGpu, "good.yaml", Catalog{});
  REQUIRE(load.errors.empty());
  REQUIRE(load.catalog.gpus.size() == 1);
  const Gpu& g = load.catalog.gpus[0];
  CHECK(g.memory_bytes == 24ull << 30);
  CHECK(g.tflops(PeakPrecision::bf16) == Approx(165.2));
  CHECK(g.tflops(PeakPrecision::fp8) == 0);
  CHECK(g.where.line == 3);
  CHECK(*g.price_usd == 1599);
}

TEST_CASE("broken catalogs name file, line and field", "[io][yaml]") {
  std::string typo = kGoodGpu;
  typo.replace(typo.find("tdp_watts"), 9, "tdp_wats");
  expect_error(typo, 12, "did you mean 'tdp_watts'");

  std::string negative = kGoodGpu;
  negative.replace(negative.find("memory_gib: 24"), 14, "memory_gib: -24");
  expect_error(negative, 9, "at least 0.25");

  std::string text = kGoodGpu;
  text.replace(text.find("memory_gib: 24"), 14, "memory_gib: lots");
  expect_error(text, 9, "expected a number");

  std::string nan = kGoodGpu;
  nan.replace(nan.find("memory_gib: 24"), 14, "memory_gib: .nan");
  expect_error(nan, 9, "expected a number");

  expect_error("gpus:\n  - id: Bad_ID\n", 2, "lowercase");
  expect_error("gpus: [\n", 2, "invalid YAML");
  expect_error("", 1, "empty catalog");
  expect_error("gpu: []\n", 1, "did you mean 'gpus'");
  expect_error(std::string(kGoodGpu) + std::string(kGoodGpu).substr(std::string(kGoodGpu).find("  - id")), 16, "duplicate GPU id");
}

TEST_CASE("every problem is reported, not just the first", "[io][yaml]") {
  const auto load = parse_catalog_yaml("gpus:\n  - id: a\n    name: A\n", "x.yaml", Catalog{});
  CHECK(load.errors.size() >= 7);  // vendor, architecture, form, memory, bandwidth, tflops, tdp, interconnect, ecc
}

TEST_CASE("offers must name a known GPU and a price", "[io][yaml]") {
  const auto gpus = parse_catalog_yaml(kGoodGpu, "g.yaml", Catalog{}).catalog;
  const std::string sheet = R"(providers:
  - id: p
    name: P
    currency: USD
    prices_as_of: 2026-01-01
    source: test
    billing_increment_seconds: 60
    offers:
      - {id: a, gpu: TG, gpus: 1, region: any, on_demand_per_gpu_hour: 1.5}
      - {id: b, gpu: test-gpx, gpus: 1, region: any, on_demand_per_gpu_hour: 1.5}
      - {id: c, gpu: test-gpu, gpus: 1, region: any}
      - {id: d, gpu: test-gpu, gpus: 1, region: any, spot_per_gpu_hour: -1}
)";
  const auto load = parse_catalog_yaml(sheet, "s.yaml", gpus);
  REQUIRE(load.catalog.providers.size() == 1);
  CHECK(load.catalog.providers[0].offers[0].gpu == "test-gpu");
  REQUIRE(load.errors.size() >= 3);
  CHECK(load.errors[0].where().line == 10);
  CHECK(std::string(load.errors[0].what()).find("did you mean 'test-gpu'") != std::string::npos);
  CHECK(load.errors[1].where().line == 11);
  CHECK(std::string(load.errors[1].what()).find("at least one price") != std::string::npos);
}

TEST_CASE("pathologically deep YAML is refused before parsing", "[io][yaml][hardening]") {
  const std::string deep = "gpus: " + std::string(10000, '[') + std::string(10000, ']') + "\n";
  const auto load = parse_catalog_yaml(deep, "deep.yaml", Catalog{});
  REQUIRE(load.errors.size() == 1);
  CHECK(std::string(load.errors[0].what()).find("nesting deeper") != std::string::npos);
}
