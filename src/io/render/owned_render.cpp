#include "io/render/owned_render.hpp"

#include "io/render/format.hpp"

namespace gpuplan::io {

nlohmann::json owned_json(const OwnedBlock& b) {
  const OwnedTerms& t = b.terms;
  const MonthlyCost& m = b.month;
  return {{"offer", b.offer},
          {"gpu", b.gpu},
          {"gpus", b.gpus},
          {"utilization", b.utilization},
          {"utilisation", b.utilization},  // the first spelling, kept until schema 2 (docs/json.md)
          {"owned_gpu_hours_per_month", m.owned_gpu_hours},
          {"priced_at", b.marginal ? "marginal" : "full"},
          {"per_gpu_hour", b.per_gpu_hour},
          {"full_per_gpu_hour", b.hour.full},
          {"marginal_per_gpu_hour", b.hour.marginal},
          {"horizon_months", b.horizon_months},
          {"monthly", {{"capital", m.capital}, {"power", m.power}, {"maintenance", m.maintenance}, {"failures", m.failures},
                       {"colo", m.colo}, {"ops", m.ops}, {"total", m.capital + m.running}}},
          {"gpu_price", t.gpu_price},
          {"rest_of_machine_per_build", t.rest_of_machine_per_build},
          {"gpus_per_build", t.gpus_per_build},
          {"power_price_per_kwh", t.power_price_per_kwh},
          {"load_factor", t.load_factor},
          {"purchase", purchase_json(b.purchase)},
          {"defaults", default_texts(b.defaults, kJsonMoney)}};
}

std::vector<std::string> owned_notes(const OwnedBlock& b, MoneyStyle style) {
  const MonthlyCost& m = b.month;
  auto money = [&](double v, int d) { return money_text(v, b.currency, d, style); };
  const std::string what = b.offer + " (" + count_of(b.gpus, "GPU") + " you own, busy " + num(b.utilization * 100, 0) + "% of the month = " +
                           num(m.owned_gpu_hours, 0) + " GPU-h)";
  std::vector<std::string> out;
  if (b.marginal)
    out.push_back(what + " is priced at its marginal cost, " + money(b.hour.marginal, 4) + "/GPU-h: power " + money(m.power, 2) +
                  " + maintenance " + money(m.maintenance, 2) + " a month, no purchase price (owner's full cost " + money(b.hour.full, 4) + "/GPU-h)");
  else
    out.push_back(what + " is priced at the owner's cost, " + money(b.hour.full, 4) + "/GPU-h: capital " + money(m.capital, 2) + " + power " +
                  money(m.power, 2) + " + maintenance " + money(m.maintenance, 2) + " + failures " + money(m.failures, 2) + " + colocation " +
                  money(m.colo, 2) + " + engineer time " + money(m.ops, 2) + " a month over " + std::to_string(b.horizon_months) +
                  " months, as buy-vs-rent prices owning");
  for (const auto& n : b.notes) out.push_back("owned: " + ownership_note_text(n));
  for (const auto& w : b.purchase.warnings) out.push_back("owned: warning: " + stand_in_text(w, style));
  if (!b.defaults.empty()) out.push_back(defaults_line("owned: defaults used (override with the flag): ", b.defaults, style));
  return out;
}

}  // namespace gpuplan::io
