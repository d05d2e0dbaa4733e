// The PostgreSQL ledger, for many CI runners and people sharing one ledger. gpuplan creates and
// migrates its schema when it is missing or older (under an advisory lock, so concurrent first
// runs do not race; an up-to-date schema is opened without lock or DDL), and every
// append is `INSERT … ON CONFLICT (id) DO NOTHING` in one transaction: a retried job with the
// same record id adds nothing.
#include <libpq-fe.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "gpuplan/error.hpp"
#include "io/usage/ledger_record_check.hpp"
#include "store/ledger_store.hpp"

namespace gpuplan::store {

namespace {

constexpr int kSchemaVersion = 2;
constexpr const char* kLockKey = "4711020";  // pg_advisory_xact_lock key for schema changes
// No statement runs longer than this: a report over millions of rows takes seconds, so ten
// minutes means a server in trouble, and a CI gate should fail rather than hang.
constexpr long long kStatementTimeoutMs = 600000;

const char* const kMigrations[] = {
    R"(CREATE TABLE gpuplan_ledger (
         seq BIGSERIAL PRIMARY KEY,
         id TEXT NOT NULL UNIQUE,
         date DATE NOT NULL,
         month TEXT NOT NULL,
         experiment TEXT NOT NULL,
         team TEXT NOT NULL DEFAULT '',
         user_name TEXT NOT NULL DEFAULT '',
         provider TEXT NOT NULL DEFAULT '',
         cost DOUBLE PRECISION NOT NULL CHECK (cost >= 0),
         currency TEXT NOT NULL,
         gpu_hours DOUBLE PRECISION NOT NULL DEFAULT 0 CHECK (gpu_hours >= 0),
         tokens DOUBLE PRECISION NOT NULL DEFAULT 0 CHECK (tokens >= 0),
         recorded_at TIMESTAMPTZ NOT NULL DEFAULT now());
       CREATE INDEX gpuplan_ledger_month ON gpuplan_ledger (month, team, user_name, currency) INCLUDE (cost);
       CREATE INDEX gpuplan_ledger_team ON gpuplan_ledger (team, month);
       CREATE INDEX gpuplan_ledger_user ON gpuplan_ledger (user_name, month);
       CREATE INDEX gpuplan_ledger_experiment ON gpuplan_ledger (experiment, month);)",
    // Version 2: measured outcomes (metrics, utilization, samples, ...) as one JSON object; rows
    // written before it read as records without outcomes. Adding a column with a constant
    // default rewrites no rows, so an old ledger of millions migrates at once.
    "ALTER TABLE gpuplan_ledger ADD COLUMN outcomes TEXT NOT NULL DEFAULT ''",
};

class Result {
 public:
  explicit Result(PGresult* r) : r_(r) {}
  ~Result() { PQclear(r_); }
  Result(const Result&) = delete;
  Result& operator=(const Result&) = delete;
  PGresult* get() const { return r_; }

 private:
  PGresult* r_;
};

class PostgresLedger : public LedgerStore {
 public:
  explicit PostgresLedger(const std::string& url) : url_(redact_ledger_spec(url)) {
    // A default connect timeout (the URL's own connect_timeout wins: later settings override),
    // so an unreachable server fails in seconds rather than the OS's minutes.
    const char* keys[] = {"connect_timeout", "dbname", nullptr};
    const char* values[] = {"5", url.c_str(), nullptr};
    conn_ = PQconnectdbParams(keys, values, 1);
    if (PQstatus(conn_) != CONNECTION_OK) {
      const std::string why = PQerrorMessage(conn_);
      PQfinish(conn_);
      throw InputError(SourceLocation{url_, 0, 0}, "ledger", "cannot connect: " + trim(why));
    }
    try {
      open_schema();
    } catch (...) {
      PQfinish(conn_);
      throw;
    }
  }
  ~PostgresLedger() override { PQfinish(conn_); }

  std::size_t append(const std::vector<LedgerRecord>& records) override {
    io::require_valid_records(records);  // before the transaction: a bad record commits nothing
    exec("BEGIN");
    std::size_t added = 0;
    try {
      if (records.size() > 1) {
        added = copy_in(records);
        exec("COMMIT");
        return added;
      }
      for (const auto& r : records) {
        const std::string month = period_of(r.date), cost = num(r.cost), hours = num(r.gpu_hours), tokens = num(r.tokens),
                          outcomes = outcomes_text(r);
        const char* v[] = {r.id.c_str(), r.date.c_str(), month.c_str(), r.experiment.c_str(), r.team.c_str(), r.user.c_str(),
                           r.provider.c_str(), cost.c_str(), r.currency.c_str(), hours.c_str(), tokens.c_str(), outcomes.c_str()};
        Result res(PQexecParams(conn_,
                                "INSERT INTO gpuplan_ledger (id, date, month, experiment, team, user_name, provider, cost, currency, "
                                "gpu_hours, tokens, outcomes) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) "
                                "ON CONFLICT (id) DO NOTHING",
                                12, nullptr, v, nullptr, nullptr, 0));
        check(res, PGRES_COMMAND_OK, "append failed");
        added += static_cast<std::size_t>(std::atoi(PQcmdTuples(res.get())));
      }
      exec("COMMIT");
    } catch (...) {
      Result(PQexec(conn_, "ROLLBACK"));
      throw;
    }
    return added;
  }

  void scan(const std::string& period, const std::function<void(LedgerRecord&&)>& visit) override {
    // One month, or all ("" to "9999-99" spans every "YYYY-MM"): a range the month index can serve.
    read_records("SELECT seq, id, to_char(date, 'YYYY-MM-DD'), experiment, team, user_name, provider, cost, currency, "
                 "gpu_hours, tokens, outcomes FROM gpuplan_ledger WHERE month BETWEEN $1 AND $2 ORDER BY seq",
                 {period, period.empty() ? "9999-99" : period}, visit);
  }

  void scan_dates(const std::string& first, const std::string& last, const std::function<void(LedgerRecord&&)>& visit) override {
    // An empty bound is open, as in the other stores (whose dates compare as text).
    read_records("SELECT seq, id, to_char(date, 'YYYY-MM-DD'), experiment, team, user_name, provider, cost, currency, "
                 "gpu_hours, tokens, outcomes FROM gpuplan_ledger WHERE date BETWEEN $1::date AND $2::date ORDER BY seq",
                 {first.empty() ? "0001-01-01" : first, last.empty() ? "9999-12-31" : last}, visit);
  }

  // Summed by the server, one GROUP BY per query; `sum(cost ORDER BY seq)` adds in record order
  // (plain float8 addition, never a parallel plan), so the sums equal every other store's.
  std::vector<SpendSums> sum_spend(const std::vector<SpendQuery>& queries) override {
    std::vector<SpendSums> out;
    for (const auto& q : queries) {
      const std::string key = q.by == "team"       ? "team"
                              : q.by == "user"     ? "user_name"
                              : q.by == "provider" ? "provider"
                              : q.by == "month"    ? "to_char(date, 'YYYY-MM')"
                                                   : "experiment";
      const std::string first = q.first.empty() ? "0001-01-01" : q.first, last = q.last.empty() ? "9999-12-31" : q.last;
      const char* v[] = {first.c_str(), last.c_str()};
      Result res(PQexecParams(conn_,
                              ("SELECT " + key + ", currency, sum(cost ORDER BY seq), count(*) FROM gpuplan_ledger "
                               "WHERE date BETWEEN $1::date AND $2::date GROUP BY 1, 2 ORDER BY 1, 2").c_str(),
                              2, nullptr, v, nullptr, nullptr, 0));
      check(res, PGRES_TUPLES_OK, "read failed");
      SpendSums sums;
      for (int i = 0; i < PQntuples(res.get()); ++i)
        sums.push_back({PQgetvalue(res.get(), i, 0), PQgetvalue(res.get(), i, 1), std::strtod(PQgetvalue(res.get(), i, 2), nullptr),
                        std::strtoull(PQgetvalue(res.get(), i, 3), nullptr, 10)});
      // The server's collation may order names differently from the other stores' byte order.
      std::sort(sums.begin(), sums.end(), [](const SpendSum& a, const SpendSum& b) {
        return a.key != b.key ? a.key < b.key : a.currency < b.currency;
      });
      out.push_back(std::move(sums));
    }
    check_sums(out, url_);
    return out;
  }

  std::string describe() const override { return "PostgreSQL " + url_; }

 private:
  static std::string trim(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
  }
  static std::string num(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
  }

  // Streams the rows of `sql` (selecting scan's columns) to `visit`, one at a time.
  void read_records(const char* sql, const std::vector<std::string>& params, const std::function<void(LedgerRecord&&)>& visit) {
    const char* v[] = {params[0].c_str(), params[1].c_str()};
    if (!PQsendQueryParams(conn_, sql, 2, nullptr, v, nullptr, nullptr, 0)) fail("read failed", PQerrorMessage(conn_));
    PQsetSingleRowMode(conn_);  // streams: a million rows are never all in memory
    std::string error;
    while (PGresult* raw = PQgetResult(conn_)) {
      Result res(raw);
      const auto status = PQresultStatus(raw);
      if (status == PGRES_SINGLE_TUPLE && error.empty()) {
        try {
          LedgerRecord r = row(raw);
          io::require_valid_records({r});  // a row another tool wrote: refused where it sits (url:seq)
          visit(std::move(r));
        } catch (...) {
          // Drain the rest of the results first: the connection is unusable until they are read.
          while (PGresult* rest = PQgetResult(conn_)) PQclear(rest);
          throw;
        }
      } else if (status != PGRES_TUPLES_OK && status != PGRES_SINGLE_TUPLE) error = PQresultErrorMessage(raw);
    }
    if (!error.empty()) fail("read failed", error);
  }

  LedgerRecord row(PGresult* r) const {
    LedgerRecord rec;
    rec.where = SourceLocation{url_, std::atoi(PQgetvalue(r, 0, 0)), 0};
    std::string* text[] = {&rec.id, &rec.date, &rec.experiment, &rec.team, &rec.user, &rec.provider};
    for (int i = 0; i < 6; ++i) *text[i] = PQgetvalue(r, 0, i + 1);
    rec.cost = std::strtod(PQgetvalue(r, 0, 7), nullptr);
    rec.currency = PQgetvalue(r, 0, 8);
    rec.gpu_hours = std::strtod(PQgetvalue(r, 0, 9), nullptr);
    rec.tokens = std::strtod(PQgetvalue(r, 0, 10), nullptr);
    read_outcomes_text(PQgetvalue(r, 0, 11), rec);
    return rec;
  }

  [[noreturn]] void fail(const std::string& what, const std::string& why) const {
    throw InputError(SourceLocation{url_, 0, 0}, "ledger", what + ": " + trim(why));
  }
  void check(const Result& res, ExecStatusType want, const std::string& what) const {
    if (PQresultStatus(res.get()) != want) fail(what, explain(PQresultErrorMessage(res.get())));
  }
  // A lock or statement timeout says which setting to change.
  static std::string explain(const std::string& why) {
    if (why.find("lock timeout") != std::string::npos)
      return trim(why) + " (another session held the ledger's lock for the whole GPUPLAN_LEDGER_LOCK_TIMEOUT)";
    if (why.find("statement timeout") != std::string::npos) return trim(why) + " (the server took too long)";
    return why;
  }
  void exec(const std::string& sql) {
    Result res(PQexec(conn_, sql.c_str()));
    const auto s = PQresultStatus(res.get());
    if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK) fail("cannot run " + sql.substr(0, 40), explain(PQresultErrorMessage(res.get())));
  }

  // COPY text format: backslash, tab, newline and carriage return escaped.
  static void copy_field(std::string& line, const std::string& v, char end) {
    for (char c : v) {
      if (c == '\\') line += "\\\\";
      else if (c == '\t') line += "\\t";
      else if (c == '\n') line += "\\n";
      else if (c == '\r') line += "\\r";
      else line += c;
    }
    line += end;
  }

  // A batch (an import) goes through COPY into a temporary table and one INSERT … ON CONFLICT:
  // ~100x faster than a statement per record, still one transaction.
  std::size_t copy_in(const std::vector<LedgerRecord>& records) {
    exec("CREATE TEMP TABLE IF NOT EXISTS gpuplan_import (ord BIGSERIAL, id TEXT, date DATE, month TEXT, experiment TEXT, team TEXT, "
         "user_name TEXT, provider TEXT, cost DOUBLE PRECISION, currency TEXT, gpu_hours DOUBLE PRECISION, tokens DOUBLE PRECISION, "
         "outcomes TEXT) ON COMMIT DELETE ROWS");
    Result start(PQexec(conn_, "COPY gpuplan_import (id, date, month, experiment, team, user_name, provider, cost, currency, gpu_hours, "
                               "tokens, outcomes) FROM STDIN"));
    check(start, PGRES_COPY_IN, "append failed");
    std::string buf;
    for (const auto& r : records) {
      for (const std::string* f : {&r.id, &r.date}) copy_field(buf, *f, '\t');
      copy_field(buf, period_of(r.date), '\t');
      for (const std::string* f : {&r.experiment, &r.team, &r.user, &r.provider}) copy_field(buf, *f, '\t');
      buf += num(r.cost) + '\t';
      copy_field(buf, r.currency, '\t');
      buf += num(r.gpu_hours) + '\t' + num(r.tokens) + '\t';
      copy_field(buf, outcomes_text(r), '\n');
      if (buf.size() > (1 << 20)) {
        if (PQputCopyData(conn_, buf.data(), static_cast<int>(buf.size())) != 1) fail("append failed", PQerrorMessage(conn_));
        buf.clear();
      }
    }
    if (!buf.empty() && PQputCopyData(conn_, buf.data(), static_cast<int>(buf.size())) != 1) fail("append failed", PQerrorMessage(conn_));
    if (PQputCopyEnd(conn_, nullptr) != 1) fail("append failed", PQerrorMessage(conn_));
    Result done(PQgetResult(conn_));
    check(done, PGRES_COMMAND_OK, "append failed");
    while (PGresult* extra = PQgetResult(conn_)) PQclear(extra);
    Result ins(PQexec(conn_,
                      "INSERT INTO gpuplan_ledger (id, date, month, experiment, team, user_name, provider, cost, currency, gpu_hours, tokens, "
                      "outcomes) SELECT id, date, month, experiment, team, user_name, provider, cost, currency, gpu_hours, tokens, outcomes "
                      "FROM gpuplan_import "
                      "ORDER BY ord ON CONFLICT (id) DO NOTHING"));
    check(ins, PGRES_COMMAND_OK, "append failed");
    return static_cast<std::size_t>(std::atoll(PQcmdTuples(ins.get())));
  }

  // The schema's version; 0 when gpuplan_meta does not exist yet. A read that fails for any
  // other reason (no permission) is an error, not a reason to run DDL.
  int schema_version() {
    Result res(PQexec(conn_, "SELECT value FROM gpuplan_meta WHERE key = 'schema_version'"));
    if (PQresultStatus(res.get()) == PGRES_TUPLES_OK) return PQntuples(res.get()) == 0 ? 0 : std::atoi(PQgetvalue(res.get(), 0, 0));
    const char* state = PQresultErrorField(res.get(), PG_DIAG_SQLSTATE);
    if (state && std::string(state) == "42P01") return 0;  // undefined_table
    fail("cannot read the ledger schema version", explain(PQresultErrorMessage(res.get())));
  }

  // Timeouts first, so that no statement (the advisory lock included) waits on another session
  // for longer than GPUPLAN_LEDGER_LOCK_TIMEOUT. Then the lock and DDL only when the schema is
  // older than this gpuplan: an up-to-date ledger opens with one SELECT, which a read-only role
  // may run, and a stuck writer elsewhere does not stop readers.
  void open_schema() {
    exec("SET client_min_messages = warning");
    exec("SET extra_float_digits = 3");  // every float8 as text reads back to the same double
    exec("SET lock_timeout = " + std::to_string(std::max(1LL, static_cast<long long>(lock_timeout_seconds() * 1000))));  // 0 would mean no limit
    exec("SET statement_timeout = " + std::to_string(kStatementTimeoutMs));
    const int have = schema_version();
    if (have > kSchemaVersion)
      fail("ledger schema", "version " + std::to_string(have) + " was written by a newer gpuplan (this one knows " +
                                std::to_string(kSchemaVersion) + ")");
    if (have < kSchemaVersion) migrate();
  }

  void migrate() {
    exec("BEGIN");
    try {
      exec(std::string("SELECT pg_advisory_xact_lock(") + kLockKey + ")");
      exec("CREATE TABLE IF NOT EXISTS gpuplan_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
      const int have = schema_version();  // again, under the lock: another first run may have migrated
      if (have > kSchemaVersion)
        fail("ledger schema", "version " + std::to_string(have) + " was written by a newer gpuplan (this one knows " +
                                  std::to_string(kSchemaVersion) + ")");
      for (int v = have; v < kSchemaVersion; ++v) exec(kMigrations[v]);
      if (have != kSchemaVersion)
        exec("INSERT INTO gpuplan_meta VALUES ('schema_version', '" + std::to_string(kSchemaVersion) +
             "') ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value");
      exec("COMMIT");
    } catch (...) {
      Result(PQexec(conn_, "ROLLBACK"));
      throw;
    }
  }

  std::string url_;
  PGconn* conn_ = nullptr;
};

}  // namespace

std::unique_ptr<LedgerStore> open_postgres_ledger(const std::string& url) { return std::make_unique<PostgresLedger>(url); }

}  // namespace gpuplan::store
