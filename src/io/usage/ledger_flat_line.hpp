#pragma once
// The common ledger line read without building a JSON document: a flat object whose values are
// plain strings (printable ASCII, no escapes) and plain non-negative numbers, which is every line
// gpuplan writes for a record without metrics. A million-line ledger spent most of its read in
// nlohmann's DOM (3.3 s of CPU for `ledger report`); this reader answers only where it gives
// exactly the record the full parse gives, and says "not sure" otherwise, so the caller falls back
// to the full parse and every error message stays that parse's.
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>
#include <vector>

#include "gpuplan/budget.hpp"
#include "gpuplan/error.hpp"

namespace gpuplan::io {

// The record one parsed line holds, as the full parse reads it (problems appended to `errors`,
// located at `at`): what every line the fast reader leaves goes through.
LedgerRecord parse_ledger_object(const nlohmann::json& j, const SourceLocation& at, std::vector<InputError>& errors);

// The record of `row` as the full parse (parse_ledger_object on the parsed line) reads it, located
// at `at`; nullopt when the line is not of the simple form or the full parse would report a
// problem (a missing field, a negative or out-of-range number, a repeated key): those go through
// the full parse. The record is not yet checked (check_ledger_record does that for both paths).
std::optional<LedgerRecord> read_flat_ledger_line(std::string_view row, const SourceLocation& at);

}  // namespace gpuplan::io
