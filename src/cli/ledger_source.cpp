#include "cli/ledger_source.hpp"

#include <filesystem>
#include <map>

#include "cli/common.hpp"
#include "gpuplan/units.hpp"
#include "io/budget_yaml.hpp"
#include "io/files.hpp"
#include "io/ledger.hpp"
#include "store/ledger_store.hpp"

namespace gpuplan::cli {

namespace {

double convert(double amount, const std::string& from, const std::string& to, const SourceLocation& where) {
  const auto v = catalog().fx.convert(amount, from, to);
  if (!v) throw InputError(where, "currency", "no exchange rate from " + from + " to " + to);
  return *v;
}

// `--ledger -`: JSON Lines on standard input, read once (as every `-` input is) and kept, so a
// command that asks twice (report: the period's records, then every month) gets the same records
// rather than opening a file named "-".
const std::vector<LedgerRecord>& stdin_ledger() {
  static const std::vector<LedgerRecord> records = [] {
    io::LedgerLoad load = io::parse_ledger(io::read_file("-"), "-");
    for (const auto& w : load.warnings) warn(w);
    return std::move(load.records);
  }();
  return records;
}

std::vector<LedgerRecord> stdin_records(const std::string& period, const std::string& currency) {
  std::vector<LedgerRecord> out;
  for (LedgerRecord r : stdin_ledger()) {
    if (!period.empty() && r.date.rfind(period, 0) != 0) continue;
    r.cost = convert(r.cost, r.currency, currency, r.where);
    r.currency = currency;
    out.push_back(std::move(r));
  }
  return out;
}

// A JSON Lines ledger that does not exist yet (the first CI run, before anything was recorded)
// is an empty ledger for reading; `ledger add` creates it. Other stores must exist.
bool missing_jsonl(const std::string& spec) {
  std::error_code ec;
  return spec != "-" && store::store_kind(spec) == store::StoreKind::jsonl && !std::filesystem::exists(spec, ec) && !ec;
}

}  // namespace

BudgetPolicy load_policy(const std::string& path, const std::string& currency) {
  BudgetPolicy policy;
  if (!path.empty()) policy = io::load_budget_policy(path);
  if (!currency.empty()) {
    if (!path.empty() && currency != policy.currency) bad_flag("--currency", "the budget policy is in " + policy.currency);
    policy.currency = currency;
  }
  return policy;
}

std::string date_or_today(const std::string& date) {
  const std::string d = date.empty() ? today_utc() : date;
  if (!is_calendar_date(d)) bad_flag("--date", "expected a calendar date YYYY-MM-DD, got \"" + d + "\"");
  return d;
}

void require_known_currency(const std::string& currency, const SourceLocation& where, const std::string& field) {
  const FxTable& fx = catalog().fx;
  if (fx.convert(1, currency, fx.base)) return;
  std::string known = fx.base;
  for (const auto& [c, _] : fx.per_base) known += ", " + c;
  throw InputError(where, field, "unknown currency \"" + currency + "\" (no exchange rate; known: " + known + ")");
}

// --period must name a month: "2026-1" would match nothing and report 0.00 as if it were an answer.
static void require_period(const std::string& period) {
  if (!period.empty() && !(period.size() == 7 && is_calendar_date(period + "-01")))
    bad_flag("--period", "expected a month YYYY-MM, e.g. 2026-01");
}

std::vector<LedgerRecord> ledger_totals(const std::string& spec, const std::string& period, const std::string& currency) {
  require_period(period);
  if (spec == "-") return stdin_records(period, currency);
  if (missing_jsonl(spec)) return {};
  auto store = store::open_ledger(spec, false);
  std::vector<LedgerRecord> out;
  for (const auto& t : store->totals(period)) {
    LedgerRecord r;
    r.date = t.month + "-01";
    r.team = t.team;
    r.user = t.user;
    r.currency = currency;
    r.cost = convert(t.cost, t.currency, currency, SourceLocation{store::redact_ledger_spec(spec), 0, 0});
    out.push_back(std::move(r));
  }
  for (const auto& w : store->warnings()) warn(w);
  return out;
}

void for_each_ledger_record(const std::string& spec, const std::string& period, const std::string& currency,
                            const std::function<void(LedgerRecord&&)>& visit) {
  require_period(period);
  if (spec == "-") {
    for (auto& r : stdin_records(period, currency)) visit(std::move(r));
    return;
  }
  if (missing_jsonl(spec)) return;  // a first CI run: the JSONL ledger is not written yet
  auto store = store::open_ledger(spec, false);
  store->scan(period, [&](LedgerRecord&& r) {
    r.cost = convert(r.cost, r.currency, currency, r.where);
    r.currency = currency;
    visit(std::move(r));
  });
  for (const auto& w : store->warnings()) warn(w);
}

std::vector<LedgerRecord> ledger_records(const std::string& spec, const std::string& period, const std::string& currency) {
  std::vector<LedgerRecord> out;
  for_each_ledger_record(spec, period, currency, [&](LedgerRecord&& r) { out.push_back(std::move(r)); });
  return out;
}

std::vector<std::pair<std::string, double>> ledger_months(const std::string& spec, const std::string& currency) {
  if (missing_jsonl(spec)) return {};
  std::map<std::string, double> months;
  if (spec == "-") {
    for (const auto& r : stdin_records("", currency)) months[period_of(r.date)] += r.cost;
    return {months.begin(), months.end()};
  }
  auto store = store::open_ledger(spec, false);
  for (const auto& t : store->totals("")) months[t.month] += convert(t.cost, t.currency, currency, SourceLocation{store::redact_ledger_spec(spec), 0, 0});
  return {months.begin(), months.end()};
}

}  // namespace gpuplan::cli
