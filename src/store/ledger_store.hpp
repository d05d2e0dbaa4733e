#pragma once
// Where the spend ledger lives, behind one interface. The --ledger value picks the store:
//   *.jsonl (or any other path)   JSON Lines file: git-friendly, one record per line
//   *.db, *.sqlite, *.sqlite3      SQLite: WAL, transactions, indexes on month/team/user/experiment
//   postgresql://… or postgres://… PostgreSQL: one ledger shared by many CI runners and people
// Every store keys records by id: appending a record whose id is already there adds nothing, so
// a retried CI job does not count its spend twice.
#include <cstddef>
#include <functional>
#include <string_view>
#include <unordered_map>
#include <memory>
#include <string>
#include <vector>

#include "gpuplan/budget.hpp"

namespace gpuplan::store {

// Spend summed by one key of the records and by currency, over a range of dates: what `ledger
// report`, `report` and `check` read from a large ledger instead of every record. Each sum adds
// its records' costs in record order (oldest first), as a reader of every record would, so every
// store gives the same figure to the last bit. Amounts stay in the records' currency.
struct SpendSum {
  std::string key, currency;  // key "" for records that leave the field empty
  double cost = 0;
  std::size_t records = 0;
};
struct SpendQuery {
  std::string by;           // experiment, team, user, provider or month (the date's YYYY-MM)
  std::string first, last;  // dates YYYY-MM-DD, both included; "" leaves that end open
};
// The sums of one query, sorted by key, then currency.
using SpendSums = std::vector<SpendSum>;

// The fields of one record a sum reads (views into the reader's buffers).
struct SpendRow {
  std::string_view date, experiment, team, user, provider, currency;
  double cost = 0;
};

// Adds records, in record order, to the sums of several queries: one pass of any reader.
class SpendAccumulator {
 public:
  explicit SpendAccumulator(std::vector<SpendQuery> queries);
  void add(const SpendRow& row);
  void add(const LedgerRecord& r);
  std::vector<SpendSums> sums() const;

 private:
  struct Group {
    std::vector<SpendSum> sums;
    std::unordered_map<std::string, std::size_t> index;  // key + '\0' + currency -> sums[i]
  };
  std::vector<SpendQuery> queries_;
  std::vector<Group> groups_;
  std::string scratch_;
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
  // Calls `visit` for every record dated `first` to `last` (YYYY-MM-DD, both included), oldest first.
  virtual void scan_dates(const std::string& first, const std::string& last, const std::function<void(LedgerRecord&&)>& visit);
  // The sums of each query, in query order (see SpendSum). By default from scan(); SQLite reads
  // only the columns summed, PostgreSQL sums in SQL.
  virtual std::vector<SpendSums> sum_spend(const std::vector<SpendQuery>& queries);
  // sum_spend and scan_dates together: by default both queries (the SQL stores); JSON Lines,
  // which reads whole records anyway, serves both from one pass.
  virtual std::vector<SpendSums> sum_spend_and_scan(const std::vector<SpendQuery>& queries, const std::string& first,
                                                    const std::string& last, const std::function<void(LedgerRecord&&)>& visit);
  // What `report` reads: the sums of `queries`, and, oldest first, the records dated `first` to
  // `last` plus the earlier ones of every experiment family (family_of) in which some record to
  // `last` carries measured outcomes (a family decides from its whole history; a ledger without
  // outcomes needs only the period). By default every record to `last` is read and filtered;
  // SQLite reads whole rows only for the records it hands over.
  virtual std::vector<SpendSums> sum_spend_and_scan_families(const std::vector<SpendQuery>& queries, const std::string& first,
                                                             const std::string& last,
                                                             const std::function<void(LedgerRecord&&)>& visit);
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
// (inf, NaN, negative): rows another tool wrote, summed in SQL.
void check_sums(const std::vector<SpendSums>& sums, const std::string& where);

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
