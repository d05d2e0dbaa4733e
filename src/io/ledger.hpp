#pragma once
// The spend ledger: one JSON object per line (JSON Lines), so it diffs well in git. Appends take
// an exclusive lock and write each record with one write(), so concurrent writers never
// interleave and a crash leaves at most a torn last line, which readers report and skip.
#include <string>
#include <vector>

#include "gpuplan/budget.hpp"

namespace gpuplan::io {

struct LedgerLoad {
  std::vector<LedgerRecord> records;
  std::vector<std::string> warnings;  // e.g. a torn last line that was skipped
};

// Reads a ledger; throws InputErrors naming file and line for any bad record other than a torn
// last line (no newline at the end and not valid JSON), which is skipped with a warning.
LedgerLoad read_ledger(const std::string& path);
// The same for text already read from `path`.
LedgerLoad parse_ledger(const std::string& text, const std::string& path);

// The line a record is stored as (no newline).
std::string ledger_line(const LedgerRecord& r);

// Appends one record, creating the file if needed. Throws InputError when it cannot.
void append_ledger(const std::string& path, const LedgerRecord& r);

}  // namespace gpuplan::io
