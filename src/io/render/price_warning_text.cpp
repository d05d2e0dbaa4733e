#include "io/render/price_warning_text.hpp"

namespace gpuplan::io {

std::string price_warning_text(const PriceWarning& w) {
  switch (w.kind) {
    case PriceWarningKind::stale:
      return w.provider + ": prices dated " + w.prices_as_of + ", " + std::to_string(w.age_days) + " days old (over --stale-after " +
             std::to_string(w.stale_after_days) + "); check them before deciding";
    case PriceWarningKind::undated: return w.provider + ": prices carry no date (" + w.prices_as_of + "); check them before deciding";
    case PriceWarningKind::mixed_tax: {
      std::string names;
      for (const auto& n : w.untaxed) names += (names.empty() ? "" : ", ") + n;
      return "totals mix bases: " + names + " state no tax rate, so their totals exclude tax; give --tax RATE or "
             "--tax-basis exclusive to compare on one basis";
    }
  }
  return {};
}

std::vector<std::string> price_warning_texts(const std::vector<PriceWarning>& ws) {
  std::vector<std::string> out;
  out.reserve(ws.size());
  for (const auto& w : ws) out.push_back(price_warning_text(w));
  return out;
}

}  // namespace gpuplan::io
