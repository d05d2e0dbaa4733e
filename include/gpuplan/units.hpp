#pragma once
// Units and the quantities people type. Parsing here is pure string work (no I/O) and returns
// a value or the reason it failed; the CLI turns a failure into an exit-2 message.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace gpuplan {

inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
inline constexpr double kGB = 1e9;

// The month every command bills and reports by: 730 hours (8760 a year / 12), as cost.cpp bills
// storage and Infracost's default "730 h/month" (shared/reference/cost_notes.md §2). A week is
// 168 hours. GPU-hours "a week" and "a month" convert through these two and nothing else.
inline constexpr double kHoursPerMonth = 730.0;
inline constexpr double kHoursPerWeek = 168.0;
inline constexpr double per_week_to_per_month(double per_week) { return per_week * kHoursPerMonth / kHoursPerWeek; }
inline constexpr double per_month_to_per_week(double per_month) { return per_month * kHoursPerWeek / kHoursPerMonth; }

// A parse result: the value, or a message saying what was expected.
template <class T>
struct Parsed {
  std::optional<T> value;
  std::string error;  // set when !value
  explicit operator bool() const { return value.has_value(); }
  static Parsed ok(T v) { return Parsed{std::move(v), {}}; }
  static Parsed fail(std::string e) { return Parsed{std::nullopt, std::move(e)}; }
};

// Counts: "7B", "1.5T", "350M", "12k", "1e9", "7000000000". Suffixes k/K, M, B/G, T (10^3..10^12).
Parsed<double> parse_count(std::string_view text);

// Memory: "24GB" (10^9), "24GiB" (2^30), "512MiB", "1.5TB". A bare "80G" or a bare number is
// refused as ambiguous unless the caller passes a default: a count of bytes is never guessed.
enum class BareGUnit { refuse, gib, gb };
Parsed<std::uint64_t> parse_bytes(std::string_view text, BareGUnit bare_g = BareGUnit::refuse);

// Durations: "12h", "3d", "30m", "45s", "2w", "1.5h", "500ms". A bare number is refused.
Parsed<double> parse_seconds(std::string_view text);

// Fractions: "18%" -> 0.18; "0.18" -> 0.18. Values must be finite.
Parsed<double> parse_fraction(std::string_view text);

// Money: "$1.99", "1.99", "₹150", "150 INR", "INR 150", "€3". currency is "" when not stated.
struct Money {
  double amount = 0;
  std::string currency;  // ISO 4217, "" when the text names none
};
Parsed<Money> parse_money(std::string_view text);

// "YYYY-MM-DD" naming a real day ("2026-02-30" and "2026-13-01" are not).
bool is_calendar_date(std::string_view ymd);

// A plain positive integer ("8", "4k" is accepted as a count); rejects fractions and overflow.
Parsed<std::int64_t> parse_int(std::string_view text, std::int64_t min_value, std::int64_t max_value);

// Printing helpers used by every renderer so that "24.0 GiB" is spelled one way.
std::string format_gib(double bytes, int decimals = 1);
std::string format_count(double count);  // 8.03B, 124M, 1.2k

}  // namespace gpuplan
