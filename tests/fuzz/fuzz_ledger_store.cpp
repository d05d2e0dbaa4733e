// libFuzzer target: ledger rows as another tool writes them. The input becomes one row of an
// SQLite ledger (each field text, a number, a blob or NULL, as the input's bytes choose), written
// with raw SQL the way a script or a DB browser would, then read through the store. A row must
// be refused with an InputError, or come back as a record that JSON Lines can hold and that
// reads back unchanged: no crash, no internal error, nothing a later export fails on.
#include <sqlite3.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "gpuplan/error.hpp"
#include "io/usage/ledger.hpp"
#include "store/ledger_store.hpp"

namespace {

const std::string& db_path() {
  static const std::string path = [] {
    std::string p = (access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp") + std::string("/fuzz-ledger-") + std::to_string(getpid()) + ".db";
    std::remove(p.c_str());
    { auto made = gpuplan::store::open_ledger(p, true); }  // gpuplan's own schema
    return p;
  }();
  return path;
}

// The row's fields from the input: split at 0x1f; each field's first byte picks how it is bound.
void bind_field(sqlite3_stmt* st, int i, const std::string& f) {
  const char kind = f.empty() ? 't' : f[0];
  const std::string v = f.empty() ? f : f.substr(1);
  if (kind == 'n') sqlite3_bind_null(st, i);
  else if (kind == 'd') sqlite3_bind_double(st, i, std::strtod(v.c_str(), nullptr));
  else if (kind == 'i') sqlite3_bind_int64(st, i, std::strtoll(v.c_str(), nullptr, 10));
  else if (kind == 'b') sqlite3_bind_blob(st, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  else sqlite3_bind_text(st, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
}

void write_row(const std::string& input) {
  sqlite3* db = nullptr;
  sqlite3_open(db_path().c_str(), &db);
  sqlite3_exec(db, "DELETE FROM ledger", nullptr, nullptr, nullptr);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db,
                     "INSERT INTO ledger (id, date, month, experiment, team, user_name, provider, cost, currency, gpu_hours, tokens) "
                     "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                     -1, &st, nullptr);
  std::vector<std::string> fields;
  std::size_t at = 0;
  while (fields.size() < 11) {
    const auto next = input.find('\x1f', at);
    fields.push_back(input.substr(at, next == std::string::npos ? std::string::npos : next - at));
    if (next == std::string::npos) break;
    at = next + 1;
  }
  static const char* const kDefaults[] = {"tid", "t2026-12-01", "t2026-12", "texp", "t", "t", "t", "d1", "tUSD", "d0", "d0"};
  for (std::size_t i = 0; i < 11; ++i) bind_field(st, static_cast<int>(i + 1), i < fields.size() ? fields[i] : kDefaults[i]);
  sqlite3_step(st);  // a row the schema's constraints refuse is simply not there
  sqlite3_finalize(st);
  sqlite3_close(db);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 100000) return 0;
  write_row(std::string(reinterpret_cast<const char*>(data), size));
  try {
    auto store = gpuplan::store::open_ledger(db_path(), false);
    store->scan("", [](gpuplan::LedgerRecord&& r) {
      // What a store hands back must export as JSON Lines and read back the same.
      const std::string line = gpuplan::io::ledger_line(r);
      const auto back = gpuplan::io::parse_ledger(line + "\n", "export.jsonl");
      if (back.records.size() != 1 || back.records[0].id != r.id || back.records[0].experiment != r.experiment ||
          back.records[0].cost != r.cost || back.records[0].date != r.date)
        std::abort();
    });
    (void)store->sum_spend({{"month", "", ""}, {"experiment", "", "2026-12-31"}});
  } catch (const gpuplan::InputError&) {
  } catch (const gpuplan::InputErrors&) {
  }
  return 0;
}
