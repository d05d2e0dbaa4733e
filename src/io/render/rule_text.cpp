#include "io/render/rule_text.hpp"

#include <fmt/format.h>

#include "io/render/format.hpp"

namespace gpuplan::io {
namespace {

std::string spot_checkpoint_text(const RuleResult& r) {
  const std::string required = fmt::format("policy requires at most {:.0f} min", r.limit / 60);
  if (r.value > 0) return fmt::format("spot run checkpoints every {:.0f} min; ", r.value / 60) + required;
  return "spot run sets no checkpoint interval; " + required;
}

// team, user and total: the period's spend so far plus the active specs' estimates, against the cap.
std::string cap_text(const RuleResult& r, const std::string& cur) {
  const std::string who = r.rule == BudgetRule::total ? "total" : to_string(r.rule) + (" " + r.subject);
  return who + ": spent " + plain_money(r.spent, cur) + " in " + r.period + " to " + r.as_of + " + estimated " + plain_money(r.added, cur) +
         " = " + plain_money(r.value, cur) + (r.pass ? " within " : " over ") + "the cap " + plain_money(r.limit, cur) +
         (r.pass ? "; remaining " + plain_money(r.limit - r.value, cur) : "");
}

}  // namespace

std::string rule_message(const RuleResult& r, const std::string& cur) {
  const char* verdict = r.pass ? " within" : " over";
  switch (r.rule) {
    case BudgetRule::max_cost:
      return "estimated " + plain_money(r.value, cur) + " on " + r.subject + verdict + " its per-run max_cost " + plain_money(r.limit, cur);
    case BudgetRule::deadline: return fmt::format("takes {:.1f} h, deadline {:.1f} h", r.value / 3600, r.limit / 3600);
    case BudgetRule::spot_checkpoint: return spot_checkpoint_text(r);
    case BudgetRule::approval:
      return fmt::format("{:.1f} GPU-hours is over the {:.0f} that need approval; ", r.value, r.limit) +
             (r.subject.empty() ? "no approved_by" : "approved by " + r.subject);
    case BudgetRule::per_experiment:
      return "ledger " + plain_money(r.spent, cur) + " + estimated " + plain_money(r.added, cur) + " = " + plain_money(r.value, cur) + verdict +
             " the per-experiment cap " + plain_money(r.limit, cur);
    case BudgetRule::status:
      return std::string(to_string(r.status)) + ": not estimated again; " +
             (r.spent > 0 ? "the ledger holds " + plain_money(r.spent, cur) + " under its name" : "the ledger holds no record under its name");
    case BudgetRule::priced: return "cannot be priced: " + r.subject;
    case BudgetRule::team:
    case BudgetRule::user:
    case BudgetRule::total: return cap_text(r, cur);
  }
  return "";
}

}  // namespace gpuplan::io
