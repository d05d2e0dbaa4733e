#include "io/render/ledger_render.hpp"

#include "io/render/format.hpp"
#include "io/usage/ledger.hpp"

namespace gpuplan::io {

using nlohmann::json;

json ledger_add_json(const LedgerAddView& v) {
  // The appended record exactly as the ledger line stores it, so a script sees what was written.
  return {{"appended", v.added ? json::parse(ledger_line(v.record)) : json()},
          {"duplicate_id", v.added ? json() : json(v.record.id)}};
}

std::vector<std::string> ledger_add_notes(const LedgerAddView& v) {
  const LedgerRecord& r = v.record;
  if (v.added)
    return {"appended to " + v.ledger + ": " + r.experiment + " " + num(r.cost, 2) + " " + r.currency + " (id " + r.id + ")"};
  return {"already recorded: " + v.ledger + " holds id " + r.id + "; nothing added"};
}

json ledger_copy_json(const LedgerCopyView& v) {
  return {{"from", v.from}, {"to", v.to}, {"read", v.read}, {"added", v.added}, {"already_present", v.read - v.added}};
}

std::vector<std::string> ledger_copy_notes(const LedgerCopyView& v) {
  return {"copied " + std::to_string(v.added) + " of " + std::to_string(v.read) + " records from " + v.from + " to " + v.to + " (" +
          std::to_string(v.read - v.added) + " already there)"};
}

std::string ledger_spend_key(const std::string& key) { return key.empty() ? "(none)" : key; }

std::map<std::string, double> ledger_spend_rows(const LedgerSpendView& v) {
  std::map<std::string, double> rows;
  for (const auto& [key, spent] : v.spend) rows[ledger_spend_key(key)] += spent;
  return rows;
}

// Summed in the rows' order, so the total is the same number however the view is shown.
double ledger_spend_total(const LedgerSpendView& v) {
  double total = 0;
  for (const auto& [name, spent] : ledger_spend_rows(v)) total += spent;
  return total;
}

json ledger_spend_json(const LedgerSpendView& v) {
  json spend = json::object();
  for (const auto& [name, spent] : ledger_spend_rows(v)) spend[name] = spent;
  return {{"by", v.by}, {"currency", v.currency}, {"spend", spend}, {"total", ledger_spend_total(v)}, {"records", v.records}};
}

Table ledger_spend_table(const LedgerSpendView& v) {
  Table t;
  t.title = "Spend by " + v.by + " (" + v.currency + ")";
  t.columns = {v.by, "spend"};
  t.align = {Align::left, Align::right};
  for (const auto& [name, spent] : ledger_spend_rows(v)) t.rows.push_back({name, num(spent, 2)});
  t.rows.push_back({"total", num(ledger_spend_total(v), 2)});
  return t;
}

}  // namespace gpuplan::io
