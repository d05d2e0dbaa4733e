#pragma once
// One validation for every spend-ledger record, whatever store holds it (JSON Lines, SQLite,
// PostgreSQL): called on every record before any store writes it, so nothing is committed and
// then reported as a failure, and on every record a store reads back, so rows written by another
// tool are refused with their location instead of failing later as internal errors.
#include <cstddef>
#include <vector>

#include "gpuplan/budget.hpp"
#include "gpuplan/error.hpp"

namespace gpuplan::io {

// The ranges a record's fields must fall in. A date outside the years is a typo (or year 0000,
// which PostgreSQL refuses); a cost above 1e12 in any currency is not one run's spend, and
// summed it would reach inf. The id is what a retry is matched by, so it is bounded and printable.
struct LedgerRecordLimits {
  int min_year = 2000, max_year = 2099;
  double max_cost = 1e12;        // in the record's currency
  double max_gpu_hours = 1e9;    // 100,000 GPUs for a year is 8.8e8
  double max_tokens = 1e16;      // the largest training runs are a few 1e13
  std::size_t max_id_bytes = 256;
  // Measured outcomes. A metric name is a label in tables and a key in JSON: short and printable.
  std::size_t max_metrics = 16, max_metric_name_bytes = 64, max_family_bytes = 256;
  double max_abs_metric = 1e15;      // finite, either sign (a reward can be negative)
  double max_samples = 1e16;         // as tokens: no run processes more samples than tokens
  double max_requests = 1e15;        // a million requests a second for thirty years
  double max_restore_seconds = 1e7;  // 115 days: a restore slower than that is a typo
};
inline constexpr LedgerRecordLimits kLedgerRecordLimits{};

// Appends one InputError per bad field of `r`, located at `at`: text must be valid UTF-8 without
// NUL (the id also without any control character), the date a real calendar date, the currency
// three capital letters, numbers finite and in range, and the whole record must fit in one
// ledger line (kMaxLedgerLineBytes) so every store can export it. Outcomes: metric names
// non-empty, printable UTF-8 and distinct, values finite, utilization 0..1, counts in range.
void check_ledger_record(const LedgerRecord& r, const SourceLocation& at, std::vector<InputError>& errors);

// The outcome fields alone (family, metrics, utilization, samples, requests, restore time), for
// run records, which carry the same fields under the same rules.
void check_ledger_outcomes(const LedgerRecord& r, const SourceLocation& at, std::vector<InputError>& errors);
// The part of that check covering what a spend sum reads (names, date, currency, cost): run on
// every row a store sums without reading whole records.
void check_summed_fields(const LedgerRecord& r, const SourceLocation& at, std::vector<InputError>& errors);

// Throws InputErrors (located at each record's `where`) when any record is bad; call before a write.
void require_valid_records(const std::vector<LedgerRecord>& records);

}  // namespace gpuplan::io
