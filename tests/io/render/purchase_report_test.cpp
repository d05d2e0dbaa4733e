// The hardware purchase behind buy-vs-rent, line by line, on a fixed two-line import into India:
// JSON carries every figure raw, the table rounds to whole rupees and shows the credit column
// only when input-tax credit is claimed.
#include <catch2/catch.hpp>

#include "io/render/purchase_report.hpp"

using namespace gpuplan;
using namespace gpuplan::io;

namespace {

// Money as the CLI spells it without --grouping: Indian for INR, international otherwise.
const MoneyStyle automatic{DigitGrouping::automatic};

PurchaseReport import_to_india(bool credit) {
  PurchaseReport r;
  r.country = "IN";
  r.country_from = "--currency INR";
  r.basis = TaxBasis::inclusive;
  r.input_tax_credit = credit;
  r.gst_rate = 0.18;
  PurchaseLine gpu{"GPU", "catalog list", "import 8473 30 (BCD 0.0%)", {}};
  gpu.cost = {2500000, 0, 0, 450000, credit ? 450000.0 : 0.0, credit ? 2500000.0 : 2950000.0};
  PurchaseLine rest{"rest of build", "US list x FX (!)", "GST on top", {}};
  rest.cost = {1000000.4, 100000, 10000, 199800, 0, 1309800.4};
  r.lines = {gpu, rest};
  r.sources = {"GST: CBIC schedule"};
  r.warnings = {{StandInFigure::desk_build, "IN", "", 1200, "USD", 100000, "INR"}};
  return r;
}

}  // namespace

TEST_CASE("purchase JSON names each tax part and carries raw amounts", "[render][purchase]") {
  const nlohmann::json j = purchase_json(import_to_india(false));
  CHECK(j["country"] == "IN");
  CHECK(j["country_from"] == "--currency INR");
  CHECK(j["tax_basis"] == "inclusive");
  CHECK(j["input_tax_credit"] == false);
  CHECK(j["gst_rate"] == 0.18);
  REQUIRE(j["lines"].size() == 2);
  CHECK(j["lines"][1] == nlohmann::json::parse(R"j({"what": "rest of build", "price_basis": "US list x FX (!)", "terms": "GST on top",
      "pre_tax": 1000000.4, "basic_customs_duty": 100000, "social_welfare_surcharge": 10000, "gst": 199800,
      "gst_recovered": 0, "total": 1309800.4})j"));
  CHECK(j["sources"] == nlohmann::json::array({"GST: CBIC schedule"}));
  CHECK(j["warnings"] == nlohmann::json::array({"no IN price of the rest of a desk-side build was found: it is the US figure (1,200 USD) "
                                                "converted; pass --rest-of-machine"}));
}

TEST_CASE("the purchase table groups rupees in lakhs and adds duty and surcharge", "[render][purchase]") {
  const Table t = purchase_table(import_to_india(false), "INR", automatic);  // INR: lakhs
  CHECK(t.title == "Hardware purchase, buyer in IN (INR per unit; counted = what the totals use)");
  CHECK(t.columns == std::vector<std::string>{"item", "price from", "terms", "pre-tax", "duty", "GST", "counted"});
  CHECK(t.csv_columns == std::vector<std::string>{"item", "price_basis", "terms", "pre_tax", "duty", "gst", "total"});
  REQUIRE(t.rows.size() == 2);
  CHECK(t.rows[0] == std::vector<std::string>{"GPU", "catalog list", "import 8473 30 (BCD 0.0%)", "25,00,000", "0", "4,50,000", "29,50,000"});
  CHECK(t.rows[1][4] == "1,10,000");  // duty 1,00,000 + surcharge 10,000
  CHECK(t.csv_rows[1] == std::vector<std::string>{"rest of build", "US list x FX (!)", "GST on top", "1000000.40", "110000.00", "199800.00",
                                                  "1309800.40"});
}

TEST_CASE("two renders of one purchase in one process, each grouped as its style says", "[render][purchase]") {
  // The grouping is an argument, not a setting of the process: a render with one style leaves
  // nothing behind that the next render, with another, would pick up.
  const PurchaseReport r = import_to_india(false);
  const Table intl = purchase_table(r, "INR", MoneyStyle{DigitGrouping::intl});
  const Table indian = purchase_table(r, "INR", MoneyStyle{DigitGrouping::indian});
  const Table none = purchase_table(r, "INR", MoneyStyle{DigitGrouping::none});
  CHECK(intl.rows[0][6] == "2,950,000");
  CHECK(indian.rows[0][6] == "29,50,000");
  CHECK(none.rows[0][6] == "2950000");
  CHECK(purchase_table(r, "INR", MoneyStyle{DigitGrouping::intl}).rows == intl.rows);
  CHECK(intl.csv_rows == indian.csv_rows);  // CSV carries raw numbers, never grouped
}

TEST_CASE("the credited column appears only with input-tax credit", "[render][purchase]") {
  const Table t = purchase_table(import_to_india(true), "INR", automatic);
  CHECK(t.columns == std::vector<std::string>{"item", "price from", "terms", "pre-tax", "duty", "GST", "credited", "counted"});
  CHECK(t.csv_columns[6] == "gst_recovered");
  CHECK(t.csv_rows[0][6] == "450000.00");
  CHECK(t.align.size() == t.columns.size());
}

TEST_CASE("an empty purchase has its header and no lines", "[render][purchase]") {
  PurchaseReport r;
  r.country = "US";
  CHECK(purchase_table(r, "USD", automatic).rows.empty());
  CHECK(purchase_json(r)["lines"] == nlohmann::json::array());
}
