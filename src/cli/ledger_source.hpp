#pragma once
// Reading a ledger store (JSONL, SQLite or PostgreSQL, picked from the --ledger value) for the
// commands that count spend, with every amount converted to one currency.
#include <map>
#include <string>
#include <vector>

#include "cli/common.hpp"
#include "gpuplan/budget.hpp"
#include "store/ledger_store.hpp"

namespace gpuplan::cli {

// Spend per key in `currency`, for each query, from one pass of the store: the store's sums per
// key and currency (each added in record order), each converted once and added in currency order.
struct KeySpend {
  std::map<std::string, double> by_key;  // key "" for records that leave the field empty
  std::size_t records = 0;
};
std::vector<KeySpend> ledger_spend(const Context& ctx, const std::string& spec, const std::vector<store::SpendQuery>& queries,
                                   const std::string& currency);

// ledger_spend's sums, and the records dated `first` to `last` (YYYY-MM-DD, both included;
// none when `last` is ""), oldest first, converted to `currency`: from one read of a JSON Lines
// file, a narrow pass plus a date-filtered scan on SQLite, GROUP BY plus a scan on PostgreSQL.
struct LedgerRead {
  std::vector<KeySpend> sums;
  std::vector<LedgerRecord> records;
};
// `families`: also the earlier records of every experiment family with measured outcomes to
// `last` (store::LedgerStore::sum_spend_and_scan_families), for report's experiment decisions.
LedgerRead read_ledger(const Context& ctx, const std::string& spec, const std::vector<store::SpendQuery>& queries, const std::string& first,
                       const std::string& last, const std::string& currency, bool families = false);

// "" or a month YYYY-MM; exits 2 naming --period otherwise.
void require_period(const std::string& period);

// The budget policy from `path` ("" = none), in `currency` when given (it must match the
// policy's own); exits 2 naming --currency on a mismatch.
BudgetPolicy load_policy(const std::string& path, const std::string& currency);

// --date as given, or today (UTC); exits 2 unless it is a calendar date.
std::string date_or_today(const std::string& date);

// An error unless the fx table can convert `currency` (checked before anything is stored).
void require_known_currency(const FxTable& fx, const std::string& currency, const SourceLocation& where, const std::string& field);

}  // namespace gpuplan::cli
