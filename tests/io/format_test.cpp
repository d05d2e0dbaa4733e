// The one money formatter: Indian grouping for INR (lakh, crore), international otherwise,
// the style's grouping (--grouping) overriding both; sign and rounding as a reader expects.
#include <catch2/catch.hpp>

#include "io/render/format.hpp"

using namespace gpuplan::io;

namespace {
const MoneyStyle automatic{DigitGrouping::automatic};
}  // namespace

TEST_CASE("money in INR is grouped in lakhs and crores, other currencies in thousands", "[format]") {
  CHECK(money_text(1084428.5, "INR", 2, automatic) == "10,84,428.50 INR");
  CHECK(money_text(123456789, "INR", 0, automatic) == "12,34,56,789 INR");
  CHECK(money_text(1084428.5, "USD", 2, automatic) == "1,084,428.50 USD");
  CHECK(money_text(999, "INR", 0, automatic) == "999 INR");
  CHECK(money_text(1000, "INR", 0, automatic) == "1,000 INR");
  CHECK(money_text(100000, "INR", 0, automatic) == "1,00,000 INR");
  CHECK(money_text(-1084428.5, "INR", 2, automatic) == "-10,84,428.50 INR");
  CHECK(money_text(-0.001, "USD", 2, automatic) == "0.00 USD");  // no "-0.00"
  CHECK(money(1234.4, "USD", automatic) == "1,234");              // size-suited decimals, for a column named by currency
  CHECK(money(0.12346, "INR", automatic) == "0.1235");
}

TEST_CASE("the style's grouping overrides the currency's grouping", "[format]") {
  CHECK(money_text(1084428.5, "INR", 2, MoneyStyle{DigitGrouping::intl}) == "1,084,428.50 INR");
  CHECK(money_text(1084428.5, "USD", 2, MoneyStyle{DigitGrouping::indian}) == "10,84,428.50 USD");
  CHECK(money_text(1084428.5, "INR", 2, MoneyStyle{DigitGrouping::none}) == "1084428.50 INR");
  CHECK(money_amount(-1234567, "USD", 0, MoneyStyle{DigitGrouping::none}) == "-1234567");
  CHECK(digit_grouping_from_string("indian") == DigitGrouping::indian);
  CHECK_FALSE(digit_grouping_from_string("lakh"));
}

TEST_CASE("two styles in one process spell the same amount each its own way", "[format]") {
  // The grouping is a value passed in, not a setting of the process: formatting with one style
  // leaves nothing behind that the next call with another style would see.
  const MoneyStyle indian{DigitGrouping::indian}, intl{DigitGrouping::intl};
  CHECK(money_amount(123456789, "USD", 0, indian) == "12,34,56,789");
  CHECK(money_amount(123456789, "USD", 0, intl) == "123,456,789");
  CHECK(money_amount(123456789, "USD", 0, indian) == "12,34,56,789");
}
