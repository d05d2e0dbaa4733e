#include "io/usage/ledger_flat_line.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <system_error>

namespace gpuplan::io {

namespace {

// A cursor over one line. Each reader returns false for anything outside the simple form (the
// caller then gives up on the line), so it never has to report or recover.
class Cursor {
 public:
  explicit Cursor(std::string_view s) : s_(s) {}

  // JSON's whitespace; a line holds no '\n'.
  void skip_space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\r')) ++i_;
  }
  bool take(char c) {
    skip_space();
    if (i_ == s_.size() || s_[i_] != c) return false;
    ++i_;
    return true;
  }
  bool at_end() {
    skip_space();
    return i_ == s_.size();
  }
  bool word(std::string_view w) {
    skip_space();
    if (s_.substr(i_, w.size()) != w) return false;
    i_ += w.size();
    return true;
  }
  // A string of printable ASCII without escapes: exactly the bytes the full parse would decode
  // (escapes, UTF-8 validation and control characters are left to it).
  bool text(std::string_view& out) {
    if (!take('"')) return false;
    const std::size_t from = i_;
    for (; i_ < s_.size(); ++i_) {
      const auto c = static_cast<unsigned char>(s_[i_]);
      if (c == '"') {
        out = s_.substr(from, i_ - from);
        ++i_;
        return true;
      }
      if (c < 0x20 || c >= 0x7f || c == '\\') return false;
    }
    return false;
  }
  // A JSON number token: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?. On failure the cursor
  // stays where it was, so no other reader starts mid-token ("-true" is not `true`).
  bool number(std::string_view& out) {
    skip_space();
    const std::size_t from = i_;
    if (number_token()) {
      out = s_.substr(from, i_ - from);
      return true;
    }
    i_ = from;
    return false;
  }

 private:
  bool number_token() {
    if (i_ < s_.size() && s_[i_] == '-') ++i_;
    if (!digits(true)) return false;
    if (i_ < s_.size() && s_[i_] == '.') {
      ++i_;
      if (!digits(false)) return false;
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      ++i_;
      if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
      if (!digits(false)) return false;
    }
    return true;
  }

  // One or more digits; an integer part may not have a leading zero before more digits.
  bool digits(bool integer_part) {
    const std::size_t from = i_;
    while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
    return i_ > from && !(integer_part && s_[from] == '0' && i_ - from > 1);
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

// The keys the record reads; the text ones first. "metrics" (an array) is left to the full parse.
enum Slot { kDate, kExperiment, kTeam, kUser, kProvider, kCurrency, kId, kFamily, kFirstNumber,
            kCost = kFirstNumber, kGpuHours, kTokens, kUtilization, kSamples, kRequests, kRestoreSeconds, kSlots };
constexpr std::array<std::string_view, kSlots> kKeys = {"date",   "experiment", "team",      "user",        "provider",
                                                        "currency", "id",       "family",    "cost",        "gpu_hours",
                                                        "tokens", "utilization", "samples", "requests", "restore_seconds"};

int slot_of(std::string_view key) {
  for (int s = 0; s < kSlots; ++s)
    if (kKeys[static_cast<std::size_t>(s)] == key) return s;
  return -1;
}

bool to_number(std::string_view token, double& out);

// A value of a key the record does not read: the full parse ignores it once it is valid JSON,
// but refuses the whole line for a number out of a double's range (1e400), so those go to it.
bool skip_plain_value(Cursor& c) {
  std::string_view ignored;
  double unused = 0;
  if (c.number(ignored)) return to_number(ignored, unused);
  return c.text(ignored) || c.word("true") || c.word("false") || c.word("null");
}

// The double the full parse gets: nlohmann reads an integer token exactly (or, past 64 bits, with
// strtod) and a decimal one with strtod, both correctly rounded, as from_chars is. Out of range
// (1e400, which the full parse refuses, or an underflow) is left to it.
bool to_number(std::string_view token, double& out) {
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), out);
  return ec == std::errc{} && end == token.data() + token.size() && std::isfinite(out);
}

}  // namespace

std::optional<LedgerRecord> read_flat_ledger_line(std::string_view row, const SourceLocation& at) {
  Cursor c(row);
  std::array<std::string_view, kSlots> value{};
  std::array<bool, kSlots> seen{};
  if (!c.take('{')) return std::nullopt;
  do {
    std::string_view key;
    if (!c.text(key) || !c.take(':')) return std::nullopt;
    const int s = slot_of(key);
    if (s < 0) {
      if (key == "metrics" || !skip_plain_value(c)) return std::nullopt;
      continue;
    }
    const auto slot = static_cast<std::size_t>(s);
    if (seen[slot]) return std::nullopt;  // a repeated key: the full parse keeps the last one
    seen[slot] = true;
    // Numbers the record reads must be non-negative; "-0" and the like go to the full parse.
    const bool ok = s < kFirstNumber ? c.text(value[slot]) : c.number(value[slot]) && value[slot][0] != '-';
    if (!ok) return std::nullopt;
  } while (c.take(','));
  if (!c.take('}') || !c.at_end()) return std::nullopt;
  if (!seen[kDate] || !seen[kExperiment] || !seen[kCurrency] || !seen[kCost]) return std::nullopt;

  LedgerRecord r;
  r.where = at;
  std::string* const text[] = {&r.date, &r.experiment, &r.team, &r.user, &r.provider, &r.currency, &r.id, &r.family};
  for (int s = 0; s < kFirstNumber; ++s) text[s]->assign(value[static_cast<std::size_t>(s)]);
  double number[kSlots] = {};
  for (int s = kFirstNumber; s < kSlots; ++s)
    if (seen[static_cast<std::size_t>(s)] && !to_number(value[static_cast<std::size_t>(s)], number[s])) return std::nullopt;
  r.cost = number[kCost];
  r.gpu_hours = number[kGpuHours];
  r.tokens = number[kTokens];
  if (seen[kUtilization]) r.utilization = number[kUtilization];
  r.samples = number[kSamples];
  r.requests = number[kRequests];
  if (seen[kRestoreSeconds]) r.restore_seconds = number[kRestoreSeconds];
  return r;
}

}  // namespace gpuplan::io
