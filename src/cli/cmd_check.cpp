// gpuplan check: the CI budget gate. Prices every experiment spec as `estimate` does, adds the
// ledger's spend in the period, and applies the budget policy's rules. Exit 0 all pass, 1 any
// fails, 2 bad input. Also `gpuplan diff OLD NEW` and `gpuplan schema experiment`.
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>
#include <memory>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/experiment.hpp"
#include "cli/format_values.hpp"
#include "gpuplan/units.hpp"
#include "io/budget_yaml.hpp"
#include "io/check_report.hpp"
#include "cli/ledger_source.hpp"

namespace gpuplan::cli {
namespace {

struct CheckFlags {
  std::vector<std::string> specs;
  std::string budget, ledger, date, currency;
};

std::vector<PricedExperiment> price_all(const std::vector<std::string>& specs, const std::string& currency) {
  std::vector<PricedExperiment> out;
  std::vector<InputError> errors;
  const std::vector<std::string> files = expand_spec_paths(specs);
  for (const auto& path : files) {
    try {
      out.push_back(price_experiment(load_experiment(path), currency));
    } catch (const InputErrors& e) {
      errors.insert(errors.end(), e.errors().begin(), e.errors().end());
    } catch (const InputError& e) {
      errors.push_back(e);
    }
  }
  if (!errors.empty()) throw InputErrors(std::move(errors));
  return out;
}

// The stale-price and mixed-tax warnings of every pricing command, once each, naming the spec.
std::vector<std::string> spec_price_warnings(const std::vector<PricedExperiment>& priced) {
  std::vector<std::string> out;
  for (const auto& p : priced)
    for (const auto& w : p.price_warnings)
      if (std::find(out.begin(), out.end(), w) == out.end()) out.push_back(w);
  for (const auto& w : out) warn(w);
  return out;
}

io::CheckedSpec checked(PricedExperiment p) {
  std::optional<PipelineFigures> pipeline = p.best ? p.best->eval.pipeline : std::nullopt;
  return {std::move(p.check), p.per_gpu_bytes, std::move(p.model), pipeline};
}

void run_check(const CheckFlags& f) {
  const BudgetPolicy policy = load_policy(f.budget, f.currency);
  io::CheckReport cr;
  cr.period = period_of(date_or_today(f.date));
  cr.currency = policy.currency;
  cr.policy_given = !f.budget.empty();
  std::vector<PricedExperiment> priced = price_all(f.specs, policy.currency);
  const std::vector<std::string> warnings = spec_price_warnings(priced);
  for (auto& p : priced) cr.specs.push_back(checked(std::move(p)));
  if (cr.specs.empty()) bad_flag("specs", "no experiment spec files found");
  // The store sums the period's spend by team and user (an indexed query on SQLite/PostgreSQL).
  std::vector<LedgerRecord> ledger;
  if (!f.ledger.empty()) ledger = ledger_totals(f.ledger, cr.period, policy.currency);
  std::vector<ExperimentCheck> checks;
  for (const auto& s : cr.specs) checks.push_back(s.check);
  cr.rules = check_budget(policy, checks, ledger, cr.period);
  if (output_format() == Format::github) {
    const std::string annotations = io::github_annotations(cr);
    std::fwrite(annotations.data(), 1, annotations.size(), stdout);
  }
  Report rep{io::check_json(cr), {io::check_table(cr)}, io::check_notes(cr), {}};
  rep.json["warnings"] = warnings;
  print_report(rep);
  if (!cr.pass()) exit_code() = 1;
}

// --- diff ------------------------------------------------------------------------------------

struct DiffFlags {
  std::string old_path, new_path, currency = "USD";
};

std::map<std::string, io::CheckedSpec> by_name(const std::string& path, const std::string& currency) {
  std::map<std::string, io::CheckedSpec> out;
  for (auto& p : price_all({path}, currency)) {
    const std::string name = p.check.name;
    out[name] = checked(std::move(p));
  }
  return out;
}

void run_diff(const DiffFlags& f) {
  const auto before = by_name(f.old_path, f.currency);
  const auto after = by_name(f.new_path, f.currency);
  io::DiffReport d{f.currency, {}};
  for (const auto& [n, spec] : before) {
    const auto a = after.find(n);
    d.rows.push_back({n, &spec, a == after.end() ? nullptr : &a->second});
  }
  for (const auto& [n, spec] : after)
    if (!before.count(n)) d.rows.push_back({n, nullptr, &spec});
  print_report({io::diff_json(d), {io::diff_table(d)}, {}, {}});
}

// --- schema ----------------------------------------------------------------------------------

void run_schema() {
  const std::string out = experiment_schema().dump(2) + "\n";
  std::fwrite(out.data(), 1, out.size(), stdout);
}

}  // namespace

void setup_check(CLI::App& app) {
  auto f = std::make_shared<CheckFlags>();
  auto* cmd = app.add_subcommand("check", "Gate experiment specs against a budget policy (exit 1 when a rule fails)");
  cmd->footer(R"(Examples:
  gpuplan check experiments/ --policy budget.yaml --ledger spend.jsonl
  gpuplan check experiments/*.yaml --policy budget.yaml --format markdown   # for a PR comment
  gpuplan check experiments/ --policy budget.yaml --format github           # workflow annotations)");
  cmd->add_option("specs", f->specs, "Experiment spec files or folders (*.yaml, *.yml in any case, subfolders included)")->required();
  // --policy: elsewhere --budget is an amount; --budget stays here, hidden, for old scripts.
  cmd->add_option("--policy", f->budget, "Budget policy file (budget.yaml; - for stdin)")->check(existing_file_or_stdin());
  cmd->add_option("--budget", f->budget, "Old spelling of --policy")->check(existing_file_or_stdin())->group("");
  cmd->add_option("--ledger", f->ledger, "Spend ledger to count spend so far: FILE.jsonl, FILE.db|.sqlite, or postgresql://URL");
  cmd->add_option("--date", f->date, "Date whose calendar month is the budget period (default: today, UTC)");
  cmd->add_option("--currency", f->currency, "Currency without a policy (default USD)");
  add_common_options(*cmd, kCatalogs | kProfile | kGithub);
  cmd->callback([f] { run_check(*f); });

  auto d = std::make_shared<DiffFlags>();
  auto* diff = app.add_subcommand("diff", "Cost, time and memory change between two sets of experiment specs");
  diff->footer(R"(Examples:
  gpuplan diff base/experiments experiments --format markdown)");
  diff->add_option("old", d->old_path, "Old spec file or folder")->required();
  diff->add_option("new", d->new_path, "New spec file or folder")->required();
  diff->add_option("--currency", d->currency, "Currency of the costs")->capture_default_str();
  add_common_options(*diff, kCatalogs | kProfile);
  diff->callback([d] { run_diff(*d); });

  auto* schema = app.add_subcommand("schema", "Print a JSON Schema for gpuplan's input files");
  auto which = std::make_shared<std::string>();
  schema->add_option("kind", *which, "experiment")->required()->check(CLI::IsMember({"experiment"}));
  schema->callback([which] { run_schema(); });  // keeps the bound string alive
}

}  // namespace gpuplan::cli
