#pragma once
// `gpuplan ledger`'s reports: what an add, a copy (import/export) and a report did, each a plain
// value the command fills from the store's answers, spelled here as JSON, a table and notes.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "gpuplan/budget.hpp"
#include "io/render/render.hpp"

namespace gpuplan::io {

// `ledger add`: the record asked for, and whether the store took it or already held its id.
struct LedgerAddView {
  std::string ledger;  // the store, as it describes itself
  LedgerRecord record;
  bool added = false;
};
nlohmann::json ledger_add_json(const LedgerAddView& v);
std::vector<std::string> ledger_add_notes(const LedgerAddView& v);

// `ledger import` / `ledger export FILE`: records read from one store and added to another.
struct LedgerCopyView {
  std::string from, to;  // the stores, as they describe themselves
  std::size_t read = 0, added = 0;  // the rest were already present
};
nlohmann::json ledger_copy_json(const LedgerCopyView& v);
std::vector<std::string> ledger_copy_notes(const LedgerCopyView& v);

// `ledger report`: spend summed by one field, in one currency.
struct LedgerSpendView {
  std::string by, currency;
  std::map<std::string, double> spend;  // key "" for records that leave the field empty
  std::size_t records = 0;
};
// The name a row is shown under, in JSON and table alike: "(none)" for the empty key.
std::string ledger_spend_key(const std::string& key);
// The sums by shown name (an empty key joins a field that is literally "(none)"), and their total.
std::map<std::string, double> ledger_spend_rows(const LedgerSpendView& v);
double ledger_spend_total(const LedgerSpendView& v);
nlohmann::json ledger_spend_json(const LedgerSpendView& v);
Table ledger_spend_table(const LedgerSpendView& v);

}  // namespace gpuplan::io
