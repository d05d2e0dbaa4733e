// gpuplan ledger add|report: the record of what runs actually cost, kept in the repository as
// JSON Lines so it diffs well; `check` counts it against the budget.
#include <ctime>
#include <memory>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/format_values.hpp"
#include "gpuplan/units.hpp"
#include "io/ledger.hpp"

namespace gpuplan::cli {
namespace {

struct AddFlags {
  std::string ledger, experiment, cost, gpu_hours, provider, date, team, user;
};

struct ReportFlags {
  std::string ledger, by = "experiment", currency = "USD", period;
};

void run_add(const AddFlags& f) {
  LedgerRecord r;
  r.experiment = f.experiment;
  if (r.experiment.empty()) bad_flag("--experiment", "required");
  auto m = parse_money(f.cost);
  if (!m) bad_flag("--cost", m.error);
  if (!(m.value->amount >= 0)) bad_flag("--cost", "must not be negative");
  r.cost = m.value->amount;
  r.currency = m.value->currency.empty() ? "USD" : m.value->currency;
  if (!f.gpu_hours.empty()) {
    auto h = parse_count(f.gpu_hours);
    if (!h || *h.value < 0) bad_flag("--gpu-hours", h ? "must not be negative" : h.error);
    r.gpu_hours = *h.value;
  }
  r.date = f.date.empty() ? today_utc() : f.date;
  if (!is_calendar_date(r.date)) bad_flag("--date", "expected a calendar date YYYY-MM-DD, got \"" + r.date + "\"");
  r.provider = f.provider;
  r.team = f.team;
  r.user = f.user;
  io::append_ledger(f.ledger, r);
  Report rep;
  rep.json["appended"] = nlohmann::json::parse(io::ledger_line(r));
  rep.notes.push_back("appended to " + f.ledger + ": " + r.experiment + " " + num(r.cost, 2) + " " + r.currency);
  print_report(rep);
}

void run_report(const ReportFlags& f) {
  static const char* const kBy[] = {"experiment", "team", "user", "period", "provider"};
  if (std::none_of(std::begin(kBy), std::end(kBy), [&](const char* b) { return f.by == b; }))
    bad_flag("--by", "expected experiment, team, user, period or provider");
  io::LedgerLoad load = io::read_ledger(f.ledger);
  for (const auto& w : load.warnings) warn(w);
  std::vector<LedgerRecord> records;
  for (auto& r : load.records) {
    if (!f.period.empty() && period_of(r.date) != f.period) continue;
    auto v = catalog().fx.convert(r.cost, r.currency, f.currency);
    if (!v) throw InputError(r.where, "currency", "no exchange rate from " + r.currency + " to " + f.currency);
    r.cost = *v;
    records.push_back(std::move(r));
  }
  const auto sums = sum_spend(records, f.by);
  Report rep;
  rep.json["by"] = f.by;
  rep.json["currency"] = f.currency;
  rep.json["spend"] = nlohmann::json::object();
  io::Table t;
  t.title = "Spend by " + f.by + " (" + f.currency + ")";
  t.columns = {f.by, "spend"};
  t.align = {io::Align::left, io::Align::right};
  double total = 0;
  for (const auto& [k, v] : sums) {
    rep.json["spend"][k] = v;
    t.rows.push_back({k, num(v, 2)});
    total += v;
  }
  rep.json["total"] = total;
  rep.json["records"] = records.size();
  t.rows.push_back({"total", num(total, 2)});
  rep.tables.push_back(t);
  print_report(rep);
}

}  // namespace

void setup_ledger(CLI::App& app) {
  auto* ledger = app.add_subcommand("ledger", "Record and report actual spend (JSON Lines)");
  ledger->require_subcommand(1);
  auto a = std::make_shared<AddFlags>();
  auto* add = ledger->add_subcommand("add", "Append one spend record (atomic, safe with concurrent writers)");
  add->footer(R"(Examples:
  gpuplan ledger add --ledger spend.jsonl --experiment llama8b-lora --cost 41.20 --gpu-hours 12 --provider nebius
  gpuplan ledger add --ledger spend.jsonl --experiment qwen-sft --cost "3400 INR" --team nlp --user asha)");
  add->add_option("--ledger", a->ledger, "Ledger file (created if missing)")->required();
  add->add_option("--experiment", a->experiment, "Experiment name")->required();
  add->add_option("--cost", a->cost, "What it cost, e.g. 41.20 or \"3400 INR\" (USD unless named)")->required();
  add->add_option("--gpu-hours", a->gpu_hours, "GPU-hours used");
  add->add_option("--provider", a->provider, "Provider billed");
  add->add_option("--date", a->date, "Date of the spend, YYYY-MM-DD (default: today, UTC)");
  add->add_option("--team", a->team, "Team");
  add->add_option("--user", a->user, "User");
  add_common_options(*add);
  add->callback([a] { run_add(*a); });

  auto r = std::make_shared<ReportFlags>();
  auto* report = ledger->add_subcommand("report", "Sum spend by experiment, team, user, period or provider");
  report->add_option("--ledger", r->ledger, "Ledger file")->required()->check(CLI::ExistingFile);
  report->add_option("--by", r->by, "experiment | team | user | period | provider")->capture_default_str();
  report->add_option("--currency", r->currency, "Currency of the sums")->capture_default_str();
  report->add_option("--period", r->period, "Only this month, YYYY-MM");
  add_common_options(*report);
  report->callback([r] { run_report(*r); });
}

}  // namespace gpuplan::cli
