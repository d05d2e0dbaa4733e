#include <catch2/catch.hpp>

#include "gpuplan/plural.hpp"
#include "gpuplan/units.hpp"

using namespace gpuplan;

TEST_CASE("counts parse with suffixes", "[units]") {
  CHECK(*parse_count("7B").value == Approx(7e9));
  CHECK(*parse_count("1.5T").value == Approx(1.5e12));
  CHECK(*parse_count("350M").value == Approx(350e6));
  CHECK(*parse_count("12k").value == Approx(12e3));
  CHECK(*parse_count("1e9").value == Approx(1e9));
  CHECK_FALSE(parse_count("7X"));
  CHECK_FALSE(parse_count(""));
  CHECK_FALSE(parse_count("-3B"));
  CHECK_FALSE(parse_count("nan"));
  CHECK_FALSE(parse_count("inf"));
  CHECK(parse_count("7X").error.find("unknown count suffix") != std::string::npos);
}

TEST_CASE("sizes distinguish GB from GiB and refuse bare G", "[units]") {
  CHECK(*parse_bytes("24GB").value == 24000000000ull);
  CHECK(*parse_bytes("24GiB").value == 24ull * 1024 * 1024 * 1024);
  CHECK(*parse_bytes("512MiB").value == 512ull * 1024 * 1024);
  CHECK_FALSE(parse_bytes("80G"));
  CHECK(parse_bytes("80G").error.find("ambiguous") != std::string::npos);
  CHECK(*parse_bytes("80G", BareGUnit::gib).value == 80ull * 1024 * 1024 * 1024);
  CHECK_FALSE(parse_bytes("1e30GB"));
  CHECK_FALSE(parse_bytes("-1GB"));
  CHECK_FALSE(parse_bytes("12 parsecs"));
}

TEST_CASE("durations, fractions and money", "[units]") {
  CHECK(*parse_seconds("12h").value == Approx(43200));
  CHECK(*parse_seconds("3d").value == Approx(259200));
  CHECK(*parse_seconds("30m").value == Approx(1800));
  CHECK(*parse_seconds("500ms").value == Approx(0.5));
  CHECK_FALSE(parse_seconds("12"));
  CHECK(*parse_fraction("18%").value == Approx(0.18));
  CHECK(*parse_fraction("0.18").value == Approx(0.18));
  CHECK_FALSE(parse_fraction("18 percent"));
  auto m = parse_money("$1.99");
  REQUIRE(m);
  CHECK(m.value->amount == Approx(1.99));
  CHECK(m.value->currency == "USD");
  CHECK(parse_money("150 INR").value->currency == "INR");
  CHECK(parse_money("INR 150").value->amount == Approx(150));
  CHECK(parse_money("₹150").value->currency == "INR");
  CHECK(parse_money("1.99").value->currency.empty());
  CHECK_FALSE(parse_money("$abc"));
}

TEST_CASE("integers are range-checked, never wrapped", "[units]") {
  CHECK(*parse_int("8", 1, 100).value == 8);
  CHECK(*parse_int("4k", 1, 10000).value == 4000);
  CHECK_FALSE(parse_int("0", 1, 100));
  CHECK_FALSE(parse_int("2.5", 1, 100));
  CHECK_FALSE(parse_int("4611686018427387904", 1, 1 << 20));  // 2^62
  CHECK_FALSE(parse_int("-4", 1, 100));
}

TEST_CASE("printing uses one spelling", "[units]") {
  CHECK(format_gib(24.0 * kGiB) == "24.0 GiB");
  CHECK(format_count(8.03e9) == "8.03B");
  CHECK(format_count(124e6) == "124.0M");
}

TEST_CASE("calendar dates: shape, month and day checked, leap years known", "[units]") {
  CHECK(is_calendar_date("2026-12-02"));
  CHECK(is_calendar_date("2024-02-29"));
  CHECK_FALSE(is_calendar_date("2026-02-29"));
  CHECK_FALSE(is_calendar_date("2100-02-29"));
  CHECK(is_calendar_date("2000-02-29"));
  CHECK_FALSE(is_calendar_date("2026-04-31"));
  CHECK_FALSE(is_calendar_date("2026-13-01"));
  CHECK_FALSE(is_calendar_date("2026-00-10"));
  CHECK_FALSE(is_calendar_date("2026-1-01"));
  CHECK_FALSE(is_calendar_date("2026/12/02"));
  CHECK_FALSE(is_calendar_date("20x6-12-02"));
}

TEST_CASE("counted nouns are singular only for exactly one", "[units]") {
  CHECK(gpuplan::count_of(1, "GPU") == "1 GPU");
  CHECK(gpuplan::count_of(0, "GPU") == "0 GPUs");
  CHECK(gpuplan::count_of(8, "GPU") == "8 GPUs");
  CHECK(gpuplan::count_of(-1, "offer") == "-1 offers");
}
