// gpuplan check: the CI budget gate. Prices every experiment spec as `estimate` does, adds the
// ledger's spend in the period, and applies the budget policy's rules. Exit 0 all pass, 1 any
// fails, 2 bad input. Also `gpuplan diff OLD NEW` and `gpuplan schema experiment`.
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>
#include <memory>
#include <set>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/experiment.hpp"
#include "cli/format_values.hpp"
#include "cli/git_changed.hpp"
#include "cli/project_config.hpp"
#include "gpuplan/budget_lines.hpp"
#include "gpuplan/plural.hpp"
#include "gpuplan/units.hpp"
#include "io/render/check_report.hpp"
#include "io/usage/budget_yaml.hpp"
#include "cli/ledger_source.hpp"

namespace gpuplan::cli {
namespace {

struct CheckFlags {
  std::vector<std::string> specs;
  std::string budget, ledger, date, currency, changed, config;
};

// Where a spec sets its name (its first line when the name is the file's).
SourceLocation name_line(const Experiment& x) {
  for (const auto& e : x.doc.entries)
    if (e.key == "name") return e.value_where;
  return SourceLocation{x.doc.path, 1, 1};
}

io::CheckedSpec checked(PricedExperiment p) {
  std::optional<PipelineFigures> pipeline = p.best ? p.best->eval.pipeline : std::nullopt;
  return {std::move(p.check), p.per_gpu_bytes, std::move(p.model), pipeline};
}

// Every spec of `files`, priced (done and cancelled specs only when `price_inactive`: the gate
// does not estimate them again), each kept as the numbers its rules and rows need (the offer's
// whole evaluation is dropped as soon as the spec is priced: 80,000 specs). Two specs with one
// name are an error naming both files, since the rules, the caps and diff's rows all go by name.
// The stale-price and mixed-tax warnings of the offers they are priced on go to `warnings`,
// once each.
std::vector<io::CheckedSpec> price_all(const Context& ctx, const std::vector<std::string>& files, const std::string& currency, bool price_inactive,
                                       std::vector<std::string>& warnings) {
  std::vector<io::CheckedSpec> out;
  std::vector<InputError> errors;
  std::map<std::string, std::string> file_of_name;
  std::set<std::string> warned;
  for (const auto& path : files) {
    try {
      const Experiment x = load_experiment(path);
      const auto [it, fresh] = file_of_name.emplace(x.name, path);
      if (!fresh) {
        errors.emplace_back(name_line(x), "name", "experiment name \"" + x.name + "\" is also used by " + it->second);
        continue;
      }
      const bool active = x.status == SpecStatus::planned || x.status == SpecStatus::running;
      if (active || price_inactive) {
        PricedExperiment p = price_experiment(ctx, x, currency);
        for (auto& w : p.price_warnings)
          if (warned.insert(w).second) warnings.push_back(std::move(w));
        out.push_back(checked(std::move(p)));
        continue;
      }
      io::CheckedSpec p;  // recorded, not priced: its spend is the ledger's
      p.check.name = x.name;
      p.check.owner = x.owner;
      p.check.team = x.team;
      p.check.status = x.status;
      p.check.where = SourceLocation{path, 1, 1};
      for (const auto& e : x.doc.entries)
        if (rules_cite_key(e.key)) p.check.lines[e.key] = e.where;
      out.push_back(std::move(p));
    } catch (const InputErrors& e) {
      errors.insert(errors.end(), e.errors().begin(), e.errors().end());
    } catch (const InputError& e) {
      errors.push_back(e);
    }
  }
  if (!errors.empty()) throw InputErrors(std::move(errors));
  return out;
}

// Returns the exit code: 1 when a rule fails.
int gate(const Context& ctx, const CheckFlags& f) {
  const BudgetPolicy policy = load_policy(f.budget, f.currency);
  const std::string as_of = date_or_today(f.date);
  io::CheckReport cr;
  cr.period = period_containing(as_of, policy.period).name;
  cr.currency = policy.currency;
  cr.policy_given = !f.budget.empty();
  std::vector<std::string> files = expand_spec_paths(f.specs);
  const std::size_t found = files.size();
  cr.specs_found = found;
  cr.changed_against = f.changed;
  if (!f.changed.empty()) files = only_changed(files, f.changed);
  std::vector<std::string> warnings;
  cr.specs = price_all(ctx, files, policy.currency, false, warnings);
  for (const auto& w : warnings) ctx.warn(w);
  if (found == 0) bad_flag("specs", "no experiment spec files found");
  // The period's records to as_of, and each experiment's spend over its life summed by the store.
  std::vector<LedgerRecord> ledger;
  std::map<std::string, double> spent_by_experiment;
  if (!f.ledger.empty()) {
    LedgerRead read = read_ledger(ctx, f.ledger, {{"experiment", "", as_of}}, period_containing(as_of, policy.period).first, as_of, policy.currency);
    spent_by_experiment = std::move(read.sums.front().by_key);
    ledger = std::move(read.records);
  }
  std::vector<ExperimentCheck> checks;  // moved out for the rules and back: never two copies
  checks.reserve(cr.specs.size());
  for (auto& s : cr.specs) checks.push_back(std::move(s.check));
  cr.rules = check_budget(policy, checks, ledger, spent_by_experiment, as_of);
  for (std::size_t i = 0; i < checks.size(); ++i) cr.specs[i].check = std::move(checks[i]);
  Report r;
  if (ctx.json_output()) r.json = io::check_json(cr);
  else r = Report{{}, {io::check_table(cr)}, io::check_notes(cr), {}};
  r.github_annotations = io::github_annotations(cr);
  r.markdown_verdict = io::markdown_verdict(cr);
  if (ctx.json_output()) r.json["warnings"] = warnings;
  ctx.print_report(std::move(r));
  return cr.pass() ? 0 : 1;
}

int run_check(const Context& ctx, const CheckFlags& f) {
  try {
    return gate(ctx, f);
  } catch (const InputErrors& e) {
    if (ctx.format() == Format::github) {
      const std::string a = io::github_error_annotations(e.errors());
      std::fwrite(a.data(), 1, a.size(), stdout);
    }
    throw;
  } catch (const InputError& e) {
    if (ctx.format() == Format::github) {
      const std::string a = io::github_error_annotations({e});
      std::fwrite(a.data(), 1, a.size(), stdout);
    }
    throw;
  }
}

// --- diff ------------------------------------------------------------------------------------

struct DiffFlags {
  std::string old_path, new_path, currency = "USD";
};

std::map<std::string, io::CheckedSpec> by_name(const Context& ctx, const std::string& path, const std::string& currency) {
  std::map<std::string, io::CheckedSpec> out;
  std::vector<std::string> warnings;  // diff prints none: it compares, it does not gate
  for (auto& p : price_all(ctx, expand_spec_paths({path}), currency, true, warnings)) {
    const std::string name = p.check.name;
    out[name] = std::move(p);
  }
  return out;
}

int run_diff(const Context& ctx, const DiffFlags& f) {
  const auto before = by_name(ctx, f.old_path, f.currency);
  const auto after = by_name(ctx, f.new_path, f.currency);
  io::DiffReport d{f.currency, {}, {}};
  for (const auto& [n, spec] : before) {
    const auto a = after.find(n);
    d.rows.push_back({n, &spec, a == after.end() ? nullptr : &a->second, {}});
  }
  for (const auto& [n, spec] : after)
    if (!before.count(n)) d.rows.push_back({n, nullptr, &spec, {}});
  io::decide_costs(d);
  ctx.print_report({io::diff_json(d), {io::diff_table(d, ctx.money_style())}, {}, {}});
  return 0;
}

// --- schema ----------------------------------------------------------------------------------

int run_schema() {
  const std::string out = experiment_schema().dump(2) + "\n";
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}

}  // namespace

void setup_check(CLI::App& app, Context& ctx) {
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
  cmd->add_option("--date", f->date, "As-of date: its week, month or quarter (the policy's period) is gated, and ledger records after it are not counted (default: today, UTC)");
  cmd->add_option("--changed", f->changed, "Gate only the specs changed against this git base (e.g. origin/main), as `git diff --name-only BASE` lists them");
  cmd->add_option("--currency", f->currency, "Currency without a policy (default USD)");
  cmd->add_option("--config", f->config, "Project config (default: .gpuplan.yaml in this folder or above): policy, ledger, currency, catalogs, profile")
      ->check(CLI::ExistingFile);
  add_common_options(*cmd, ctx, kCatalogs | kProfile | kGithub);
  on_parsed(*cmd, ctx, [&ctx, f] {
    apply_project_config(ctx, f->config, {&f->budget, &f->ledger, &f->currency});
    return run_check(ctx, *f);
  });

  auto d = std::make_shared<DiffFlags>();
  auto* diff = app.add_subcommand("diff", "Cost, time and memory change between two sets of experiment specs");
  diff->footer(R"(Examples:
  gpuplan diff base/experiments experiments --format markdown)");
  diff->add_option("old", d->old_path, "Old spec file or folder")->required();
  diff->add_option("new", d->new_path, "New spec file or folder")->required();
  diff->add_option("--currency", d->currency, "Currency of the costs")->capture_default_str();
  add_common_options(*diff, ctx, kCatalogs | kProfile);
  on_parsed(*diff, ctx, [&ctx, d] { return run_diff(ctx, *d); });

  auto* schema = app.add_subcommand("schema", "Print a JSON Schema for gpuplan's input files");
  auto which = std::make_shared<std::string>();
  schema->add_option("kind", *which, "experiment")->required()->check(CLI::IsMember({"experiment"}));
  on_parsed(*schema, ctx, [which] { return run_schema(); });  // keeps the bound string alive
}

}  // namespace gpuplan::cli
