#include "io/render/alert_text.hpp"

#include <fmt/format.h>

namespace gpuplan::io {
namespace {

std::string amount(double v, const std::string& currency) { return fmt::format("{:.2f} {}", v, currency); }

}  // namespace

std::string alert_message(const SpendAlert& a, const std::string& cur) {
  const MonthBurn& b = a.burn;
  const double cap = b.cap.value_or(0);
  switch (a.kind) {
    case AlertKind::over_cap:
      return a.subject + ": spent " + amount(b.spent, cur) + " in " + b.period + ", over the cap " + amount(cap, cur) +
             (b.crosses_on.empty() ? "" : " since " + b.crosses_on);
    case AlertKind::forecast_over_cap:
      return a.subject + ": at " + amount(b.burn_per_day, cur) + "/day (" + std::to_string(b.days_elapsed) + " days of " + b.period +
             ") the period ends at " + amount(b.forecast, cur) + ", over the cap " + amount(cap, cur) +
             (b.crosses_on.empty() ? "" : "; crossed on " + b.crosses_on);
    case AlertKind::run_over_max_cost:
      return a.subject + ": a run on " + a.date + " cost " + amount(a.value, cur) + ", over its per-run max_cost " + amount(a.limit, cur);
    case AlertKind::over_life_cap:
      return a.subject + ": spent " + amount(a.value, cur) + " over its whole ledger to " + a.date + ", over the per-experiment cap " +
             amount(a.limit, cur);
    case AlertKind::unpriced: return a.subject + ": cannot be priced: " + a.why;
    case AlertKind::spot_no_checkpoint:
      return a.subject + ": runs on spot instances and sets no checkpoint interval; a preemption loses the run";
  }
  return "";
}

}  // namespace gpuplan::io
