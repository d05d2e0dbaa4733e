#include "cli/ledger_source.hpp"

#include <filesystem>
#include <map>

#include "cli/common.hpp"
#include "gpuplan/units.hpp"
#include "io/text/files.hpp"
#include "io/usage/budget_yaml.hpp"
#include "io/usage/ledger.hpp"
#include "store/ledger_store.hpp"

namespace gpuplan::cli {

namespace {

double convert(const Context& ctx, double amount, const std::string& from, const std::string& to, const SourceLocation& where) {
  const auto v = ctx.catalog().fx.convert(amount, from, to);
  if (!v) throw InputError(where, "currency", "no exchange rate from " + from + " to " + to);
  return *v;
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

void require_known_currency(const FxTable& fx, const std::string& currency, const SourceLocation& where, const std::string& field) {
  if (fx.convert(1, currency, fx.base)) return;
  std::string known = fx.base;
  for (const auto& [c, _] : fx.per_base) known += ", " + c;
  throw InputError(where, field, "unknown currency \"" + currency + "\" (no exchange rate; known: " + known + ")");
}

// --period must name a month: "2026-1" would match nothing and report 0.00 as if it were an answer.
void require_period(const std::string& period) {
  if (!period.empty() && !(period.size() == 7 && is_calendar_date(period + "-01")))
    bad_flag("--period", "expected a month YYYY-MM, e.g. 2026-01");
}

namespace {

// Each key's spend in `currency`: the store's sums per key and currency, each converted once.
std::vector<KeySpend> converted(const Context& ctx, const std::vector<store::SpendSums>& sums, const std::string& currency,
                                const std::string& spec) {
  const SourceLocation where{store::redact_ledger_spec(spec), 0, 0};
  std::vector<KeySpend> out;
  for (const auto& query : sums) {
    KeySpend k;
    for (const auto& s : query) {  // sorted by key, then currency: each key's currencies in one order
      k.by_key[s.key] += convert(ctx, s.cost, s.currency, currency, where);
      k.records += s.records;
    }
    out.push_back(std::move(k));
  }
  return out;
}

}  // namespace

std::vector<KeySpend> ledger_spend(const Context& ctx, const std::string& spec, const std::vector<store::SpendQuery>& queries,
                                   const std::string& currency) {
  return read_ledger(ctx, spec, queries, "", "", currency).sums;
}

LedgerRead read_ledger(const Context& ctx, const std::string& spec, const std::vector<store::SpendQuery>& queries, const std::string& first,
                       const std::string& last, const std::string& currency, bool families) {
  LedgerRead out;
  std::vector<store::SpendSums> sums(queries.size());
  const bool records = !last.empty();
  auto keep = [&](LedgerRecord&& r) {
    r.cost = convert(ctx, r.cost, r.currency, currency, r.where);
    r.currency = currency;
    out.records.push_back(std::move(r));
  };
  if (spec == "-") {
    store::SpendAccumulator acc(queries);
    for (const auto& r : ctx.stdin_ledger()) {
      acc.add(r);
      // families: every record to `last` (a few in memory already; report filters nothing it needs)
      if (records && (families || r.date.compare(first) >= 0) && r.date.compare(last) <= 0) keep(LedgerRecord(r));
    }
    sums = acc.sums();
  } else if (!missing_jsonl(spec)) {  // a first CI run: the JSONL ledger is not written yet
    auto store = store::open_ledger(spec, false);
    sums = !records   ? store->sum_spend(queries)
           : families ? store->sum_spend_and_scan_families(queries, first, last, keep)
                      : store->sum_spend_and_scan(queries, first, last, keep);
    for (const auto& w : store->warnings()) ctx.warn(w);
  }
  out.sums = converted(ctx, sums, currency, spec);
  return out;
}

}  // namespace gpuplan::cli
