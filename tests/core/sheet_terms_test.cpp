// Terms of a price sheet (issue 22): country of a region, tax basis, age of the prices.
#include <catch2/catch.hpp>

#include "gpuplan/catalog.hpp"
#include "gpuplan/cost.hpp"

using namespace gpuplan;

namespace {
Offer at(const std::string& region, const std::string& country = "") {
  Offer o;
  o.region = region;
  o.country = country;
  return o;
}
}  // namespace

TEST_CASE("regions of every cloud carry their country", "[catalog][country]") {
  // Indian regions of global clouds: AWS Mumbai/Hyderabad, GCP Mumbai/Delhi, OCI, Azure, Shadeform.
  for (const char* r : {"ap-south-1", "ap-south-2", "asia-south1", "asia-south2", "ap-mumbai-1", "ap-hyderabad-1",
                        "centralindia", "bangalore-india-1", "india"})
    CHECK(at(r).in_country("IN"));
  CHECK(at("us-east-1").country_code() == "US");
  CHECK(at("us-central1").country_code() == "US");
  CHECK(at("europe-west4").country_code() == "NL");
  CHECK(at("IN2").country_code().empty());            // Jarvislabs: location unverified
  CHECK(at("IN2", "IN").in_country("in"));            // unless the sheet states it
  CHECK_FALSE(at("ap-southeast-1").in_country("IN"));
  // --region india: the text, or the country it names.
  CHECK(at("ap-south-1").in_region("india"));
  CHECK(at("asia-south1").in_region("India"));
  CHECK(at("us-east-1").in_region("east"));
  CHECK_FALSE(at("us-east-1").in_region("india"));
  CHECK_FALSE(at("ap-south-1").in_region("in"));      // two letters stay a substring match
  CHECK(country_code_of("india") == "IN");
  CHECK(country_code_of("In") == "IN");
  CHECK(country_code_of("Narnia").empty());
}

TEST_CASE("totals on one tax basis, with input-tax credit", "[cost][tax]") {
  Provider excl;  // E2E/Krutrim style: 18% GST added on top of the listed price
  excl.tax_rate = 0.18;
  Provider incl = excl;  // a sheet whose prices already include 18% GST
  incl.tax_basis = TaxBasis::inclusive;
  Provider none;  // a global cloud that states no rate
  RunInputs in;   // default: inclusive
  CHECK(tax_terms(excl, in).pre_tax == 1.0);
  CHECK(tax_terms(excl, in).rate == 0.18);
  CHECK(tax_terms(incl, in).pre_tax == Approx(1 / 1.18));
  CHECK(tax_terms(incl, in).rate == 0.18);  // 118 listed -> 100 + 18: the same as listed
  CHECK(tax_terms(none, in).rate == 0.0);
  in.tax_basis = TaxBasis::exclusive;  // every sheet before tax
  CHECK(tax_terms(excl, in).rate == 0.0);
  CHECK(tax_terms(incl, in).pre_tax * 118.0 == Approx(100.0));
  CHECK(tax_terms(incl, in).rate == 0.0);
  in.tax_basis = TaxBasis::inclusive;
  in.input_tax_credit = true;  // a GST-registered business recovers GST (and RCM on foreign bills)
  CHECK(tax_terms(excl, in).rate == 0.0);
  CHECK(tax_terms(incl, in).pre_tax * 118.0 == Approx(100.0));
  in.input_tax_credit = false;
  in.tax_rate = 0.18;  // --tax 18%: the reverse charge on a foreign cloud's bill, for an unregistered buyer
  CHECK(tax_terms(none, in).rate == 0.18);

  // Through price_run: 10 GPU-hours at 118 INR inclusive = 1000 + 180 GST, or 1000 pre-tax.
  Offer o;
  o.gpus = 1;
  o.per_gpu_hour[static_cast<int>(Pricing::on_demand)] = 118.0;
  RunInputs run;
  run.compute_seconds = 36000;
  const auto with = price_run(o, incl, run);
  REQUIRE(with);
  CHECK(with->compute == Approx(1000.0));
  CHECK(with->tax == Approx(180.0));
  CHECK(with->total == Approx(1180.0));
  run.tax_basis = TaxBasis::exclusive;
  CHECK(price_run(o, incl, run)->total == Approx(1000.0));
}

TEST_CASE("the age of a sheet's prices", "[catalog][stale]") {
  CHECK(days_between("2026-11-01", "2026-12-03") == 32);
  CHECK(days_between("2024-02-28", "2024-03-01") == 2);  // leap year
  CHECK(days_between("2025-12-31", "2026-01-01") == 1);
  CHECK_FALSE(days_between("unknown", "2026-12-03"));
  Provider p;
  p.prices_as_of = "2026-08-01";
  CHECK(*prices_age_days(p, "2026-12-03") == 124);
  CHECK(*prices_age_days(p, "2026-12-03") > kStalePriceDays);
}
