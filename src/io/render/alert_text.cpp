#include "io/render/alert_text.hpp"

#include "io/render/format.hpp"

namespace gpuplan::io {

std::string alert_message(const SpendAlert& a, const std::string& cur) {
  const MonthBurn& b = a.burn;
  const double cap = b.cap.value_or(0);
  switch (a.kind) {
    case AlertKind::over_cap:
      return a.subject + ": spent " + plain_money(b.spent, cur) + " in " + b.period + ", over the cap " + plain_money(cap, cur) +
             (b.crosses_on.empty() ? "" : " since " + b.crosses_on);
    case AlertKind::forecast_over_cap:
      return a.subject + ": at " + plain_money(b.burn_per_day, cur) + "/day (" + std::to_string(b.days_elapsed) + " days of " + b.period +
             ") the period ends at " + plain_money(b.forecast, cur) + ", over the cap " + plain_money(cap, cur) +
             (b.crosses_on.empty() ? "" : "; crossed on " + b.crosses_on);
    case AlertKind::run_over_max_cost:
      return a.subject + ": a run on " + a.date + " cost " + plain_money(a.value, cur) + ", over its per-run max_cost " + plain_money(a.limit, cur);
    case AlertKind::over_life_cap:
      return a.subject + ": spent " + plain_money(a.value, cur) + " over its whole ledger to " + a.date + ", over the per-experiment cap " +
             plain_money(a.limit, cur);
    case AlertKind::unpriced: return a.subject + ": cannot be priced: " + a.why;
    case AlertKind::spot_no_checkpoint:
      return a.subject + ": runs on spot instances and sets no checkpoint interval; a preemption loses the run";
  }
  return "";
}

}  // namespace gpuplan::io
