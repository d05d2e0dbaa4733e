#pragma once
// Reading a ledger store (JSONL, SQLite or PostgreSQL, picked from the --ledger value) for the
// commands that count spend, with every amount converted to one currency.
#include <functional>
#include <string>
#include <vector>

#include "gpuplan/budget.hpp"

namespace gpuplan::cli {

// The period's spend summed by team, user and currency (one record per group, dated the first of
// its month), converted to `currency`: all `check` needs, computed by the store.
std::vector<LedgerRecord> ledger_totals(const std::string& spec, const std::string& period, const std::string& currency);

// Every record of `period` ("" = all), converted to `currency`.
std::vector<LedgerRecord> ledger_records(const std::string& spec, const std::string& period, const std::string& currency);
// The same records handed one at a time, oldest first, none kept (a report over millions of records).
void for_each_ledger_record(const std::string& spec, const std::string& period, const std::string& currency,
                            const std::function<void(LedgerRecord&&)>& visit);

// Spend per month over the whole ledger, oldest first, in `currency`.
std::vector<std::pair<std::string, double>> ledger_months(const std::string& spec, const std::string& currency);

// The budget policy from `path` ("" = none), in `currency` when given (it must match the
// policy's own); exits 2 naming --currency on a mismatch.
BudgetPolicy load_policy(const std::string& path, const std::string& currency);

// --date as given, or today (UTC); exits 2 unless it is a calendar date.
std::string date_or_today(const std::string& date);

// An error unless the fx table can convert `currency` (checked before anything is stored).
void require_known_currency(const std::string& currency, const SourceLocation& where, const std::string& field);

}  // namespace gpuplan::cli
