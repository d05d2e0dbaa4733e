// libFuzzer target: the budget gate's user-written files — budget.yaml policies (through the
// flat YAML reader experiment specs also use) and JSON Lines spend ledgers.
#include <cstddef>
#include <cstdint>
#include <string>

#include "gpuplan/error.hpp"
#include "io/usage/budget_yaml.hpp"
#include "io/usage/ledger.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)gpuplan::io::parse_budget_policy(text, "budget.yaml");
  } catch (const gpuplan::InputError&) {
  } catch (const gpuplan::InputErrors&) {
  }
  try {
    const auto load = gpuplan::io::parse_ledger(text, "spend.jsonl");
    (void)gpuplan::sum_spend(load.records, "team");
  } catch (const gpuplan::InputError&) {
  } catch (const gpuplan::InputErrors&) {
  }
  return 0;
}
