// The one money formatter: Indian grouping for INR (lakh, crore), international otherwise,
// --grouping overriding both; sign and rounding as a reader expects.
#include <catch2/catch.hpp>

#include "io/render/format.hpp"

using namespace gpuplan::io;

namespace {
// Restores the process-wide grouping a test changed.
struct GroupingScope {
  DigitGrouping saved = digit_grouping();
  explicit GroupingScope(DigitGrouping g) { digit_grouping() = g; }
  ~GroupingScope() { digit_grouping() = saved; }
};
}  // namespace

TEST_CASE("money in INR is grouped in lakhs and crores, other currencies in thousands", "[format]") {
  const GroupingScope automatic(DigitGrouping::automatic);
  CHECK(money_text(1084428.5, "INR") == "10,84,428.50 INR");
  CHECK(money_text(123456789, "INR", 0) == "12,34,56,789 INR");
  CHECK(money_text(1084428.5, "USD") == "1,084,428.50 USD");
  CHECK(money_text(999, "INR", 0) == "999 INR");
  CHECK(money_text(1000, "INR", 0) == "1,000 INR");
  CHECK(money_text(100000, "INR", 0) == "1,00,000 INR");
  CHECK(money_text(-1084428.5, "INR") == "-10,84,428.50 INR");
  CHECK(money_text(-0.001, "USD") == "0.00 USD");  // no "-0.00"
  CHECK(money(1234.4, "USD") == "1,234");           // size-suited decimals, for a column named by currency
  CHECK(money(0.12346, "INR") == "0.1235");
}

TEST_CASE("the grouping flag overrides the currency's grouping", "[format]") {
  {
    const GroupingScope intl(DigitGrouping::intl);
    CHECK(money_text(1084428.5, "INR") == "1,084,428.50 INR");
  }
  {
    const GroupingScope indian(DigitGrouping::indian);
    CHECK(money_text(1084428.5, "USD") == "10,84,428.50 USD");
  }
  {
    const GroupingScope none(DigitGrouping::none);
    CHECK(money_text(1084428.5, "INR") == "1084428.50 INR");
  }
  CHECK(digit_grouping_from_string("indian") == DigitGrouping::indian);
  CHECK_FALSE(digit_grouping_from_string("lakh"));
}
