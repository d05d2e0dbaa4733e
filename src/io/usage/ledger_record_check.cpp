#include "io/usage/ledger_record_check.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "gpuplan/units.hpp"
#include "io/usage/ledger.hpp"

namespace gpuplan::io {

namespace {

// The byte offset of the first invalid UTF-8 sequence (overlongs, surrogates and code points
// above U+10FFFF included), or npos.
std::size_t bad_utf8_at(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    if (n == 0 || i + n > s.size()) return i;
    std::uint32_t cp = n == 1 ? c : n == 2 ? (c & 0x1f) : n == 3 ? (c & 0x0f) : (c & 0x07);
    for (std::size_t k = 1; k < n; ++k) {
      const auto d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xc0) != 0x80) return i;
      cp = (cp << 6) | (d & 0x3f);
    }
    static constexpr std::uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += n;
  }
  return std::string_view::npos;
}

void check_text(const std::string& value, const char* field, bool no_controls, const SourceLocation& at,
                std::vector<InputError>& errors) {
  if (const std::size_t bad = bad_utf8_at(value); bad != std::string_view::npos) {
    errors.emplace_back(at, field, "not valid UTF-8 (byte " + std::to_string(bad + 1) + ")");
    return;
  }
  for (std::size_t i = 0; i < value.size(); ++i) {
    const auto c = static_cast<unsigned char>(value[i]);
    if (c == 0 || (no_controls && (c < 0x20 || c == 0x7f))) {
      errors.emplace_back(at, field, std::string(c == 0 ? "contains a NUL" : "contains a control character") + " (byte " +
                                         std::to_string(i + 1) + ")");
      return;
    }
  }
}

void check_number(double v, const char* field, double max, const SourceLocation& at, std::vector<InputError>& errors) {
  if (std::isfinite(v) && v >= 0 && v <= max) return;
  char buf[96];
  std::snprintf(buf, sizeof buf, "expected a number from 0 to %g, got %g", max, v);
  errors.emplace_back(at, field, buf);
}

bool is_currency_code(const std::string& c) {
  if (c.size() != 3) return false;
  for (char ch : c)
    if (ch < 'A' || ch > 'Z') return false;
  return true;
}

// An upper bound on the length of ledger_line(r): every key present, every text byte escaped at
// its longest (\u00XX, six bytes), every number at its longest (nlohmann writes at most 24 bytes,
// "-1.7976931348623157e+308"). Records under it need not be serialised to know they fit a line.
std::size_t longest_line(const LedgerRecord& r) {
  constexpr std::size_t kKeysAndPunctuation = 512, kNumber = 32, kMetricFrame = 64;
  std::size_t n = kKeysAndPunctuation + 7 * kNumber;
  for (const std::string* s : {&r.date, &r.experiment, &r.team, &r.user, &r.provider, &r.currency, &r.id, &r.family})
    n += 6 * s->size();
  for (const RunMetric& m : r.metrics) n += kMetricFrame + 6 * m.name.size() + kNumber;
  return n;
}

}  // namespace

void check_ledger_outcomes(const LedgerRecord& r, const SourceLocation& at, std::vector<InputError>& errors) {
  const LedgerRecordLimits& lim = kLedgerRecordLimits;
  check_text(r.family, "family", true, at, errors);
  if (r.family.size() > lim.max_family_bytes) errors.emplace_back(at, "family", "longer than " + std::to_string(lim.max_family_bytes) + " bytes");
  if (r.metrics.size() > lim.max_metrics)
    errors.emplace_back(at, "metrics", "more than " + std::to_string(lim.max_metrics) + " metrics on one record");
  for (std::size_t i = 0; i < r.metrics.size() && i < lim.max_metrics; ++i) {
    const RunMetric& m = r.metrics[i];
    const std::size_t before = errors.size();
    check_text(m.name, "metrics", true, at, errors);
    if (errors.size() != before) continue;
    if (m.name.empty() || m.name.size() > lim.max_metric_name_bytes)
      errors.emplace_back(at, "metrics", "a metric name must be 1 to " + std::to_string(lim.max_metric_name_bytes) + " bytes");
    else if (!(std::isfinite(m.value) && std::abs(m.value) <= lim.max_abs_metric))
      errors.emplace_back(at, "metrics", "metric '" + m.name + "': expected a finite number of magnitude at most 1e15");
    for (std::size_t j = 0; j < i; ++j)
      if (r.metrics[j].name == m.name) errors.emplace_back(at, "metrics", "metric '" + m.name + "' is given twice");
  }
  if (r.utilization) check_number(*r.utilization, "utilization", 1.0, at, errors);
  check_number(r.samples, "samples", lim.max_samples, at, errors);
  check_number(r.requests, "requests", lim.max_requests, at, errors);
  if (r.restore_seconds) check_number(*r.restore_seconds, "restore_seconds", lim.max_restore_seconds, at, errors);
}

void check_summed_fields(const LedgerRecord& r, const SourceLocation& at, std::vector<InputError>& errors) {
  const LedgerRecordLimits& lim = kLedgerRecordLimits;
  check_text(r.experiment, "experiment", false, at, errors);
  check_text(r.team, "team", false, at, errors);
  check_text(r.user, "user", false, at, errors);
  check_text(r.provider, "provider", false, at, errors);
  const bool date_ok = r.date.size() == 10 && is_calendar_date(r.date) &&
                       std::stoi(r.date.substr(0, 4)) >= lim.min_year && std::stoi(r.date.substr(0, 4)) <= lim.max_year;
  if (!date_ok) {
    const bool printable = bad_utf8_at(r.date) == std::string_view::npos && r.date.size() <= 32 &&
                           r.date.find_first_of(std::string("\0\n\r\t", 4)) == std::string::npos;
    errors.emplace_back(at, "date", "expected a calendar date YYYY-MM-DD in the years " + std::to_string(lim.min_year) + "-" +
                                        std::to_string(lim.max_year) + (printable ? ", got \"" + r.date + "\"" : ""));
  }
  if (!is_currency_code(r.currency)) errors.emplace_back(at, "currency", "expected a three-letter currency code such as USD");
  check_number(r.cost, "cost", lim.max_cost, at, errors);
}

void check_ledger_record(const LedgerRecord& r, const SourceLocation& at, std::vector<InputError>& errors) {
  const LedgerRecordLimits& lim = kLedgerRecordLimits;
  const std::size_t before = errors.size();
  check_text(r.id, "id", true, at, errors);
  if (r.id.size() > lim.max_id_bytes)
    errors.emplace_back(at, "id", "longer than " + std::to_string(lim.max_id_bytes) + " bytes");
  check_summed_fields(r, at, errors);
  check_number(r.gpu_hours, "gpu_hours", lim.max_gpu_hours, at, errors);
  check_number(r.tokens, "tokens", lim.max_tokens, at, errors);
  check_ledger_outcomes(r, at, errors);
  if (errors.size() != before || longest_line(r) <= kMaxLedgerLineBytes) return;
  // Only now is the record safe to serialise (nlohmann refuses invalid UTF-8 with an exception).
  LedgerRecord located = r;
  located.where = at;
  (void)ledger_line(located);  // throws the line-limit InputError
}

void require_valid_records(const std::vector<LedgerRecord>& records) {
  std::vector<InputError> errors;
  for (const auto& r : records) {
    if (errors.size() >= 100) break;
    try {
      check_ledger_record(r, r.where, errors);
    } catch (const InputError& e) {
      errors.push_back(e);
    }
  }
  if (!errors.empty()) throw InputErrors(std::move(errors));
}

}  // namespace gpuplan::io
