// The SQLite ledger: one file, WAL journal (readers never block the writer), every append a
// transaction (a killed or failed writer leaves no partial record; a full disk rolls back), and
// synchronous=FULL so a record reported as appended survives a crash.
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>
#include <string>
#include <thread>

#include "gpuplan/error.hpp"
#include "gpuplan/experiments.hpp"
#include "io/text/files.hpp"
#include "io/usage/ledger_record_check.hpp"
#include "store/ledger_store.hpp"

namespace gpuplan::store {

namespace {

constexpr int kSchemaVersion = 2;

// The secondary indexes of schema version 1 (migration 1 creates them; a bulk import rebuilds them).
#define GPUPLAN_LEDGER_INDEXES                                                         \
  "CREATE INDEX ledger_month ON ledger (month, team, user_name, currency, cost);"      \
  "CREATE INDEX ledger_team ON ledger (team, month);"                                  \
  "CREATE INDEX ledger_user ON ledger (user_name, month);"                             \
  "CREATE INDEX ledger_experiment ON ledger (experiment, month);"
// The record columns, in the order read_records reads them.
#define GPUPLAN_LEDGER_RECORD_COLUMNS \
  "SELECT seq, id, date, experiment, team, user_name, provider, cost, currency, gpu_hours, tokens, outcomes FROM ledger"

// A prepared statement finalized however its scope ends: a visitor or a bind that throws must
// not leak the statement (and with it the connection, which sqlite3_close refuses to free).
class Statement {
 public:
  explicit Statement(sqlite3_stmt* st) : st_(st) {}
  ~Statement() { sqlite3_finalize(st_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  operator sqlite3_stmt*() const { return st_; }

 private:
  sqlite3_stmt* st_;
};

// A number column as stored; NaN for text, blobs and NULL, which another tool may have written
// and which the record check then refuses instead of reading as 0.
double column_number(sqlite3_stmt* st, int i) {
  const int type = sqlite3_column_type(st, i);
  return type == SQLITE_INTEGER || type == SQLITE_FLOAT ? sqlite3_column_double(st, i) : std::nan("");
}

// Each step moves the schema from version i to i+1; a database is migrated step by step.
const char* const kMigrations[] = {
    R"(CREATE TABLE ledger (
         seq INTEGER PRIMARY KEY AUTOINCREMENT,
         id TEXT NOT NULL UNIQUE,
         date TEXT NOT NULL,
         month TEXT NOT NULL,
         experiment TEXT NOT NULL,
         team TEXT NOT NULL DEFAULT '',
         user_name TEXT NOT NULL DEFAULT '',
         provider TEXT NOT NULL DEFAULT '',
         cost REAL NOT NULL CHECK (cost >= 0),
         currency TEXT NOT NULL,
         gpu_hours REAL NOT NULL DEFAULT 0 CHECK (gpu_hours >= 0),
         tokens REAL NOT NULL DEFAULT 0 CHECK (tokens >= 0),
         recorded_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')));)" GPUPLAN_LEDGER_INDEXES,
    // Version 2: measured outcomes (metrics, utilization, samples, ...) as one JSON object; rows
    // written before it read as records without outcomes.
    "ALTER TABLE ledger ADD COLUMN outcomes TEXT NOT NULL DEFAULT '';",
};

// An import into an empty ledger loads the rows first and then builds these indexes once, from
// sorted data, in the same transaction: five B-trees updated per row made a 1M-record import 60 s.
const char* const kDropIndexes =
    "DROP INDEX ledger_month; DROP INDEX ledger_team; DROP INDEX ledger_user; DROP INDEX ledger_experiment;";
const char* const kCreateIndexes = GPUPLAN_LEDGER_INDEXES;
// Page cache for an import (KiB, as SQLite's negative cache_size counts): the default 2 MB made
// every insert into the id index a read from the kernel once the file outgrew it.
const char* const kImportCache = "PRAGMA cache_size=-262144";

class SqliteLedger : public LedgerStore {
 public:
  SqliteLedger(const std::string& path, bool create) : path_(path) {
    // Writers refuse a symlinked database, as the JSON Lines writer does.
    const int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE | SQLITE_OPEN_NOFOLLOW : 0) | SQLITE_OPEN_NOMUTEX;
    if (!create && !exists(path)) throw InputError(SourceLocation{path, 0, 0}, "", "cannot open file: no such file");
    try {
      if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) fail("cannot open");
      if (!create) io::note_input_path(path);  // so --html/--out refuse to replace it
      sqlite3_busy_timeout(db_, static_cast<int>(lock_timeout_seconds() * 1000));
      exec_retrying_busy("PRAGMA journal_mode=WAL");
      exec("PRAGMA synchronous=FULL");
      migrate();
    } catch (...) {
      sqlite3_close(db_);  // the destructor does not run for a constructor that throws
      throw;
    }
  }
  ~SqliteLedger() override { sqlite3_close(db_); }

  std::size_t append(const std::vector<LedgerRecord>& records) override {
    io::require_valid_records(records);  // before the transaction: a bad record commits nothing
    exec("BEGIN IMMEDIATE");
    std::size_t added = 0;
    sqlite3_stmt* st = nullptr;
    try {
      st = prepare_insert();
      for (const auto& r : records) added += insert(st, r);
      sqlite3_finalize(st);
      st = nullptr;
      exec("COMMIT");
    } catch (...) {
      sqlite3_finalize(st);
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
      throw;
    }
    return added;
  }

  // One transaction for the whole import (all or nothing), a larger page cache, and into an
  // empty ledger the secondary indexes built after the rows are in.
  std::size_t import(const std::function<void(const std::function<void(LedgerRecord&&)>&)>& produce) override {
    exec(kImportCache);
    exec("BEGIN IMMEDIATE");
    std::size_t added = 0;
    sqlite3_stmt* st = nullptr;
    try {
      const bool empty = is_empty();
      if (empty) exec(kDropIndexes);
      st = prepare_insert();
      std::vector<InputError> bad;
      produce([&](LedgerRecord&& r) {
        io::check_ledger_record(r, r.where, bad);  // the one record check of every store, before it is written
        if (!bad.empty()) throw InputErrors(std::move(bad));
        added += insert(st, r);
      });
      sqlite3_finalize(st);
      st = nullptr;
      if (empty) exec(kCreateIndexes);
      exec("COMMIT");
    } catch (...) {
      sqlite3_finalize(st);
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
      throw;
    }
    return added;
  }

  void scan(const std::string& period, const std::function<void(LedgerRecord&&)>& visit) override {
    Statement st(prepare(
        "SELECT seq, id, date, experiment, team, user_name, provider, cost, currency, gpu_hours, tokens, outcomes FROM ledger "
        "WHERE month BETWEEN ?1 AND ?2 ORDER BY seq"));
    bind_period(st, period);
    read_records(st, visit);
  }

  // Filtered by date alone: no index serves it, so SQLite reads the table in seq order with no
  // sort (a month of a 1M-record ledger by the month index and a sort took 0.47 s; this, 0.11 s).
  void scan_dates(const std::string& first, const std::string& last, const std::function<void(LedgerRecord&&)>& visit) override {
    Statement st(prepare(
        "SELECT seq, id, date, experiment, team, user_name, provider, cost, currency, gpu_hours, tokens, outcomes FROM ledger "
        "WHERE date BETWEEN ?1 AND ?2 ORDER BY seq"));
    sqlite3_bind_text(st, 1, first.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, last.c_str(), -1, SQLITE_TRANSIENT);
    read_records(st, visit);
  }

  std::vector<SpendSums> sum_spend(const std::vector<SpendQuery>& queries) override {
    std::size_t unused = 0;
    return sum_pass(queries, false, "", unused);
  }

  // The sums from the narrow pass; whole rows only for the period and, when some record carries
  // outcomes, for the measured families' earlier records. On a 1M-record ledger without outcomes
  // this reads a month's rows rather than all of them (report read every row whole).
  std::vector<SpendSums> sum_spend_and_scan_families(const std::vector<SpendQuery>& queries, const std::string& first,
                                                     const std::string& last,
                                                     const std::function<void(LedgerRecord&&)>& visit) override {
    // Where the sum pass reads every row to `last` it also notes whether any carries outcomes,
    // so a ledger without them is not read once more to find none (0.1 s of a 1M-row ledger).
    const auto [pass_first, pass_last] = pass_range(queries);
    const bool covers = pass_first.empty() && !last.empty() && pass_last >= last;
    std::size_t with_outcomes = 0;
    std::vector<SpendSums> sums = sum_pass(queries, covers, last, with_outcomes);
    std::set<std::string> measured;
    if (!covers || with_outcomes > 0) {
      Statement st(prepare(GPUPLAN_LEDGER_RECORD_COLUMNS " WHERE outcomes != '' AND date <= ?1 ORDER BY seq"));
      sqlite3_bind_text(st, 1, last.c_str(), -1, SQLITE_TRANSIENT);
      read_records(st, [&](LedgerRecord&& r) { measured.insert(family_of(r)); });
    }
    if (measured.empty()) {
      scan_dates(first, last, visit);
      return sums;
    }
    // A record without outcomes has the family of its experiment's name; those with outcomes
    // are all in measured families.
    LedgerRecord plain;
    auto keep = [&](sqlite3_stmt* st) {
      if (sqlite3_column_bytes(st, 11) > 0 || column_text(st, 2).compare(first) >= 0) return true;
      assign_text(plain.experiment, st, 3);
      return measured.count(family_of(plain)) > 0;
    };
    Statement st(prepare(GPUPLAN_LEDGER_RECORD_COLUMNS " WHERE date <= ?1 ORDER BY seq"));
    sqlite3_bind_text(st, 1, last.c_str(), -1, SQLITE_TRANSIENT);
    read_records(st, visit, keep);
    return sums;
  }

  std::string describe() const override { return "SQLite database " + path_; }

 private:
  // The dates one sum pass reads: from the earliest query's first to the latest query's last.
  static std::pair<std::string, std::string> pass_range(const std::vector<SpendQuery>& queries) {
    std::string first = "9999-99-99", last;
    for (const auto& q : queries) first = std::min(first, q.first), last = std::max(last, q.last.empty() ? "9999-99-99" : q.last);
    return {first, last};
  }

  // One pass over the table in seq order reading only the summed columns, grouped in a hash:
  // on 1M records SQLite's GROUP BY sorted them in a temporary B-tree (1.9 s by team, 4.4 s by
  // experiment), and where an index covers the key it sums in index order, which changes the
  // last digits against every other store. This pass takes about 0.2 s. With `note_outcomes`
  // it also counts in `with_outcomes` the rows dated to `outcomes_to` that carry outcomes.
  std::vector<SpendSums> sum_pass(const std::vector<SpendQuery>& queries, bool note_outcomes, const std::string& outcomes_to,
                                  std::size_t& with_outcomes) {
    const auto [first, last] = pass_range(queries);
    // Only the key columns some query groups by are read (each one read costs about 10%).
    LedgerRecord r;  // reused: its strings keep their buffers from row to row
    std::string sql = "SELECT seq, date, currency, cost";
    std::vector<std::string*> keys;
    const std::pair<const char*, std::string*> kKeys[] = {
        {"experiment", &r.experiment}, {"team", &r.team}, {"user", &r.user}, {"provider", &r.provider}};
    for (const auto& [by, field] : kKeys)
      if (std::any_of(queries.begin(), queries.end(), [&, by = by](const SpendQuery& q) { return q.by == by; })) {
        sql += std::string(", ") + (std::string(by) == "user" ? "user_name" : by);
        keys.push_back(field);
      }
    const int outcomes_column = 4 + static_cast<int>(keys.size());
    if (note_outcomes) sql += ", outcomes != ''";
    Statement st(prepare((sql + " FROM ledger WHERE date BETWEEN ?1 AND ?2 ORDER BY seq").c_str()));
    sqlite3_bind_text(st, 1, first.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, last.c_str(), -1, SQLITE_TRANSIENT);
    SpendAccumulator acc(queries);
    std::vector<InputError> bad;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      assign_text(r.date, st, 1);
      assign_text(r.currency, st, 2);
      r.cost = column_number(st, 3);
      for (std::size_t i = 0; i < keys.size(); ++i) assign_text(*keys[i], st, static_cast<int>(i) + 4);
      // A row another tool wrote: refused where it sits (path:seq), as scan() refuses it.
      io::check_summed_fields(r, SourceLocation{path_, sqlite3_column_int(st, 0), 0}, bad);
      if (!bad.empty()) throw InputErrors(std::move(bad));
      acc.add(r);
      if (note_outcomes && sqlite3_column_int(st, outcomes_column) != 0 && r.date.compare(outcomes_to) <= 0) ++with_outcomes;
    }
    if (rc != SQLITE_DONE) fail("read failed");
    std::vector<SpendSums> out = acc.sums();
    check_sums(out, path_);
    return out;
  }

  static bool exists(const std::string& path) {
    if (std::FILE* f = std::fopen(path.c_str(), "rb")) {
      std::fclose(f);
      return true;
    }
    return false;
  }

  // One month, or all ("" to "9999-99" spans every "YYYY-MM"): a range the month index can serve.
  static void bind_period(sqlite3_stmt* st, const std::string& period) {
    sqlite3_bind_text(st, 1, period.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, period.empty() ? "9999-99" : period.c_str(), -1, SQLITE_TRANSIENT);
  }

  // Hands each row of a statement selecting the record columns (as scan's) to `visit`; with
  // `keep`, only the rows it accepts (it sees the row before any column is decoded into a record).
  void read_records(sqlite3_stmt* st, const std::function<void(LedgerRecord&&)>& visit,
                    const std::function<bool(sqlite3_stmt*)>& keep = nullptr) {
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
      if (keep && !keep(st)) continue;
      LedgerRecord r;
      r.where = SourceLocation{path_, sqlite3_column_int(st, 0), 0};
      std::string* text[] = {&r.id, &r.date, &r.experiment, &r.team, &r.user, &r.provider};
      for (int i = 0; i < 6; ++i) *text[i] = column_text(st, i + 1);
      r.cost = column_number(st, 7);
      r.currency = column_text(st, 8);
      r.gpu_hours = column_number(st, 9);
      r.tokens = column_number(st, 10);
      read_outcomes_text(column_text(st, 11), r);  // every query here selects the outcomes 12th
      require_valid(r);  // a row another tool wrote: refused where it sits (path:seq)
      visit(std::move(r));
    }
    if (rc != SQLITE_DONE) fail("read failed");
  }

  // require_valid_records for one record, without copying it into a vector.
  static void require_valid(const LedgerRecord& r) {
    std::vector<InputError> bad;
    try {
      io::check_ledger_record(r, r.where, bad);
    } catch (const InputError& e) {
      bad.push_back(e);
    }
    if (!bad.empty()) throw InputErrors(std::move(bad));
  }

  static void assign_text(std::string& to, sqlite3_stmt* st, int i) {
    const unsigned char* t = sqlite3_column_text(st, i);
    if (t) to.assign(reinterpret_cast<const char*>(t));  // up to a NUL, as column_text reads it
    else to.clear();
  }

  static std::string column_text(sqlite3_stmt* st, int i) {
    const unsigned char* t = sqlite3_column_text(st, i);
    return t ? reinterpret_cast<const char*>(t) : "";
  }

  [[noreturn]] void fail(const std::string& what) const {
    const int code = sqlite3_extended_errcode(db_);
    std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
    if ((code & 0xff) == SQLITE_BUSY) why += " (another writer held it for the whole lock timeout; GPUPLAN_LEDGER_LOCK_TIMEOUT sets the wait)";
    if ((code & 0xff) == SQLITE_FULL) why += " (No space left on device; the transaction was rolled back)";
    throw InputError(SourceLocation{path_, 0, 0}, "ledger", what + ": " + why);
  }

  void exec(const char* sql) {
    if (sqlite3_exec(db_, sql, nullptr, nullptr, nullptr) != SQLITE_OK) fail(std::string("cannot run ") + sql);
  }

  // Switching a new file to WAL takes it exclusively for a moment, and SQLite answers BUSY
  // without calling the busy handler when another connection is switching it too (60 first
  // writers racing to create one ledger hit this). So this retries, within the lock timeout.
  void exec_retrying_busy(const char* sql) {
    const auto start = std::chrono::steady_clock::now();
    for (int attempt = 0;; ++attempt) {
      const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, nullptr);
      if (rc == SQLITE_OK) return;
      const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if ((rc & 0xff) != SQLITE_BUSY || waited >= lock_timeout_seconds()) fail(std::string("cannot run ") + sql);
      std::this_thread::sleep_for(std::chrono::milliseconds(2 + 3 * (attempt % 8)));
    }
  }

  sqlite3_stmt* prepare_insert() {
    return prepare(
        "INSERT INTO ledger (id, date, month, experiment, team, user_name, provider, cost, currency, gpu_hours, tokens, outcomes) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12) ON CONFLICT (id) DO NOTHING");
  }

  // Inserts one record with `st` (prepare_insert); 1 when it was new, 0 when its id was there.
  std::size_t insert(sqlite3_stmt* st, const LedgerRecord& r) {
    const std::string month = period_of(r.date);
    const std::string* text[] = {&r.id, &r.date, &month, &r.experiment, &r.team, &r.user, &r.provider};
    for (int i = 0; i < 7; ++i) sqlite3_bind_text(st, i + 1, text[i]->c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_double(st, 8, r.cost);
    sqlite3_bind_text(st, 9, r.currency.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_double(st, 10, r.gpu_hours);
    sqlite3_bind_double(st, 11, r.tokens);
    const std::string outcomes = outcomes_text(r);
    sqlite3_bind_text(st, 12, outcomes.c_str(), -1, SQLITE_TRANSIENT);
    if (sqlite3_step(st) != SQLITE_DONE) fail("append failed");  // the caller finalizes `st`
    sqlite3_reset(st);
    return static_cast<std::size_t>(sqlite3_changes(db_));
  }

  bool is_empty() {
    sqlite3_stmt* st = prepare("SELECT NOT EXISTS (SELECT 1 FROM ledger)");
    const bool empty = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 1;
    sqlite3_finalize(st);
    return empty;
  }

  sqlite3_stmt* prepare(const char* sql) {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db_, sql, -1, &st, nullptr) != SQLITE_OK) fail("cannot prepare a query");
    return st;
  }

  int user_version() {
    Statement st(prepare("PRAGMA user_version"));
    return sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
  }

  // Schema changes run in one IMMEDIATE transaction, so concurrent first writers serialise and
  // each sees the version the previous one left.
  void migrate() {
    if (user_version() == kSchemaVersion) return;
    exec("BEGIN IMMEDIATE");
    try {
      const int have = user_version();
      if (have > kSchemaVersion)
        throw InputError(SourceLocation{path_, 0, 0}, "ledger",
                         "schema version " + std::to_string(have) + " was written by a newer gpuplan (this one knows " +
                             std::to_string(kSchemaVersion) + ")");
      for (int v = have; v < kSchemaVersion; ++v) exec(kMigrations[v]);
      exec(("PRAGMA user_version=" + std::to_string(kSchemaVersion)).c_str());
      exec("COMMIT");
    } catch (...) {
      sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
      throw;
    }
  }

  std::string path_;
  sqlite3* db_ = nullptr;
};

}  // namespace

std::unique_ptr<LedgerStore> open_sqlite_ledger(const std::string& path, bool create) {
  // SQLite would read "file:x?mode=memory&y=.db" as a URI (an in-memory database: "appended",
  // nothing written) and ":memory:" likewise: a ledger is a file.
  if (path.rfind("file:", 0) == 0 || path.rfind(":memory:", 0) == 0)
    throw InputError(SourceLocation{path, 0, 0}, "ledger", "SQLite URIs and in-memory databases are not ledgers; name the database file");
  return std::make_unique<SqliteLedger>(path, create);
}

}  // namespace gpuplan::store
