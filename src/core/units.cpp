#include "gpuplan/units.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

namespace gpuplan {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Splits "1.5GiB" into 1.5 and "GiB". Rejects NaN/inf spellings, hex and empty numbers.
struct NumberAndSuffix {
  double number = 0;
  std::string_view suffix;
};

std::optional<NumberAndSuffix> split_number(std::string_view text) {
  text = trim(text);
  if (text.empty()) return std::nullopt;
  std::size_t i = 0;
  if (text[i] == '+') ++i;  // a leading '-' is left for from_chars so negatives are seen
  const char* begin = text.data() + i;
  const char* end = text.data() + text.size();
  double value = 0;
  auto [ptr, ec] = std::from_chars(begin, end, value, std::chars_format::general);
  if (ec != std::errc() || ptr == begin) return std::nullopt;
  // from_chars accepts "inf"/"nan": refuse them here, every quantity must be finite.
  if (!std::isfinite(value)) return std::nullopt;
  for (const char* p = begin; p < ptr; ++p) {
    if (std::isalpha(static_cast<unsigned char>(*p)) && *p != 'e' && *p != 'E') return std::nullopt;
  }
  NumberAndSuffix out;
  out.number = value;
  out.suffix = trim(std::string_view(ptr, static_cast<std::size_t>(end - ptr)));
  return out;
}

std::string quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

}  // namespace

Parsed<double> parse_count(std::string_view text) {
  auto ns = split_number(text);
  if (!ns) return Parsed<double>::fail("expected a count such as 7B, 350M or 1.5T, got " + quoted(text));
  double mult = 1;
  const std::string suffix = lower(ns->suffix);
  if (suffix.empty()) mult = 1;
  else if (suffix == "k") mult = 1e3;
  else if (suffix == "m") mult = 1e6;
  else if (suffix == "b" || suffix == "g") mult = 1e9;
  else if (suffix == "t") mult = 1e12;
  else return Parsed<double>::fail("unknown count suffix '" + std::string(ns->suffix) + "' in " + quoted(text) +
                                   " (expected k, M, B or T)");
  const double v = ns->number * mult;
  if (!(v >= 0) || !std::isfinite(v)) return Parsed<double>::fail("expected a non-negative count, got " + quoted(text));
  return Parsed<double>::ok(v);
}

Parsed<std::uint64_t> parse_bytes(std::string_view text, BareGUnit bare_g) {
  auto ns = split_number(text);
  if (!ns) return Parsed<std::uint64_t>::fail("expected a size such as 24GiB or 80GB, got " + quoted(text));
  const std::string s = lower(ns->suffix);
  double mult = 0;
  if (s == "b") mult = 1;
  else if (s == "kb") mult = 1e3;
  else if (s == "mb") mult = 1e6;
  else if (s == "gb") mult = 1e9;
  else if (s == "tb") mult = 1e12;
  else if (s == "kib") mult = 1024.0;
  else if (s == "mib") mult = 1024.0 * 1024;
  else if (s == "gib") mult = kGiB;
  else if (s == "tib") mult = kGiB * 1024;
  else if (s == "g" || s.empty()) {
    if (bare_g == BareGUnit::gib && s == "g") mult = kGiB;
    else if (bare_g == BareGUnit::gb && s == "g") mult = 1e9;
    else
      return Parsed<std::uint64_t>::fail("ambiguous size " + quoted(text) +
                                         ": write GiB (2^30 bytes) or GB (10^9 bytes)");
  } else {
    return Parsed<std::uint64_t>::fail("unknown size unit '" + std::string(ns->suffix) + "' in " + quoted(text) +
                                       " (expected B, MB, GB, TB, MiB, GiB or TiB)");
  }
  const double v = ns->number * mult;
  if (!(v >= 0)) return Parsed<std::uint64_t>::fail("expected a non-negative size, got " + quoted(text));
  // 2^63 bytes is far beyond any machine; refuse rather than wrap.
  if (v >= 9.2e18) return Parsed<std::uint64_t>::fail("size " + quoted(text) + " is too large");
  return Parsed<std::uint64_t>::ok(static_cast<std::uint64_t>(std::llround(v)));
}

Parsed<double> parse_seconds(std::string_view text) {
  auto ns = split_number(text);
  if (!ns) return Parsed<double>::fail("expected a duration such as 12h, 3d or 30m, got " + quoted(text));
  const std::string s = lower(ns->suffix);
  double mult = 0;
  if (s == "ms") mult = 1e-3;
  else if (s == "s" || s == "sec") mult = 1;
  else if (s == "m" || s == "min") mult = 60;
  else if (s == "h" || s == "hr") mult = 3600;
  else if (s == "d") mult = 86400;
  else if (s == "w") mult = 7 * 86400;
  else if (s == "y") mult = 365 * 86400.0;
  else if (s.empty())
    return Parsed<double>::fail("duration " + quoted(text) + " needs a unit (ms, s, m, h, d, w or y)");
  else
    return Parsed<double>::fail("unknown duration unit '" + std::string(ns->suffix) + "' in " + quoted(text));
  const double v = ns->number * mult;
  if (!(v >= 0)) return Parsed<double>::fail("expected a non-negative duration, got " + quoted(text));
  return Parsed<double>::ok(v);
}

Parsed<double> parse_fraction(std::string_view text) {
  auto ns = split_number(text);
  if (!ns) return Parsed<double>::fail("expected a percentage such as 18% or a fraction such as 0.18, got " + quoted(text));
  if (ns->suffix == "%") return Parsed<double>::ok(ns->number / 100.0);
  if (ns->suffix.empty()) return Parsed<double>::ok(ns->number);
  return Parsed<double>::fail("expected a percentage such as 18% or a fraction such as 0.18, got " + quoted(text));
}

Parsed<Money> parse_money(std::string_view text) {
  std::string_view t = trim(text);
  Money m;
  struct Symbol { std::string_view sym; std::string_view code; };
  static constexpr Symbol kSymbols[] = {{"$", "USD"}, {"₹", "INR"}, {"€", "EUR"}, {"£", "GBP"}, {"¥", "JPY"}};
  for (const auto& s : kSymbols) {
    if (t.substr(0, s.sym.size()) == s.sym) {
      m.currency = std::string(s.code);
      t = trim(t.substr(s.sym.size()));
      break;
    }
  }
  // "INR 150" or "150 INR"
  auto is_code = [](std::string_view s) {
    if (s.size() != 3) return false;
    for (char c : s) if (!std::isalpha(static_cast<unsigned char>(c))) return false;
    return true;
  };
  if (m.currency.empty() && t.size() > 4 && is_code(t.substr(0, 3)) && std::isspace(static_cast<unsigned char>(t[3]))) {
    m.currency = std::string(t.substr(0, 3));
    t = trim(t.substr(3));
  }
  auto ns = split_number(t);
  if (!ns) return Parsed<Money>::fail("expected an amount such as $1.99 or 150 INR, got " + quoted(text));
  std::string_view suffix = ns->suffix;
  if (!suffix.empty()) {
    if (!m.currency.empty() || !is_code(suffix))
      return Parsed<Money>::fail("expected an amount such as $1.99 or 150 INR, got " + quoted(text));
    m.currency = std::string(suffix);
  }
  for (char& c : m.currency) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  m.amount = ns->number;
  return Parsed<Money>::ok(m);
}

bool is_calendar_date(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  for (std::size_t i : {0, 1, 2, 3, 5, 6, 8, 9})
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  auto number = [&](std::size_t at, std::size_t n) {
    int v = 0;
    for (std::size_t i = at; i < at + n; ++i) v = v * 10 + (s[i] - '0');
    return v;
  };
  const int y = number(0, 4), m = number(5, 2), d = number(8, 2);
  if (m < 1 || m > 12 || d < 1) return false;
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return d <= kDays[m - 1] + (m == 2 && leap ? 1 : 0);
}

Parsed<std::int64_t> parse_int(std::string_view text, std::int64_t min_value, std::int64_t max_value) {
  auto count = parse_count(text);
  auto range_msg = [&] {
    return "expected a whole number from " + std::to_string(min_value) + " to " + std::to_string(max_value) +
           ", got " + quoted(text);
  };
  if (!count) {
    // a negative number fails parse_count's non-negative rule; say the range instead
    return Parsed<std::int64_t>::fail(range_msg());
  }
  const double v = *count.value;
  if (v != std::floor(v) || v < static_cast<double>(min_value) || v > static_cast<double>(max_value))
    return Parsed<std::int64_t>::fail(range_msg());
  return Parsed<std::int64_t>::ok(static_cast<std::int64_t>(v));
}

std::string format_gib(double bytes, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f GiB", decimals, bytes / kGiB);
  return buf;
}

std::string format_count(double count) {
  char buf[64];
  const double a = std::fabs(count);
  if (a >= 1e12) std::snprintf(buf, sizeof buf, "%.2fT", count / 1e12);
  else if (a >= 1e9) std::snprintf(buf, sizeof buf, "%.2fB", count / 1e9);
  else if (a >= 1e6) std::snprintf(buf, sizeof buf, "%.1fM", count / 1e6);
  else if (a >= 1e3) std::snprintf(buf, sizeof buf, "%.1fk", count / 1e3);
  else std::snprintf(buf, sizeof buf, "%.0f", count);
  return buf;
}

}  // namespace gpuplan
