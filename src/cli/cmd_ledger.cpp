// gpuplan ledger add|report|import|export: the record of what runs actually cost, in a JSON
// Lines file (diffs well in git), SQLite or PostgreSQL; `check` counts it against the budget.
#include <sys/stat.h>

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>
#include <memory>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "gpuplan/spend.hpp"
#include "gpuplan/units.hpp"
#include "cli/ledger_source.hpp"
#include "cli/outcome_flags.hpp"
#include "io/render/ledger_render.hpp"
#include "io/usage/ledger.hpp"
#include "io/usage/ledger_record_check.hpp"
#include "store/ledger_store.hpp"

namespace gpuplan::cli {
namespace {

struct AddFlags {
  std::string ledger, experiment, cost, gpu_hours, provider, date, team, user, id, tokens;
  OutcomeFlags outcomes;
};

struct CopyFlags {
  std::string from, to;
};

struct ReportFlags {
  std::string ledger, by = "experiment", currency = "USD", period;
};

double non_negative(const std::string& flag, const std::string& text) {
  if (text.empty()) return 0;
  auto v = parse_count(text);
  if (!v || !(*v.value >= 0)) bad_flag(flag, v ? "must not be negative" : v.error);
  return static_cast<double>(*v.value);
}

// The record check every store runs before a write, run first here so a bad value is named by
// its flag ("--team: not valid UTF-8") and no store is even opened.
void require_valid_flags(const LedgerRecord& r) {
  static const std::map<std::string, std::string> kFlag = {{"id", "--id"}, {"experiment", "--experiment"}, {"team", "--team"},
                                                           {"user", "--user"}, {"provider", "--provider"}, {"date", "--date"},
                                                           {"currency", "--cost"}, {"cost", "--cost"}, {"gpu_hours", "--gpu-hours"},
                                                           {"tokens", "--tokens"}, {"family", "--family"}, {"metrics", "--metric"},
                                                           {"utilization", "--utilization"}, {"samples", "--samples"},
                                                           {"requests", "--requests"}, {"restore_seconds", "--restore-time"}};
  std::vector<InputError> errors;
  try {
    io::check_ledger_record(r, {}, errors);
  } catch (const InputError&) {
    bad_flag("--experiment", "the record would be longer than the " + std::to_string(io::kMaxLedgerLineBytes / 1024) +
                                 " KiB ledger line limit (shorten the names)");
  }
  if (errors.empty()) return;
  const auto it = kFlag.find(errors.front().field());
  bad_flag(it == kFlag.end() ? "--" + errors.front().field() : it->second, errors.front().problem());
}

int run_add(const Context& ctx, const AddFlags& f) {
  LedgerRecord r;
  r.experiment = f.experiment;
  if (r.experiment.empty()) bad_flag("--experiment", "required");
  auto m = parse_money(f.cost);
  if (!m) bad_flag("--cost", m.error);
  if (!(m.value->amount >= 0)) bad_flag("--cost", "must not be negative");
  r.cost = m.value->amount;
  r.currency = m.value->currency.empty() ? "USD" : m.value->currency;
  try {
    require_known_currency(ctx.catalog().fx, r.currency, {}, "");
  } catch (const InputError& e) {
    bad_flag("--cost", e.problem());
  }
  r.gpu_hours = non_negative("--gpu-hours", f.gpu_hours);
  r.tokens = non_negative("--tokens", f.tokens);
  r.date = f.date.empty() ? today_utc() : f.date;
  if (!is_calendar_date(r.date)) bad_flag("--date", "expected a calendar date YYYY-MM-DD, got \"" + r.date + "\"");
  r.provider = f.provider;
  r.team = f.team;
  r.user = f.user;
  r.id = f.id.empty() ? store::new_record_id() : f.id;
  apply_outcome_flags(f.outcomes, r);
  require_valid_flags(r);
  auto ledger = store::open_ledger(f.ledger, true);
  const bool added = ledger->append({r}) == 1;
  for (const auto& w : ledger->warnings()) ctx.warn(w);
  const io::LedgerAddView view{ledger->describe(), r, added};
  Report rep;
  rep.json = io::ledger_add_json(view);
  rep.notes = io::ledger_add_notes(view);
  ctx.print_report(rep);
  return 0;
}

// Import or export onto the ledger being read: records written before ids existed get derived
// ids as they are copied, so the same file would come out holding them twice.
void require_distinct_ledgers(const std::string& from, const std::string& to) {
  struct stat a {}, b {};
  const bool same = from == to || (::stat(from.c_str(), &a) == 0 && ::stat(to.c_str(), &b) == 0 && a.st_dev == b.st_dev &&
                                   a.st_ino == b.st_ino);
  if (same) bad_flag("--ledger", "names the ledger being read; a ledger cannot be copied into itself");
}

// Copies every record from one store to another (into SQLite in one transaction, elsewhere in
// batches, each one transaction); ids already in the target are skipped, so running it twice
// adds nothing. Records written before ids existed get an id derived from their content.
int copy_ledger(const Context& ctx, const std::string& from, const std::string& to) {
  require_distinct_ledgers(from, to);
  auto src = store::open_ledger(from, false);
  // A source that fails to read (a bad record) must leave no new ledger behind: the target is
  // removed again when this copy created it and the copy throws.
  const bool target_existed = to.find("://") != std::string::npos || std::filesystem::exists(to);
  auto dst = store::open_ledger(to, true);
  std::map<std::string, std::size_t> identical;
  std::size_t read = 0, added = 0;
  try {
    added = dst->import([&](const std::function<void(LedgerRecord&&)>& sink) {
      src->scan("", [&](LedgerRecord&& r) {
        require_known_currency(ctx.catalog().fx, r.currency, r.where, "currency");
        if (r.id.empty()) r.id = store::derived_record_id(r, identical[store::derived_record_id(r, 0)]++);
        ++read;
        sink(std::move(r));
      });
    });
  } catch (...) {
    if (!target_existed) {
      dst.reset();
      std::error_code ec;
      std::filesystem::remove(to, ec);
    }
    throw;
  }
  for (const auto& w : src->warnings()) ctx.warn(w);
  for (const auto& w : dst->warnings()) ctx.warn(w);
  const io::LedgerCopyView view{src->describe(), dst->describe(), read, added};
  Report rep;
  rep.json = io::ledger_copy_json(view);
  rep.notes = io::ledger_copy_notes(view);
  ctx.print_report(rep);
  return 0;
}

// `export -`: JSON Lines on stdout.
int export_stdout(const Context& ctx, const std::string& from) {
  auto src = store::open_ledger(from, false);
  src->scan("", [&](LedgerRecord&& r) {
    const std::string line = io::ledger_line(r) + "\n";
    std::fwrite(line.data(), 1, line.size(), stdout);
  });
  for (const auto& w : src->warnings()) ctx.warn(w);
  if (std::fflush(stdout) != 0) throw InputError("cannot write to stdout");
  return 0;
}

int run_report(const Context& ctx, const ReportFlags& f) {
  static const char* const kBy[] = {"experiment", "team", "user", "period", "provider"};
  if (std::none_of(std::begin(kBy), std::end(kBy), [&](const char* b) { return f.by == b; }))
    bad_flag("--by", "expected experiment, team, user, period or provider");
  require_period(f.period);
  // Summed by the store (one pass, only the summed columns on SQLite; GROUP BY on PostgreSQL).
  // The month's real last day: PostgreSQL refuses a date such as 2026-11-31.
  const std::string last_day =
      f.period.empty() ? "" : f.period + "-" + std::to_string(days_in_month(std::stoi(f.period.substr(0, 4)), std::stoi(f.period.substr(5, 2))));
  const store::SpendQuery query{f.by == "period" ? "month" : f.by, f.period.empty() ? "" : f.period + "-01", last_day};
  const KeySpend spend = ledger_spend(ctx, f.ledger, {query}, f.currency).front();
  const io::LedgerSpendView view{f.by, f.currency, spend.by_key, spend.records};
  Report rep;
  rep.json = io::ledger_spend_json(view);
  rep.tables.push_back(io::ledger_spend_table(view));
  ctx.print_report(rep);
  return 0;
}

}  // namespace

void setup_ledger(CLI::App& app, Context& ctx) {
  auto* ledger = app.add_subcommand("ledger", "Record and report actual spend (JSON Lines, SQLite or PostgreSQL)");
  ledger->require_subcommand(1);
  auto a = std::make_shared<AddFlags>();
  auto* add = ledger->add_subcommand("add", "Append one spend record (atomic, safe with concurrent writers)");
  add->footer(R"(Examples:
  gpuplan ledger add --ledger spend.jsonl --experiment llama8b-lora --cost 41.20 --gpu-hours 12 --provider nebius
  gpuplan ledger add --ledger spend.jsonl --experiment qwen-sft --cost "3400 INR" --team nlp --user asha
  gpuplan ledger add --ledger spend.db --experiment sft --cost 12 --id "$GITHUB_RUN_ID-$GITHUB_JOB"   # retry-safe
  gpuplan ledger add --ledger postgresql://ci@db/spend --experiment sft --cost 12 --tokens 2.5B
  gpuplan ledger add --ledger spend.jsonl --experiment sft/lr-2e-4 --cost 38 --metric eval_loss=1.82:lower --utilization 63%)");
  add->add_option("--ledger", a->ledger, "Ledger: FILE.jsonl, FILE.db|.sqlite, or postgresql://URL (created if missing)")->required();
  add->add_option("--experiment", a->experiment, "Experiment name")->required();
  add->add_option("--cost", a->cost, "What it cost, e.g. 41.20 or \"3400 INR\" (USD unless named)")->required();
  add->add_option("--gpu-hours", a->gpu_hours, "GPU-hours used");
  add->add_option("--provider", a->provider, "Provider billed");
  add->add_option("--date", a->date, "Date of the spend, YYYY-MM-DD (default: today, UTC)");
  add->add_option("--team", a->team, "Team");
  add->add_option("--user", a->user, "User");
  add->add_option("--id", a->id, "Record id; a second append with the same id adds nothing (default: random)");
  add->add_option("--tokens", a->tokens, "Tokens the run processed, e.g. 2.5B (for cost per million tokens)");
  add_outcome_options(*add, a->outcomes);
  add_common_options(*add, ctx, kOutputOnly);
  on_parsed(*add, ctx, [&ctx, a] { return run_add(ctx, *a); });

  auto r = std::make_shared<ReportFlags>();
  auto* report = ledger->add_subcommand("report", "Sum spend by experiment, team, user, period or provider");
  report->add_option("--ledger", r->ledger, "Ledger: FILE.jsonl, FILE.db|.sqlite, or postgresql://URL")->required();
  report->add_option("--by", r->by, "experiment | team | user | period | provider")->capture_default_str();
  report->add_option("--currency", r->currency, "Currency of the sums")->capture_default_str();
  report->add_option("--period", r->period, "Only this month, YYYY-MM");
  add_common_options(*report, ctx, kCatalogs);
  on_parsed(*report, ctx, [&ctx, r] { return run_report(ctx, *r); });

  auto imp = std::make_shared<CopyFlags>();
  auto* import = ledger->add_subcommand("import", "Copy every record of another ledger into this one (ids already present are skipped)");
  import->footer(R"(Examples:
  gpuplan ledger import spend.jsonl --ledger spend.db
  gpuplan ledger import spend.db --ledger postgresql://ci@db.internal/spend)");
  import->add_option("source", imp->from, "Ledger to read: FILE.jsonl, FILE.db|.sqlite, or postgresql://URL")->required();
  import->add_option("--ledger", imp->to, "Ledger to add to (created if missing)")->required();
  add_common_options(*import, ctx, kOutputOnly);
  on_parsed(*import, ctx, [&ctx, imp] { return copy_ledger(ctx, imp->from, imp->to); });

  auto exp = std::make_shared<CopyFlags>();
  auto* export_cmd = ledger->add_subcommand("export", "Copy every record of this ledger into another (\"-\": JSON Lines on stdout)");
  export_cmd->footer(R"(Examples:
  gpuplan ledger export spend.jsonl --ledger postgresql://ci@db.internal/spend   # a git-friendly copy
  gpuplan ledger export - --ledger spend.db | head)");
  export_cmd->add_option("target", exp->to, "Ledger to write (created if missing), or - for stdout")->required();
  export_cmd->add_option("--ledger", exp->from, "Ledger to read")->required();
  add_common_options(*export_cmd, ctx, kOutputOnly);
  on_parsed(*export_cmd, ctx, [&ctx, exp] { return exp->to == "-" ? export_stdout(ctx, exp->from) : copy_ledger(ctx, exp->from, exp->to); });
}

}  // namespace gpuplan::cli
