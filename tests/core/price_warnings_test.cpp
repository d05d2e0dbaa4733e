// The core's price warnings as values: a sheet past --stale-after or undated, each sheet once
// however many offers it prices, and one mixed-tax warning naming the sheets without a rate.
#include <catch2/catch.hpp>

#include "gpuplan/offer_search.hpp"

using namespace gpuplan;

namespace {

Provider sheet(const std::string& id, const std::string& as_of, std::optional<double> tax = std::nullopt) {
  Provider p;
  p.id = id;
  p.prices_as_of = as_of;
  p.tax_rate = tax;
  return p;
}

RunSettings on(const std::string& today) {
  RunSettings r;
  r.today = today;
  r.stale_after_days = 30;
  return r;
}

}  // namespace

TEST_CASE("price warnings: stale and undated sheets, each once, in the order given", "[offer_search][price_warnings]") {
  const Provider fresh = sheet("fresh", "2026-12-01", 0.18), old = sheet("old", "2026-10-01", 0.18), undated = sheet("undated", "", 0.18);
  const auto ws = price_warnings(std::vector<const Provider*>{&old, &fresh, &undated, &old}, on("2026-12-05"));
  REQUIRE(ws.size() == 2);
  CHECK(ws[0].kind == PriceWarningKind::stale);
  CHECK(ws[0].provider == "old");
  CHECK(ws[0].age_days == 65);
  CHECK(ws[0].stale_after_days == 30);
  CHECK(ws[1].kind == PriceWarningKind::undated);
  CHECK(ws[1].provider == "undated");
}

TEST_CASE("price warnings: totals on two tax bases name the sheets with no rate", "[offer_search][price_warnings]") {
  const Provider with = sheet("taxed", "2026-12-01", 0.18), a = sheet("a", "2026-12-01"), b = sheet("b", "2026-12-01");
  const std::vector<const Provider*> sheets{&a, &with, &b};
  const auto ws = price_warnings(sheets, on("2026-12-05"));
  REQUIRE(ws.size() == 1);
  CHECK(ws[0].kind == PriceWarningKind::mixed_tax);
  CHECK(ws[0].untaxed == std::vector<std::string>{"a", "b"});
  // One basis asked for, or a rate given for every bill: nothing to warn of.
  RunSettings exclusive = on("2026-12-05");
  exclusive.spec.bill.tax_basis = TaxBasis::exclusive;
  CHECK(price_warnings(sheets, exclusive).empty());
  RunSettings rate = on("2026-12-05");
  rate.spec.bill.tax_rate = 0.1;
  CHECK(price_warnings(sheets, rate).empty());
  // Every sheet without a rate: one basis, no warning.
  CHECK(price_warnings(std::vector<const Provider*>{&a, &b}, on("2026-12-05")).empty());
}
