// The words every pricing command prints for the core's price warnings.
#include <catch2/catch.hpp>

#include "io/render/price_warning_text.hpp"

using namespace gpuplan;
using namespace gpuplan::io;

TEST_CASE("price warning words: stale, undated and mixed tax", "[render][price_warnings]") {
  PriceWarning stale;
  stale.kind = PriceWarningKind::stale;
  stale.provider = "runpod";
  stale.prices_as_of = "2026-10-01";
  stale.age_days = 65;
  stale.stale_after_days = 30;
  PriceWarning undated;
  undated.kind = PriceWarningKind::undated;
  undated.provider = "mine";
  undated.prices_as_of = "unknown";
  PriceWarning mixed;
  mixed.kind = PriceWarningKind::mixed_tax;
  mixed.untaxed = {"a", "b"};
  CHECK(price_warning_texts({stale, undated, mixed}) ==
        std::vector<std::string>{
            "runpod: prices dated 2026-10-01, 65 days old (over --stale-after 30); check them before deciding",
            "mine: prices carry no date (unknown); check them before deciding",
            "totals mix bases: a, b state no tax rate, so their totals exclude tax; give --tax RATE or --tax-basis exclusive to compare on one basis"});
}
