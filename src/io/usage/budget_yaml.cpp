#include "io/usage/budget_yaml.hpp"

#include <algorithm>
#include <vector>

#include "gpuplan/name_match.hpp"
#include "gpuplan/units.hpp"
#include "io/text/files.hpp"
#include "io/text/flat_yaml.hpp"

namespace gpuplan::io {

BudgetPolicy load_budget_policy(const std::string& path) { return parse_budget_policy(read_file(path, kMaxSmallFileBytes), path); }

BudgetPolicy parse_budget_policy(const std::string& text, const std::string& path) {
  const FlatDocument doc = parse_flat_yaml(text, path, "budget");
  BudgetPolicy p;
  p.where = SourceLocation{path, 1, 1};
  std::vector<InputError> errors;
  // Currency first: every amount is in it.
  if (const FlatEntry* c = doc.find("currency")) {
    const std::string& v = c->values.front();
    const bool iso = v.size() == 3 && std::all_of(v.begin(), v.end(), [](char ch) { return ch >= 'A' && ch <= 'Z'; });
    if (!iso) errors.emplace_back(c->value_where, "currency", "expected a 3-letter ISO code such as USD or INR");
    else p.currency = v;
  }
  auto amount = [&](const FlatEntry& e) -> std::optional<double> {
    if (e.is_list) {
      errors.emplace_back(e.where, e.key, "expected one amount, not a list");
      return std::nullopt;
    }
    auto m = parse_money(e.values.front());
    if (!m) {
      errors.emplace_back(e.value_where, e.key, m.error);
      return std::nullopt;
    }
    if (!m.value->currency.empty() && m.value->currency != p.currency) {
      errors.emplace_back(e.value_where, e.key, "amount in " + m.value->currency + " but the policy's currency is " + p.currency);
      return std::nullopt;
    }
    if (!(m.value->amount >= 0)) {
      errors.emplace_back(e.value_where, e.key, "must not be negative");
      return std::nullopt;
    }
    return m.value->amount;
  };
  const std::vector<std::string> known = {"currency", "period", "total", "per_experiment", "teams", "users",
                                          "rules.spot_checkpoint_every_max", "rules.approval_over_gpu_hours"};
  for (const FlatEntry& e : doc.entries) {
    p.lines[e.key] = e.where;
    const std::string& k = e.key;
    if (k == "currency") continue;
    if (k == "period") {
      const std::string& v = e.values.front();
      if (e.is_list || (v != "week" && v != "month" && v != "quarter"))
        errors.emplace_back(e.value_where, k, "expected week, month or quarter (calendar periods; a week starts on Monday)");
      else p.period = v;
    } else if (k == "total") {
      p.total = amount(e);
    } else if (k == "per_experiment") {
      p.per_experiment = amount(e);
    } else if (k.rfind("teams.", 0) == 0) {
      if (auto a = amount(e)) p.teams[k.substr(6)] = *a;
    } else if (k.rfind("users.", 0) == 0) {
      if (auto a = amount(e)) p.users[k.substr(6)] = *a;
    } else if (k == "rules.spot_checkpoint_every_max") {
      auto s = parse_seconds(e.values.front());
      if (!s || *s.value <= 0) errors.emplace_back(e.value_where, k, s ? "must be positive" : s.error);
      else p.spot_checkpoint_every_max = *s.value;
    } else if (k == "rules.approval_over_gpu_hours") {
      auto c = parse_count(e.values.front());
      if (!c || *c.value < 0) errors.emplace_back(e.value_where, k, c ? "must not be negative" : c.error);
      else p.approval_over_gpu_hours = *c.value;
    } else {
      const std::string near = closest_name(k, known);
      errors.emplace_back(e.where, k, "unknown key" + (near.empty() ? std::string() : " (did you mean '" + near + "'?)"));
    }
  }
  if (!errors.empty()) throw InputErrors(std::move(errors));
  return p;
}

}  // namespace gpuplan::io
