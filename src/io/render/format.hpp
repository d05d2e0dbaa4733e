#pragma once
// How numbers are spelled for people: fixed decimals, money, durations, GiB. One place, so
// every table spells a quantity the same way; CSV and JSON carry the raw numbers instead.
#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

#include "gpuplan/plural.hpp"
#include "io/render/money_style.hpp"

namespace gpuplan::io {

inline std::string num(double v, int decimals = 1) { return fmt::format("{:.{}f}", v, decimals); }
inline std::string opt_num(const std::optional<double>& v, int decimals = 2) { return v ? num(*v, decimals) : "-"; }

// Raw value for CSV/JSON-like output: shortest round-trip form.
inline std::string raw(double v) { return fmt::format("{}", v); }
inline std::string raw(const std::optional<double>& v) { return v ? raw(*v) : ""; }

// A byte count as JSON and CSV carry it: the nearest whole byte, the same in every command.
inline std::int64_t bytes_int(double b) { return static_cast<std::int64_t>(std::llround(b)); }

// "1084428" -> "10,84,428" (Indian) or "1,084,428" (international), as `style` says for money
// in `currency`. `whole` is the digits before the decimal point, without a sign.
std::string group_digits(const std::string& whole, const std::string& currency, MoneyStyle style);

// The one money formatter every renderer uses. money_amount: the number alone, grouped, with
// `decimals` places ("10,84,428.50"); money_text: the same with its currency ("10,84,428.50 INR").
std::string money_amount(double amount, const std::string& currency, int decimals, MoneyStyle style);
std::string money_text(double amount, const std::string& currency, int decimals, MoneyStyle style);

// Money in the sentences of the budget gate and the dashboard's alerts: two decimals, never
// grouped, its currency after it ("1234.50 USD"), so a sentence reads the same in every format
// (JSON and CSV carry it too).
inline std::string plain_money(double v, const std::string& currency) { return fmt::format("{:.2f} {}", v, currency); }

// Money with precision that suits its size, for a column whose header names the currency:
// 1,234, 12.34, 0.1234.
inline std::string money(double v, const std::string& currency, MoneyStyle style) {
  return money_amount(v, currency, std::fabs(v) >= 100 ? 0 : std::fabs(v) >= 1 ? 2 : 4, style);
}

// 45.0s, 12.5m, 3.3h, 4.2d.
inline std::string duration(double seconds) {
  if (seconds < 120) return num(seconds, 1) + "s";
  if (seconds < 7200) return num(seconds / 60, 1) + "m";
  if (seconds < 3 * 86400) return num(seconds / 3600, 1) + "h";
  return num(seconds / 86400, 1) + "d";
}

// "1 GPU", "8 GPUs".
using gpuplan::count_of;  // "1 GPU", "8 GPUs" (gpuplan/plural.hpp)

}  // namespace gpuplan::io
