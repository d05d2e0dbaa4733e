// gpuplan check: the CI budget gate. Prices every experiment spec as `estimate` does, adds the
// ledger's spend in the period, and applies the budget policy's rules. Exit 0 all pass, 1 any
// fails, 2 bad input. Also `gpuplan diff OLD NEW` and `gpuplan schema experiment`.
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
#include "cli/ledger_source.hpp"

namespace gpuplan::cli {
namespace {

struct CheckFlags {
  std::vector<std::string> specs;
  std::string budget, ledger, date, currency;
};

// The workflow-command escaping of GitHub's Actions toolkit (@actions/core, command.ts):
// data escapes %, CR and LF; a property value also escapes ':' and ',', which would otherwise
// end it (a spec file named "a,line=9" or holding a newline could forge an annotation).
std::string gh_escape_data(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '%') out += "%25";
    else if (c == '\r') out += "%0D";
    else if (c == '\n') out += "%0A";
    else out += c;
  }
  return out;
}

std::string gh_escape_property(const std::string& s) {
  std::string out;
  for (char c : gh_escape_data(s)) {
    if (c == ':') out += "%3A";
    else if (c == ',') out += "%2C";
    else out += c;
  }
  return out;
}

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

void run_check(const CheckFlags& f) {
  const BudgetPolicy policy = load_policy(f.budget, f.currency);
  const std::string date = date_or_today(f.date);
  const std::string period = period_of(date);

  std::vector<PricedExperiment> priced = price_all(f.specs, policy.currency);
  if (priced.empty()) bad_flag("specs", "no experiment spec files found");
  // The store sums the period's spend by team and user (an indexed query on SQLite/PostgreSQL).
  std::vector<LedgerRecord> ledger;
  if (!f.ledger.empty()) ledger = ledger_totals(f.ledger, period, policy.currency);
  std::vector<ExperimentCheck> checks;
  for (const auto& p : priced) checks.push_back(p.check);
  const std::vector<RuleResult> results = check_budget(policy, checks, ledger, period);
  const bool all_pass = std::all_of(results.begin(), results.end(), [](const RuleResult& r) { return r.pass; });

  Report r;
  r.json["period"] = period;
  r.json["currency"] = policy.currency;
  r.json["pass"] = all_pass;
  r.json["experiments"] = nlohmann::json::array();
  for (const auto& p : priced) {
    const ExperimentCheck& c = p.check;
    nlohmann::json e = {{"name", c.name},       {"file", c.where.path}, {"owner", c.owner},   {"team", c.team},
                        {"priced", c.priced},   {"cost", c.cost},       {"offer", c.offer},   {"gpu_hours", c.gpu_hours},
                        {"wall_seconds", c.wall_seconds}, {"per_gpu_bytes", static_cast<std::int64_t>(p.per_gpu_bytes)}, {"model", p.model}};
    if (!c.priced) e["why_unpriced"] = c.unpriced_reason;
    r.json["experiments"].push_back(e);
  }
  r.json["rules"] = nlohmann::json::array();
  io::Table t;
  t.title = "Budget check, " + period + " (" + policy.currency + ")";
  t.columns = {"experiment", "rule", "result", "detail"};
  t.align = {io::Align::left, io::Align::left, io::Align::left, io::Align::left};
  for (const auto& res : results) {
    r.json["rules"].push_back({{"experiment", res.experiment.empty() ? nlohmann::json() : nlohmann::json(res.experiment)},
                               {"rule", res.rule},
                               {"pass", res.pass},
                               {"value", res.value},
                               {"limit", res.limit},
                               {"message", res.message},
                               {"file", res.where.path},
                               {"line", res.where.line}});
    t.rows.push_back({res.experiment.empty() ? "(all)" : res.experiment, res.rule, res.pass ? "pass" : "FAIL", res.message});
  }
  r.tables.push_back(t);
  if (output_format() == Format::github) {
    for (const auto& res : results) {
      if (res.pass) continue;
      std::printf("::error file=%s,line=%d::%s\n", gh_escape_property(res.where.path).c_str(), std::max(1, res.where.line),
                  gh_escape_data((res.experiment.empty() ? "" : res.experiment + ": ") + res.rule + ": " + res.message).c_str());
    }
  }
  const int failed = static_cast<int>(std::count_if(results.begin(), results.end(), [](const RuleResult& x) { return !x.pass; }));
  r.json["specs_read"] = priced.size();
  r.notes.push_back("read " + std::to_string(priced.size()) + " experiment spec" + (priced.size() == 1 ? "" : "s"));
  r.notes.push_back(all_pass ? "all " + std::to_string(results.size()) + " rules pass"
                             : std::to_string(failed) + " of " + std::to_string(results.size()) + " rules fail");
  if (f.budget.empty()) r.notes.push_back("no --policy file: only each experiment's own max_cost and deadline are checked");
  print_report(r);
  if (!all_pass) exit_code() = 1;
}

// --- diff ------------------------------------------------------------------------------------

struct DiffFlags {
  std::string old_path, new_path, currency = "USD";
};

std::map<std::string, PricedExperiment> by_name(const std::string& path, const std::string& currency) {
  std::map<std::string, PricedExperiment> out;
  for (auto& p : price_all({path}, currency)) out[p.check.name] = std::move(p);
  return out;
}

void run_diff(const DiffFlags& f) {
  const auto before = by_name(f.old_path, f.currency);
  const auto after = by_name(f.new_path, f.currency);
  std::vector<std::string> names;
  for (const auto& [n, _] : before) names.push_back(n);
  for (const auto& [n, _] : after)
    if (!before.count(n)) names.push_back(n);
  Report r;
  r.json["currency"] = f.currency;
  r.json["experiments"] = nlohmann::json::array();
  io::Table t;
  t.title = "Cost diff (" + f.currency + ")";
  t.columns = {"experiment", "change", "cost before", "cost after", "delta", "hours before", "hours after", "GiB/GPU after"};
  t.align = {io::Align::left, io::Align::left, io::Align::right, io::Align::right, io::Align::right, io::Align::right, io::Align::right,
             io::Align::right};
  double total_before = 0, total_after = 0;
  for (const auto& n : names) {
    const auto b = before.find(n), a = after.find(n);
    const PricedExperiment* pb = b == before.end() ? nullptr : &b->second;
    const PricedExperiment* pa = a == after.end() ? nullptr : &a->second;
    const double cb = pb ? pb->check.cost : 0, ca = pa ? pa->check.cost : 0;
    total_before += cb;
    total_after += ca;
    const std::string change = !pb ? "added" : !pa ? "removed" : (ca == cb ? "same" : "changed");
    r.json["experiments"].push_back({{"name", n},
                                     {"change", change},
                                     {"cost_before", pb ? nlohmann::json(cb) : nlohmann::json()},
                                     {"cost_after", pa ? nlohmann::json(ca) : nlohmann::json()},
                                     {"delta", ca - cb},
                                     {"wall_seconds_before", pb ? nlohmann::json(pb->check.wall_seconds) : nlohmann::json()},
                                     {"wall_seconds_after", pa ? nlohmann::json(pa->check.wall_seconds) : nlohmann::json()},
                                     {"per_gpu_bytes_before", pb ? nlohmann::json(static_cast<std::int64_t>(pb->per_gpu_bytes)) : nlohmann::json()},
                                     {"per_gpu_bytes_after", pa ? nlohmann::json(static_cast<std::int64_t>(pa->per_gpu_bytes)) : nlohmann::json()}});
    t.rows.push_back({n, change, pb ? num(cb, 2) : "-", pa ? num(ca, 2) : "-", (ca - cb >= 0 ? "+" : "") + num(ca - cb, 2),
                      pb ? num(pb->check.wall_seconds / 3600, 1) : "-", pa ? num(pa->check.wall_seconds / 3600, 1) : "-",
                      pa ? num(pa->per_gpu_bytes / (1024.0 * 1024 * 1024), 1) : "-"});
  }
  r.json["total_before"] = total_before;
  r.json["total_after"] = total_after;
  r.json["total_delta"] = total_after - total_before;
  t.rows.push_back({"total", "", num(total_before, 2), num(total_after, 2),
                    (total_after - total_before >= 0 ? "+" : "") + num(total_after - total_before, 2), "", "", ""});
  r.tables.push_back(t);
  print_report(r);
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
  add_common_options(*cmd, true);
  cmd->callback([f] { run_check(*f); });

  auto d = std::make_shared<DiffFlags>();
  auto* diff = app.add_subcommand("diff", "Cost, time and memory change between two sets of experiment specs");
  diff->footer(R"(Examples:
  gpuplan diff base/experiments experiments --format markdown)");
  diff->add_option("old", d->old_path, "Old spec file or folder")->required();
  diff->add_option("new", d->new_path, "New spec file or folder")->required();
  diff->add_option("--currency", d->currency, "Currency of the costs")->capture_default_str();
  add_common_options(*diff);
  diff->callback([d] { run_diff(*d); });

  auto* schema = app.add_subcommand("schema", "Print a JSON Schema for gpuplan's input files");
  auto which = std::make_shared<std::string>();
  schema->add_option("kind", *which, "experiment")->required()->check(CLI::IsMember({"experiment"}));
  schema->callback([which] { run_schema(); });  // keeps the bound string alive
}

}  // namespace gpuplan::cli
