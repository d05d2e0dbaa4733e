#include "io/render/format.hpp"

namespace gpuplan::io {

std::optional<DigitGrouping> digit_grouping_from_string(const std::string& s) {
  if (s == "auto") return DigitGrouping::automatic;
  if (s == "intl") return DigitGrouping::intl;
  if (s == "indian") return DigitGrouping::indian;
  if (s == "none") return DigitGrouping::none;
  return std::nullopt;
}

std::string group_digits(const std::string& whole, const std::string& currency, MoneyStyle style) {
  DigitGrouping g = style.grouping;
  if (g == DigitGrouping::automatic) g = currency == "INR" ? DigitGrouping::indian : DigitGrouping::intl;
  if (g == DigitGrouping::none) return whole;
  // A separator goes before the digit with `left` digits from it to the end: every three
  // (international), or after the last three and then every two (Indian: lakh, crore).
  auto separator_before = [&](std::size_t left) {
    if (g == DigitGrouping::intl) return left % 3 == 0;
    return left == 3 || (left > 3 && (left - 3) % 2 == 0);
  };
  std::string out;
  for (std::size_t i = 0; i < whole.size(); ++i) {
    if (i > 0 && separator_before(whole.size() - i)) out += ',';
    out += whole[i];
  }
  return out;
}

std::string money_amount(double amount, const std::string& currency, int decimals, MoneyStyle style) {
  if (!std::isfinite(amount)) return num(amount, decimals);
  const std::string digits = num(std::fabs(amount), decimals);
  const auto dot = digits.find('.');
  const std::string whole = digits.substr(0, dot), frac = dot == std::string::npos ? "" : digits.substr(dot);
  // No "-0.00": a negative amount that rounds to zero prints as zero.
  const bool negative = amount < 0 && std::fabs(amount) >= 0.5 * std::pow(10.0, -decimals);
  return (negative ? "-" : "") + group_digits(whole, currency, style) + frac;
}

std::string money_text(double amount, const std::string& currency, int decimals, MoneyStyle style) {
  return money_amount(amount, currency, decimals, style) + " " + currency;
}

}  // namespace gpuplan::io
