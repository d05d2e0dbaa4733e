#include "store/ledger_store.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <set>
#include <unordered_set>

#include "gpuplan/experiments.hpp"
#include "gpuplan/units.hpp"
#include "io/usage/ledger.hpp"

namespace gpuplan::store {

namespace {

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

class JsonlLedger : public LedgerStore {
 public:
  JsonlLedger(std::string path, bool create) : path_(std::move(path)), create_(create) {}

  std::size_t append(const std::vector<LedgerRecord>& records) override {
    const io::AppendResult r = io::append_ledger(path_, records, lock_timeout_seconds());
    if (!r.warning.empty()) warnings_.push_back(r.warning);
    return r.added;
  }

  void scan(const std::string& period, const std::function<void(LedgerRecord&&)>& visit) override {
    if (create_) {
      // A writer's read (export after import, say) of a ledger that does not exist yet is empty.
      if (std::FILE* f = std::fopen(path_.c_str(), "r")) std::fclose(f);
      else return;
    }
    io::scan_ledger_file(
        path_,
        [&](LedgerRecord&& r) {
          if (period.empty() || period_of(r.date) == period) visit(std::move(r));
        },
        warnings_);
  }

  // One read of the file serves both: the sums and the records dated first..last.
  std::vector<SpendSums> sum_spend_and_scan(const std::vector<SpendQuery>& queries, const std::string& first, const std::string& last,
                                            const std::function<void(LedgerRecord&&)>& visit) override {
    SpendAccumulator acc(queries);
    scan("", [&](LedgerRecord&& r) {
      acc.add(r);
      if (r.date.compare(first) >= 0 && r.date.compare(last) <= 0) visit(std::move(r));
    });
    return acc.sums();
  }

  // One read serves the sums and report's records without holding every record to `last`
  // (1M records took 326 MiB): it keeps the period's records, those with outcomes and those of
  // families already seen measured. Only when a record it left out belongs to a family found
  // measured later in the file does it read again, selecting as the default does.
  std::vector<SpendSums> sum_spend_and_scan_families(const std::vector<SpendQuery>& queries, const std::string& first,
                                                     const std::string& last,
                                                     const std::function<void(LedgerRecord&&)>& visit) override {
    SpendAccumulator acc(queries);
    std::set<std::string> measured;
    std::unordered_set<std::string> left_out;  // experiments of records left out: none has outcomes
    std::vector<LedgerRecord> kept;
    scan("", [&](LedgerRecord&& r) {
      acc.add(r);
      if (r.date.compare(last) > 0) return;
      if (r.has_outcomes()) measured.insert(family_of(r));
      if (r.date.compare(first) >= 0 || r.has_outcomes() || (!measured.empty() && measured.count(family_of(r))))
        kept.push_back(std::move(r));
      else
        left_out.insert(r.experiment);
    });
    LedgerRecord plain;  // a record without outcomes: its family follows from its experiment alone
    const bool again = !measured.empty() && std::any_of(left_out.begin(), left_out.end(), [&](const std::string& e) {
      plain.experiment = e;
      return measured.count(family_of(plain)) > 0;
    });
    if (!again) {
      for (LedgerRecord& r : kept) visit(std::move(r));
      return acc.sums();
    }
    kept = {};
    const std::size_t warned = warnings_.size();  // the second read warns of the same torn line
    scan("", [&](LedgerRecord&& r) {
      if (r.date.compare(last) <= 0 && (r.date.compare(first) >= 0 || measured.count(family_of(r)))) visit(std::move(r));
    });
    warnings_.resize(warned);
    return acc.sums();
  }

  std::vector<std::string> warnings() const override { return warnings_; }
  std::string describe() const override { return "JSON Lines file " + path_; }

 private:
  std::string path_;
  bool create_;
  std::vector<std::string> warnings_;
};

}  // namespace

std::size_t LedgerStore::import(const std::function<void(const std::function<void(LedgerRecord&&)>&)>& produce) {
  std::vector<LedgerRecord> batch;
  std::size_t added = 0;
  produce([&](LedgerRecord&& r) {
    batch.push_back(std::move(r));
    if (batch.size() == 50000) added += append(batch), batch.clear();
  });
  return added + append(batch);
}

void LedgerStore::scan_dates(const std::string& first, const std::string& last, const std::function<void(LedgerRecord&&)>& visit) {
  scan("", [&](LedgerRecord&& r) {
    if (r.date.compare(first) >= 0 && r.date.compare(last) <= 0) visit(std::move(r));
  });
}

std::vector<SpendSums> LedgerStore::sum_spend(const std::vector<SpendQuery>& queries) {
  SpendAccumulator acc(queries);
  scan("", [&](LedgerRecord&& r) { acc.add(r); });
  return acc.sums();
}

std::vector<SpendSums> LedgerStore::sum_spend_and_scan(const std::vector<SpendQuery>& queries, const std::string& first,
                                                       const std::string& last, const std::function<void(LedgerRecord&&)>& visit) {
  std::vector<SpendSums> sums = sum_spend(queries);
  scan_dates(first, last, visit);
  return sums;
}

std::vector<SpendSums> LedgerStore::sum_spend_and_scan_families(const std::vector<SpendQuery>& queries, const std::string& first,
                                                                const std::string& last,
                                                                const std::function<void(LedgerRecord&&)>& visit) {
  std::vector<LedgerRecord> to_last;
  std::vector<SpendSums> sums = sum_spend_and_scan(queries, "", last, [&](LedgerRecord&& r) { to_last.push_back(std::move(r)); });
  std::set<std::string> measured;
  for (const LedgerRecord& r : to_last)
    if (r.has_outcomes()) measured.insert(family_of(r));
  for (LedgerRecord& r : to_last)
    if (r.date.compare(first) >= 0 || (!measured.empty() && measured.count(family_of(r)))) visit(std::move(r));
  return sums;
}

SpendAccumulator::SpendAccumulator(std::vector<SpendQuery> queries) : queries_(std::move(queries)), groups_(queries_.size()) {}

void SpendAccumulator::add(const SpendRow& row) {
  for (std::size_t q = 0; q < queries_.size(); ++q) {
    const SpendQuery& query = queries_[q];
    if ((!query.first.empty() && row.date < query.first) || (!query.last.empty() && row.date > query.last)) continue;
    const std::string_view key = query.by == "team"       ? row.team
                                 : query.by == "user"     ? row.user
                                 : query.by == "provider" ? row.provider
                                 : query.by == "month"    ? row.date.substr(0, 7)
                                                          : row.experiment;
    scratch_.assign(key);
    scratch_ += '\0';
    scratch_.append(row.currency);
    Group& g = groups_[q];
    auto [it, fresh] = g.index.try_emplace(scratch_, g.sums.size());
    if (fresh) g.sums.push_back({std::string(key), std::string(row.currency), 0, 0});
    SpendSum& s = g.sums[it->second];
    s.cost += row.cost;  // in record order: the figure a reader of every record gets
    ++s.records;
  }
}

void SpendAccumulator::add(const LedgerRecord& r) {
  add(SpendRow{r.date, r.experiment, r.team, r.user, r.provider, r.currency, r.cost});
}

std::vector<SpendSums> SpendAccumulator::sums() const {
  std::vector<SpendSums> out;
  for (const Group& g : groups_) {
    SpendSums s = g.sums;
    std::sort(s.begin(), s.end(), [](const SpendSum& a, const SpendSum& b) {
      return a.key != b.key ? a.key < b.key : a.currency < b.currency;
    });
    out.push_back(std::move(s));
  }
  return out;
}

StoreKind store_kind(const std::string& spec) {
  if (spec.rfind("postgresql://", 0) == 0 || spec.rfind("postgres://", 0) == 0) return StoreKind::postgres;
  if (ends_with(spec, ".db") || ends_with(spec, ".sqlite") || ends_with(spec, ".sqlite3")) return StoreKind::sqlite;
  return StoreKind::jsonl;
}

std::unique_ptr<LedgerStore> open_ledger(const std::string& spec, bool create) {
  switch (store_kind(spec)) {
    case StoreKind::postgres: return open_postgres_ledger(spec);
    case StoreKind::sqlite: return open_sqlite_ledger(spec, create);
    case StoreKind::jsonl: break;
  }
  return std::make_unique<JsonlLedger>(spec, create);
}

std::string new_record_id() {
  std::random_device rd;
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08x%08x%08x%08x", rd(), rd(), rd(), rd());
  return buf;
}

std::string derived_record_id(const LedgerRecord& r, std::size_t nth_identical) {
  // FNV-1a over the record's fields: stable across runs and machines.
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&](const std::string& s) {
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    h = (h ^ 0x1f) * 1099511628211ull;
  };
  char num[128];
  std::snprintf(num, sizeof num, "%.17g|%.17g|%.17g|%zu", r.cost, r.gpu_hours, r.tokens, nth_identical);
  for (const std::string* s : {&r.date, &r.experiment, &r.team, &r.user, &r.provider, &r.currency}) mix(*s);
  mix(num);
  // Outcomes only when present: a record written before they existed keeps the id it had.
  if (r.has_outcomes()) mix(outcomes_text(r));
  char buf[32];
  std::snprintf(buf, sizeof buf, "legacy-%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string outcomes_text(const LedgerRecord& r) {
  if (!r.has_outcomes()) return "";
  nlohmann::json j = nlohmann::json::object();
  io::add_outcomes(j, r);
  return j.dump();
}

void read_outcomes_text(const std::string& text, LedgerRecord& r) {
  if (text.empty()) return;
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  std::vector<InputError> errors;
  if (!j.is_object()) errors.emplace_back(r.where, "outcomes", "expected a JSON object");
  else io::read_outcomes(j, r, r.where, errors);
  if (!errors.empty()) throw InputErrors(std::move(errors));
}

void check_sums(const std::vector<SpendSums>& sums, const std::string& where) {
  for (const auto& query : sums)
    for (const auto& s : query)
      if (!std::isfinite(s.cost) || s.cost < 0)
        throw InputError(SourceLocation{where, 0, 0}, "cost",
                         "rows not written by gpuplan: " + (s.key.empty() ? std::string("(none)") : s.key) +
                             " sums to an impossible cost; run `gpuplan ledger export - --ledger ...` to find them");
}

std::string redact_ledger_spec(const std::string& spec) {
  if (store_kind(spec) != StoreKind::postgres) return spec;
  std::string out = spec;
  const auto scheme = out.find("://");
  const auto at = out.find('@', scheme);
  const auto slash = out.find('/', scheme + 3);
  const auto colon = out.find(':', scheme + 3);
  if (at != std::string::npos && (slash == std::string::npos || at < slash) && colon < at)
    out = out.substr(0, colon) + ":***" + out.substr(at);
  for (std::size_t p = 0; (p = out.find("password=", p)) != std::string::npos;) {
    p += 9;
    const auto end = out.find_first_of("& ", p);
    out.replace(p, end == std::string::npos ? std::string::npos : end - p, "***");
  }
  return out;
}

double lock_timeout_seconds() {
  if (const char* v = std::getenv("GPUPLAN_LEDGER_LOCK_TIMEOUT")) {
    char* end = nullptr;
    const double s = std::strtod(v, &end);
    if (end != v && *end == '\0' && s >= 0 && s <= 86400) return s;
  }
  return 30;
}

}  // namespace gpuplan::store
