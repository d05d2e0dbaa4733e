#pragma once
// The JSON Lines spend ledger: one JSON object per line, so it diffs well in git. Read as a
// stream (no whole-file size limit); one limit, kMaxLedgerLineBytes, holds for one line and
// both writers and readers apply it. Appends take an exclusive lock (with a timeout), write each
// record with checked writes and fsync, and truncate back to the old size when a write fails, so
// a full disk leaves the file as it was. A crash mid-write can leave at most a torn last line,
// which readers report and skip.
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gpuplan/budget.hpp"

namespace gpuplan::io {

// The longest line a ledger record may take, for writers and readers alike.
inline constexpr std::size_t kMaxLedgerLineBytes = 64 * 1024;

struct LedgerLoad {
  std::vector<LedgerRecord> records;
  std::vector<std::string> warnings;  // e.g. a torn last line that was skipped
};

// Streams a ledger file, calling `visit` per record in file order. Throws InputErrors naming
// file and line for any bad record other than a torn last line (no newline at the end and not
// valid JSON), which is skipped with a warning. Refuses what is not a regular file.
void scan_ledger_file(const std::string& path, const std::function<void(LedgerRecord&&)>& visit,
                      std::vector<std::string>& warnings);
// Reads a whole ledger file into memory (small ledgers, tests).
LedgerLoad read_ledger(const std::string& path);
// The same for text already read from `path`.
LedgerLoad parse_ledger(const std::string& text, const std::string& path);

// The line a record is stored as (no newline). Throws InputError when it would exceed
// kMaxLedgerLineBytes.
std::string ledger_line(const LedgerRecord& r);

// The record's measured outcomes as ledger_line writes them (only the fields that are set):
// the JSON form SQLite and PostgreSQL keep in their `outcomes` column too.
void add_outcomes(nlohmann::json& j, const LedgerRecord& r);
// The outcome fields of `j` read into `r` (other keys ignored); problems appended to `errors`.
void read_outcomes(const nlohmann::json& j, LedgerRecord& r, const SourceLocation& at, std::vector<InputError>& errors);

struct AppendResult {
  std::size_t added = 0;  // records whose id was not already in the file
  std::string warning;    // set when a torn last record (a writer killed mid-append) was cut off
};
// Appends records under the file's lock, skipping any whose id is already in the file; creates
// the file if needed. Throws InputError (with strerror, e.g. "No space left on device") when it
// cannot, after restoring the file's previous length.
AppendResult append_ledger(const std::string& path, const std::vector<LedgerRecord>& records, double lock_timeout_s);

}  // namespace gpuplan::io
