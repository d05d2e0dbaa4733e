#include <catch2/catch.hpp>

#include "gpuplan/catalog.hpp"
#include "gpuplan/name_match.hpp"

using namespace gpuplan;

TEST_CASE("lookups accept ids and aliases, case-insensitively", "[catalog]") {
  Catalog c;
  Gpu a;
  a.id = "rtx-4090";
  a.name = "GeForce RTX 4090";
  a.aliases = {"4090", "RTX 4090"};
  Gpu b;
  b.id = "v100-16gb";
  b.name = "V100 16GB";
  b.aliases = {"V100"};
  Gpu d = b;
  d.id = "v100-32gb";
  d.name = "V100 32GB";
  c.gpus = {a, b, d};
  CHECK(c.find_gpu("RTX-4090").found->id == "rtx-4090");
  CHECK(c.find_gpu("rtx 4090").found->id == "rtx-4090");
  CHECK(c.find_gpu("4090").found->id == "rtx-4090");
  auto amb = c.find_gpu("v100");
  CHECK(amb.found == nullptr);
  CHECK(amb.ambiguous.size() == 2);
  CHECK(lookup_failure("GPU", "v100", amb).find("ambiguous") != std::string::npos);
  auto miss = c.find_gpu("rtx-4009");
  CHECK(miss.found == nullptr);
  CHECK(miss.suggestion == "rtx-4090");
}

TEST_CASE("later catalogs override by id", "[catalog]") {
  Catalog c;
  Gpu a;
  a.id = "x";
  a.tdp_watts = 100;
  c.gpus = {a};
  Catalog later;
  a.tdp_watts = 200;
  later.gpus = {a};
  Gpu n;
  n.id = "y";
  later.gpus.push_back(n);
  c.merge(later);
  REQUIRE(c.gpus.size() == 2);
  CHECK(c.gpus[0].tdp_watts == 200);
}

TEST_CASE("fx converts through the base currency", "[catalog]") {
  FxTable fx;
  fx.per_base = {{"INR", 90.0}, {"EUR", 0.9}};
  CHECK(*fx.convert(2, "USD", "INR") == Approx(180));
  CHECK(*fx.convert(180, "INR", "USD") == Approx(2));
  CHECK(*fx.convert(90, "INR", "EUR") == Approx(0.9));
  CHECK_FALSE(fx.convert(1, "USD", "GBP"));
}

TEST_CASE("edit distance is capped and suggestions need to be close", "[catalog]") {
  CHECK(edit_distance("kitten", "sitting", 5) == 3);
  CHECK(edit_distance("a", "abcdefgh", 2) == 3);
  CHECK(closest_name("h10O", {"h100-sxm", "h100", "a100"}) == "h100");
  CHECK(closest_name("zzzzzz", {"h100", "a100"}).empty());
}

TEST_CASE("normalises_to agrees with normalise_name", "[catalog]") {
  const char* names[] = {"", "-", "RTX 4090", "rtx-4090", "GeForce RTX-4090", "llama-3.1-8b", "Llama_3.1/8B",
                         "h100-sxm", "H100 SXM", "h100sxm5", "a\tb", "ab", "abc", "AB-", "-ab"};
  for (const char* a : names)
    for (const char* b : names) {
      const std::string key = gpuplan::normalise_name(b);
      INFO(a << " vs " << key);
      CHECK(gpuplan::normalises_to(a, key) == (gpuplan::normalise_name(a) == key));
    }
}
