#pragma once
// Where the spend ledger lives, behind one interface. The --ledger value picks the store:
//   *.jsonl (or any other path)   JSON Lines file: git-friendly, one record per line
//   *.db, *.sqlite, *.sqlite3      SQLite: WAL, transactions, indexes on month/team/user/experiment
//   postgresql://… or postgres://… PostgreSQL: one ledger shared by many CI runners and people
// Every store keys records by id: appending a record whose id is already there adds nothing, so
// a retried CI job does not count its spend twice.
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gpuplan/budget.hpp"

namespace gpuplan::store {

// Spend summed by month, team, user and currency: what `check` needs, computed by the store
// (an indexed GROUP BY in SQL) so the gate stays fast on millions of records.
struct LedgerTotal {
  std::string month, team, user, currency;
  double cost = 0;
  std::size_t records = 0;
};

class LedgerStore {
 public:
  virtual ~LedgerStore() = default;
  // Appends records in one transaction (all or none). Returns how many were new; records whose
  // id is already stored are skipped.
  virtual std::size_t append(const std::vector<LedgerRecord>& records) = 0;
  // Appends every record `produce` hands to its sink (an import). By default in batches of
  // 50,000, each its own append; SQLite imports in one transaction. Returns how many were new.
  virtual std::size_t import(const std::function<void(const std::function<void(LedgerRecord&&)>&)>& produce);
  // Calls `visit` for every record, oldest first; period "YYYY-MM" limits it to that month.
  virtual void scan(const std::string& period, const std::function<void(LedgerRecord&&)>& visit) = 0;
  // Totals for one month, or every month when period is "".
  virtual std::vector<LedgerTotal> totals(const std::string& period);
  // Problems a reader skipped (a torn last line of a JSONL file), to print as warnings.
  virtual std::vector<std::string> warnings() const { return {}; }
  // The store in words, for messages ("SQLite spend.db").
  virtual std::string describe() const = 0;
};

enum class StoreKind { jsonl, sqlite, postgres };
StoreKind store_kind(const std::string& spec);

// Opens the store named by `spec`. `create`: make the file or schema when missing (writers);
// readers given a missing file get an InputError naming it.
std::unique_ptr<LedgerStore> open_ledger(const std::string& spec, bool create);

// A fresh random record id (128 bits, hex), for appends that do not name one.
std::string new_record_id();

// The id a record without one (a line written before ids existed) is known by: derived from its
// content and how many identical records precede it, so importing it twice adds it once.
std::string derived_record_id(const LedgerRecord& r, std::size_t nth_identical);

// How long a writer waits for another writer's lock before giving up (seconds);
// GPUPLAN_LEDGER_LOCK_TIMEOUT overrides the default of 30.
double lock_timeout_seconds();

// Throws InputError at `where` when a store's sums are not what valid records can add up to
// (inf, NaN, negative, a month that is not YYYY-MM): rows another tool wrote, summed in SQL.
void check_totals(const std::vector<LedgerTotal>& totals, const std::string& where);

// A --ledger value fit to print: a PostgreSQL URL's password (user:PASS@ or password=PASS) masked.
std::string redact_ledger_spec(const std::string& spec);

// The SQL stores keep a record's measured outcomes (family, metrics, utilization, samples,
// requests, restore time) as one JSON object in an `outcomes` text column, spelled as in the
// JSON Lines ledger; "" for a record without any (every record written before they existed).
std::string outcomes_text(const LedgerRecord& r);
// Reads that column back into `r`; throws InputErrors at r.where when it is not such an object.
void read_outcomes_text(const std::string& text, LedgerRecord& r);

std::unique_ptr<LedgerStore> open_jsonl_ledger(const std::string& path, bool create);
std::unique_ptr<LedgerStore> open_sqlite_ledger(const std::string& path, bool create);
std::unique_ptr<LedgerStore> open_postgres_ledger(const std::string& url);

}  // namespace gpuplan::store
