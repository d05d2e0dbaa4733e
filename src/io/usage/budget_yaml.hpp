#pragma once
// budget.yaml: the policy the CI gate applies (docs/budget-gate.md describes every key).
#include <string>

#include "gpuplan/budget.hpp"

namespace gpuplan::io {

// Reads and checks a policy; throws InputErrors naming file, line and key.
BudgetPolicy load_budget_policy(const std::string& path);
// The same for text already read from `path`.
BudgetPolicy parse_budget_policy(const std::string& text, const std::string& path);

}  // namespace gpuplan::io
