// Hardware bought with GST and import duty (src/core/tco_purchase.cpp), and the worked INR
// example of buy-vs-rent --country IN, each figure computed by hand in the comment above it.
#include <catch2/catch.hpp>

#include "gpuplan/tco.hpp"
#include "gpuplan/tco_defaults.hpp"
#include "gpuplan/tco_purchase.hpp"

using namespace gpuplan;

namespace {
constexpr double kPaisa = 0.005;
}

TEST_CASE("an import pays duty, the surcharge on the duty, and IGST on the lot", "[tco][purchase]") {
  PurchaseTerms t;
  t.price = 100000;
  t.import = ImportDuty{"9999 99", 0.20, 0.10};
  t.gst_rate = 0.18;
  // duty 20% x 100,000 = 20,000; SWS 10% x 20,000 = 2,000;
  // IGST 18% x (100,000 + 20,000 + 2,000) = 21,960; total 143,960.
  const PurchaseCost c = purchase_cost(t, TaxBasis::inclusive, false);
  CHECK(c.basic_duty == Approx(20000).margin(kPaisa));
  CHECK(c.sws == Approx(2000).margin(kPaisa));
  CHECK(c.gst == Approx(21960).margin(kPaisa));
  CHECK(c.gst_recovered == 0);
  CHECK(c.total == Approx(143960).margin(kPaisa));
  // A registered business takes the IGST back as credit; the duties stay: 122,000.
  const PurchaseCost itc = purchase_cost(t, TaxBasis::inclusive, true);
  CHECK(itc.gst_recovered == Approx(21960).margin(kPaisa));
  CHECK(itc.total == Approx(122000).margin(kPaisa));
  // Compared without tax, the same 122,000.
  CHECK(purchase_cost(t, TaxBasis::exclusive, false).total == Approx(122000).margin(kPaisa));
}

TEST_CASE("a domestic quote holds GST or has it on top", "[tco][purchase]") {
  PurchaseTerms t;
  t.price = 118000;
  t.gst_rate = 0.18;
  t.price_includes_gst = true;
  // 118,000 / 1.18 = 100,000 before GST, 18,000 GST; the quote is what an unregistered buyer pays.
  PurchaseCost c = purchase_cost(t, TaxBasis::inclusive, false);
  CHECK(c.pre_tax == Approx(100000).margin(kPaisa));
  CHECK(c.gst == Approx(18000).margin(kPaisa));
  CHECK(c.total == Approx(118000).margin(kPaisa));
  CHECK(purchase_cost(t, TaxBasis::inclusive, true).total == Approx(100000).margin(kPaisa));
  // On top: 118,000 + 18% = 139,240.
  t.price_includes_gst = false;
  CHECK(purchase_cost(t, TaxBasis::inclusive, false).total == Approx(139240).margin(kPaisa));
  // No GST modelled (a US list price): the price itself.
  CHECK(purchase_cost(PurchaseTerms{1599, false, std::nullopt, 0.0}, TaxBasis::inclusive, false).total == 1599);
}

TEST_CASE("India's buy defaults are its own, with sources, other countries are marked converted", "[tco][purchase]") {
  const CountryBuyDefaults in = country_buy_defaults("IN", true);
  CHECK(in.power_price_per_kwh.value == 13.21);
  CHECK(in.power_price_per_kwh.currency == "INR");
  CHECK(in.power_price_per_kwh.converted_from.empty());
  CHECK(in.power_price_per_kwh.source.find("mercomindia.com") != std::string::npos);
  REQUIRE(in.hardware_gst);
  CHECK(in.hardware_gst->value == 0.18);
  REQUIRE(in.rent_gst);  // cloud GPU hours carry the same 18% (OIDAR), so both sides compare alike
  CHECK(in.rent_gst->value == 0.18);
  CHECK_FALSE(in.street_prices_sourced);
  // GPU boards and servers: nil basic customs duty (Notification 24/2005-Customs); any other
  // line has no sourced rate, so the CLI asks for it.
  REQUIRE(import_line(in, "8473 30 99"));
  CHECK(import_line(in, "847330")->basic == 0.0);
  CHECK(import_line(in, "8471 50 00")->hs_code == "8471");
  CHECK_FALSE(import_line(in, "8542 31"));
  CHECK(in.import_sws_share_of_duty == 0.10);
  CHECK(in.currency == "INR");  // an Indian buyer is shown rupees unless --currency says otherwise

  const CountryBuyDefaults us = country_buy_defaults("US", false);
  CHECK(us.power_price_per_kwh.value == tco_defaults::kPowerPriceConsumerUsdPerKwh);
  CHECK_FALSE(us.hardware_gst);
  CHECK_FALSE(us.rent_gst);
  CHECK(us.street_prices_sourced);
  CHECK(us.currency == "USD");
  const CountryBuyDefaults de = country_buy_defaults("DE", false);
  CHECK(de.power_price_per_kwh.converted_from == "US");
  CHECK_FALSE(de.street_prices_sourced);
  CHECK(de.currency == "USD");  // no German figures: US dollars, as the US figures stand in
}

TEST_CASE("worked example: an RTX 4090 bought in India, 300 GPU-h a month, in INR", "[tco][purchase]") {
  // buy-vs-rent --gpu rtx-4090 --gpu-hours-per-month 300 --country IN, at 90.3957 INR/USD.
  constexpr double fx = 90.3957;
  const CountryBuyDefaults in = country_buy_defaults("IN", false);
  PurchaseTerms gpu{1599 * fx, false, import_line(in, "8473 30"), in.hardware_gst->value};
  PurchaseTerms rest{tco_defaults::kRestOfMachineConsumerUsd * fx, false, import_line(in, "8471"), in.hardware_gst->value};
  // GPU: 1599 USD x 90.3957 = 144,542.72 INR customs value; duty 0; IGST 18% = 26,017.69;
  // 170,560.41 INR. Rest of the build: 1314 x 90.3957 = 118,779.95; x 1.18 = 140,160.34.
  const PurchaseCost g = purchase_cost(gpu, TaxBasis::inclusive, false);
  const PurchaseCost r = purchase_cost(rest, TaxBasis::inclusive, false);
  CHECK(g.pre_tax == Approx(144542.72).margin(kPaisa));
  CHECK(g.gst == Approx(26017.69).margin(kPaisa));
  CHECK(g.total == Approx(170560.41).margin(kPaisa));
  CHECK(r.total == Approx(140160.34).margin(kPaisa));

  OwnedTerms o;
  o.gpu_price = g.total;
  o.rest_of_machine_per_build = r.total;
  o.gpus_per_build = tco_defaults::kGpusPerBuildConsumer;
  o.tdp_watts = 450;
  o.power_price_per_kwh = in.power_price_per_kwh.value;
  o.maintenance_per_year = tco_defaults::kMaintenancePerYear;
  o.failures_per_gpu_year = tco_defaults::kFailuresPerGpuYear;
  o.resale_kept_per_year = tco_defaults::kResaleKeptPerYearConsumer;
  RentTerms none;
  const MonthlyCost m = option_cost(1, 1, steady_demand(300), o, none, 36);
  // Hardware 310,720.76; residual x 0.876^3 = 0.672221376 -> 208,873.13;
  // capital (310,720.76 - 208,873.13) / 36 = 2,829.10; power 300 h x 0.45 kW x 13.21 = 1,783.35;
  // upkeep 8% x 310,720.76 / 12 = 2,071.47 plus failures 9.08% x 170,560.41 / 12 = 1,290.57;
  // 7,974.50 INR a month.
  CHECK(m.capital == Approx(2829.10).margin(kPaisa));
  CHECK(m.power == Approx(1783.35).margin(kPaisa));
  CHECK(m.maintenance + m.failures == Approx(3362.05).margin(kPaisa));
  CHECK(m.total == Approx(7974.50).margin(kPaisa));

  // A GST-registered buyer: hardware at 144,542.72 + 118,779.95 = 263,322.67; capital 2,397.54,
  // upkeep 1,755.48 + failures 1,093.71, power unchanged: 7,030.08 INR a month.
  o.gpu_price = purchase_cost(gpu, TaxBasis::inclusive, true).total;
  o.rest_of_machine_per_build = purchase_cost(rest, TaxBasis::inclusive, true).total;
  CHECK(option_cost(1, 1, steady_demand(300), o, none, 36).total == Approx(7030.08).margin(kPaisa));
}
