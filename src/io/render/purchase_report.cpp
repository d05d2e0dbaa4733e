#include "io/render/purchase_report.hpp"

#include "io/render/format.hpp"

namespace gpuplan::io {

using nlohmann::json;

json purchase_json(const PurchaseReport& r) {
  json lines = json::array();
  for (const auto& l : r.lines)
    lines.push_back({{"what", l.what}, {"price_basis", l.price_basis}, {"terms", l.terms},
                     {"pre_tax", l.cost.pre_tax}, {"basic_customs_duty", l.cost.basic_duty},
                     {"social_welfare_surcharge", l.cost.sws}, {"gst", l.cost.gst},
                     {"gst_recovered", l.cost.gst_recovered}, {"total", l.cost.total}});
  return {{"country", r.country}, {"country_from", r.country_from}, {"tax_basis", to_string(r.basis)},
          {"input_tax_credit", r.input_tax_credit}, {"gst_rate", r.gst_rate}, {"lines", lines},
          {"sources", r.sources}, {"warnings", stand_in_texts(r.warnings, kJsonMoney)}};
}

Table purchase_table(const PurchaseReport& r, const std::string& currency, MoneyStyle style) {
  Table t;
  t.title = "Hardware purchase, buyer in " + r.country + " (" + currency + " per unit; counted = what the totals use)";
  // The credit column only when input-tax credit is claimed, so the table fits 100 columns.
  const bool credit = r.input_tax_credit;
  t.columns = {"item", "price from", "terms", "pre-tax", "duty", "GST"};
  t.csv_columns = {"item", "price_basis", "terms", "pre_tax", "duty", "gst"};
  if (credit) t.columns.push_back("credited"), t.csv_columns.push_back("gst_recovered");
  t.columns.push_back("counted");
  t.csv_columns.push_back("total");
  t.align.assign(t.columns.size(), Align::right);
  // On a narrow terminal the duty, then where the price came from, may go (the warnings under
  // the table still name every stand-in figure).
  t.droppable = {4, 1};
  t.align[0] = t.align[1] = t.align[2] = Align::left;
  for (const auto& l : r.lines) {
    const double duty = l.cost.basic_duty + l.cost.sws;
    auto m = [&](double v) { return money_amount(v, currency, 0, style); };
    std::vector<std::string> row = {l.what, l.price_basis, l.terms, m(l.cost.pre_tax), m(duty), m(l.cost.gst)};
    std::vector<std::string> csv = {l.what, l.price_basis, l.terms, num(l.cost.pre_tax, 2), num(duty, 2), num(l.cost.gst, 2)};
    if (credit) row.push_back(m(l.cost.gst_recovered)), csv.push_back(num(l.cost.gst_recovered, 2));
    row.push_back(m(l.cost.total));
    csv.push_back(num(l.cost.total, 2));
    t.rows.push_back(row);
    t.csv_rows.push_back(csv);
  }
  return t;
}

}  // namespace gpuplan::io
