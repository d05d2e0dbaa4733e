// gpuplan report: the cost dashboard. Reads the ledger (any store) and the budget policy, and
// optionally the experiment specs for planned-against-actual; prints a terminal summary, JSON or
// CSV, and with --html writes one self-contained HTML page.
#include <algorithm>
#include <cstdio>
#include <memory>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/experiment.hpp"
#include "cli/format_values.hpp"
#include "cli/ledger_source.hpp"
#include "cli/project_config.hpp"
#include "gpuplan/spend.hpp"
#include "gpuplan/units.hpp"
#include "io/render/spend_render.hpp"
#include "io/render/spend_tables.hpp"
#include "io/text/files.hpp"
#include "io/usage/budget_yaml.hpp"

namespace gpuplan::cli {
namespace {

struct ReportFlags {
  std::string ledger, budget, date, currency, html, config;
  std::vector<std::string> specs;
  DecisionRule rule;
  std::string min_utilization;
};

std::vector<ExperimentCheck> planned(const Context& ctx, const std::vector<std::string>& specs, const std::string& currency) {
  std::vector<ExperimentCheck> out;
  std::vector<InputError> errors;
  for (const auto& path : expand_spec_paths(specs)) {
    try {
      out.push_back(price_experiment(ctx, load_experiment(path), currency).check);
    } catch (const InputErrors& e) {
      errors.insert(errors.end(), e.errors().begin(), e.errors().end());
    } catch (const InputError& e) {
      errors.push_back(e);
    }
  }
  if (!errors.empty()) throw InputErrors(std::move(errors));
  return out;
}

int run_report(const Context& ctx, const ReportFlags& f) {
  if (f.ledger.empty()) bad_flag("--ledger", "a ledger is required (the flag, or ledger: in .gpuplan.yaml)");
  const BudgetPolicy policy = load_policy(f.budget, f.currency);
  const std::string as_of = date_or_today(f.date);
  const auto specs = f.specs.empty() ? std::vector<ExperimentCheck>{} : planned(ctx, f.specs, policy.currency);
  // The store sums every month and each experiment's life to as_of (the per-experiment cap counts
  // an experiment's life, as check's does); whole records only for the period and for the
  // experiment families with measured outcomes (a family decides from its whole history to as_of).
  const LedgerRead read = read_ledger(ctx, f.ledger, {{"month", "", ""}, {"experiment", "", as_of}},
                                      period_containing(as_of, policy.period).first, as_of, policy.currency, true);
  const std::vector<LedgerRecord>& records = read.records;
  const std::vector<std::pair<std::string, double>> months(read.sums[0].by_key.begin(), read.sums[0].by_key.end());
  const std::map<std::string, double>& experiment_spent = read.sums[1].by_key;
  DecisionRule rule = f.rule;
  if (!f.min_utilization.empty()) {
    const auto u = parse_fraction(f.min_utilization);
    if (!u || !(*u.value > 0 && *u.value <= 1)) bad_flag("--min-utilization", u ? "expected more than 0% and at most 100%" : u.error);
    rule.min_utilization = *u.value;
  }
  const SpendReport s = build_spend_report(policy, records, experiment_spent, months, specs, as_of, rule);
  if (!f.html.empty()) io::write_file_atomic(f.html, io::spend_report_html(s));
  Report r;
  if (ctx.json_output()) r.json = io::spend_report_json(s);
  else r = Report{{}, io::spend_report_tables(s), io::spend_report_notes(s), io::spend_csv_table(s)};
  if (!f.html.empty()) r.notes.push_back("wrote " + f.html);
  ctx.print_report(std::move(r));
  return 0;
}

}  // namespace

void setup_report(CLI::App& app, Context& ctx) {
  auto f = std::make_shared<ReportFlags>();
  auto* cmd = app.add_subcommand("report", "Cost dashboard: spend against caps, burn rate, forecast, alerts (--html for a page)");
  cmd->footer(R"(Examples:
  gpuplan report --ledger spend.db --policy budget.yaml
  gpuplan report --ledger spend.jsonl --policy budget.yaml --specs experiments/ --html spend.html
  gpuplan report --ledger postgresql://ci@db/spend --policy budget.yaml --format json)");
  cmd->add_option("--ledger", f->ledger, "Ledger: FILE.jsonl, FILE.db|.sqlite, or postgresql://URL (required, here or in .gpuplan.yaml)");
  cmd->add_option("--policy", f->budget, "Budget policy file (budget.yaml): the caps, as check --policy")->check(CLI::ExistingFile);
  cmd->add_option("--budget", f->budget, "Old spelling of --policy")->check(CLI::ExistingFile)->group("");
  cmd->add_option("--specs", f->specs, "Experiment spec files or folders, for planned against actual");
  cmd->add_option("--date", f->date, "As-of date: its week, month or quarter (the policy's period) is reported and later records are not counted (default: today, UTC)");
  cmd->add_option("--currency", f->currency, "Currency without a policy (default USD)");
  cmd->add_option("--html", f->html, "Also write a self-contained HTML dashboard to this file");
  cmd->add_option("--stop-after-runs", f->rule.stop_after_runs,
                  "Experiments: stop a family when none of its last N measured runs is on its cost/quality frontier (default 3)")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--change-ratio", f->rule.change_ratio,
                  "Experiments: change method when the last improvement cost more than this many times per unit gained the one before (default 2)")
      ->check(CLI::Range(1.0, 1e6));
  cmd->add_option("--min-utilization", f->min_utilization, "Experiments: flag a family whose median measured GPU utilization is below this (default 70%)");
  cmd->add_option("--min-utilisation", f->min_utilization, "Other spelling of --min-utilization")->group("");  // hidden alias
  cmd->add_option("--config", f->config, "Project config (default: .gpuplan.yaml in this folder or above): policy, ledger, currency, catalogs, profile")
      ->check(CLI::ExistingFile);
  add_common_options(*cmd, ctx, kCatalogs | kProfile);
  on_parsed(*cmd, ctx, [&ctx, f] {
    apply_project_config(ctx, f->config, {&f->budget, &f->ledger, &f->currency});
    return run_report(ctx, *f);
  });
}

}  // namespace gpuplan::cli
