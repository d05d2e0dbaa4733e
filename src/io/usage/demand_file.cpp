#include "io/usage/demand_file.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>
#include <string_view>

#include "gpuplan/error.hpp"
#include "gpuplan/name_match.hpp"
#include "gpuplan/units.hpp"
#include "gpuplan/demand.hpp"
#include "io/text/files.hpp"
#include "io/text/text_lines.hpp"
#include "io/usage/job_log.hpp"

namespace gpuplan::io {
namespace {

constexpr double kMaxGpus = 100000;  // average GPUs busy in one period

[[noreturn]] void fail(const std::string& path, int line, int column, const std::string& field, const std::string& problem) {
  throw InputError(SourceLocation{path, line, column}, field, problem);
}




void check_text(const std::string& path, const Line& l) {
  for (std::size_t i = 0; i < l.text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(l.text[i]);
    if (c == 0 || (c < 0x20 && c != '\t'))
      fail(path, l.number, static_cast<int>(i) + 1, "", "control character in a text file (is this a binary file?)");
  }
}

// A finite plain decimal: 12, 12.5, .5, -3 (the sign is let through so negatives are named).
std::optional<double> plain_number(std::string_view s) {
  if (s.empty()) return std::nullopt;
  std::size_t i = 0;
  if (s[0] == '-') i = 1;
  bool digits = false, dot = false;
  for (std::size_t j = i; j < s.size(); ++j) {
    if (std::isdigit(static_cast<unsigned char>(s[j]))) digits = true;
    else if (s[j] == '.' && !dot) dot = true;
    else return std::nullopt;
  }
  if (!digits) return std::nullopt;
  double v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

// Days since 1970-01-01 for a valid YYYY-MM-DD, else nullopt (Feb 30 refused).
std::optional<long> date_days(std::string_view s) {
  if (!is_calendar_date(s)) return std::nullopt;
  const int y = std::stoi(std::string(s.substr(0, 4))), m = std::stoi(std::string(s.substr(5, 2))),
            d = std::stoi(std::string(s.substr(8, 2)));
  // Howard Hinnant's days_from_civil.
  const int yy = y - (m <= 2 ? 1 : 0);
  const int era = yy / 400;
  const int yoe = yy - era * 400;
  const int doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return static_cast<long>(era) * 146097 + doe - 719468;
}

std::string civil(long days) {
  days += 719468;
  const long era = days / 146097;
  const long doe = days - era * 146097;
  const long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const long mp = (5 * doy + 2) / 153;
  const long d = doy - (153 * mp + 2) / 5 + 1;
  const long m = mp < 10 ? mp + 3 : mp - 9;
  const long y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  auto pad = [](long v, std::size_t width) {
    std::string t = std::to_string(v);
    return std::string(t.size() < width ? width - t.size() : 0, '0') + t;
  };
  return pad(y, 4) + "-" + pad(m, 2) + "-" + pad(d, 2);
}

double period_hours_of(const std::string& period) { return period == "week" ? 168.0 : 24.0; }

// One value of the profile: GPU-hours, or average GPUs busy, checked and converted to GPU-hours.
double demand_value(const std::string& path, int line, int column, const std::string& field, std::string_view text,
                    double period_hours) {
  if (text.empty() || text == "~" || text == "null")
    fail(path, line, column, field, "empty value: a gap in the profile (write 0 for a period with no demand)");
  const auto v = plain_number(text);
  if (!v) fail(path, line, column, field, "expected a plain number, got \"" + std::string(text) + "\"");
  if (*v < 0) fail(path, line, column, field, "must not be negative, got " + std::string(text));
  const bool gpus = field.rfind("gpus", 0) == 0;
  const double max = gpus ? kMaxGpus : kMaxGpus * period_hours;
  if (*v > max) fail(path, line, column, field, "more than " + std::to_string(static_cast<long>(max)) + (gpus ? " GPUs" : " GPU-hours") + " in one period");
  return gpus ? *v * period_hours : *v;
}

void add_period(DemandProfile& p, const std::string& path, int line, double gpu_hours) {
  if (p.gpu_hours.size() >= kMaxDemandPeriods)
    fail(path, line, 1, "", "more than " + std::to_string(kMaxDemandPeriods) + " periods (aggregate days into weeks)");
  p.gpu_hours.push_back(gpu_hours);
}

std::string unquote(std::string_view v) {
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) return std::string(v.substr(1, v.size() - 2));
  return std::string(v);
}

// Drops a YAML comment: '#' at the start or after whitespace.
std::string_view strip_comment(std::string_view s) {
  for (std::size_t i = 0; i < s.size(); ++i)
    if (s[i] == '#' && (i == 0 || s[i - 1] == ' ' || s[i - 1] == '\t')) return s.substr(0, i);
  return s;
}

int column_of(const Line& l, std::string_view part) { return static_cast<int>(part.data() - l.text.data()) + 1; }

}  // namespace

DemandProfile parse_demand_csv(const std::string& text, const std::string& path) {
  DemandProfile p;
  p.path = path;
  std::string value_field;
  bool header = false, dated = false;
  long prev = 0;
  int prev_line = 0;
  for (const Line& l : split_lines(text)) {
    check_text(path, l);
    const std::string_view t = trim_blanks(l.text);
    if (t.empty() || t.front() == '#') continue;
    if (t.find('"') != std::string_view::npos)
      fail(path, l.number, column_of(l, t.substr(t.find('"'))), "", "quoted fields are not supported in a demand file");
    std::vector<std::string_view> fields;
    std::string_view rest = l.text;
    while (true) {
      const auto comma = rest.find(',');
      fields.push_back(trim_blanks(rest.substr(0, comma)));
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
    if (!header) {
      if (fields.size() != 2)
        fail(path, l.number, 1, "", "expected a header of two columns, day or week and gpu_hours or gpus (e.g. \"day,gpu_hours\")");
      if (fields[0] != "day" && fields[0] != "week")
        fail(path, l.number, column_of(l, fields[0]), std::string(fields[0]), "the first column must be named day or week");
      if (fields[1] != "gpu_hours" && fields[1] != "gpus")
        fail(path, l.number, column_of(l, fields[1]), std::string(fields[1]), "the second column must be named gpu_hours or gpus");
      p.period = std::string(fields[0]);
      p.period_hours = period_hours_of(p.period);
      value_field = std::string(fields[1]);
      header = true;
      continue;
    }
    if (fields.size() != 2)
      fail(path, l.number, 1, "", "expected 2 fields (" + p.period + "," + value_field + "), got " + std::to_string(fields.size()));
    // The period: a date or a running number, each exactly one period after the last.
    const std::string_view key = fields[0];
    const int key_col = column_of(l, key);
    long at = 0;
    const bool is_date = key.size() == 10 && key[4] == '-';
    if (is_date) {
      const auto d = date_days(key);
      if (!d) fail(path, l.number, key_col, p.period, "not a valid date (YYYY-MM-DD): \"" + std::string(key) + "\"");
      at = *d;
    } else {
      const auto n = plain_number(key);
      if (!n || *n != std::floor(*n) || std::fabs(*n) > 1e9)
        fail(path, l.number, key_col, p.period, "expected a date (YYYY-MM-DD) or a whole period number, got \"" + std::string(key) + "\"");
      at = static_cast<long>(*n);
    }
    if (p.gpu_hours.empty()) {
      dated = is_date;
      if (dated) p.start = std::string(key);
    } else {
      if (is_date != dated)
        fail(path, l.number, key_col, p.period, "mixes dates and period numbers (line " + std::to_string(prev_line) + " has the other kind)");
      const long step = dated && p.period == "week" ? 7 : 1;
      if (at != prev + step) {
        const std::string want = dated ? civil(prev + step) : std::to_string(prev + step);
        const char* what = at <= prev ? "out of order or repeated" : "a gap";
        fail(path, l.number, key_col, p.period,
             std::string(what) + ": expected " + want + " after line " + std::to_string(prev_line) + ", got " + std::string(key));
      }
    }
    prev = at;
    prev_line = l.number;
    add_period(p, path, l.number, demand_value(path, l.number, column_of(l, fields[1]), value_field, fields[1], p.period_hours));
  }
  if (!header) fail(path, 1, 1, "", "empty demand file: expected a header such as \"day,gpu_hours\" and one row per period");
  if (p.gpu_hours.empty()) fail(path, prev_line ? prev_line : 1, 1, "", "no periods after the header");
  return p;
}

DemandProfile parse_demand_yaml(const std::string& text, const std::string& path) {
  DemandProfile p;
  p.path = path;
  struct Raw {
    int line = 0, column = 0;
    std::string value;
  };
  std::optional<Raw> period, start;
  std::string list_key;
  int list_line = 0;
  std::vector<Raw> items;
  bool in_list = false, seen_content = false;
  for (const Line& l : split_lines(text)) {
    check_text(path, l);
    if (l.text.find('\t') != std::string_view::npos)
      fail(path, l.number, static_cast<int>(l.text.find('\t')) + 1, "", "tabs are not allowed in YAML indentation");
    const std::string_view t = trim_blanks(strip_comment(l.text));
    if (t.empty()) continue;
    if (t == "---" && !seen_content) continue;
    seen_content = true;
    const bool indented = l.text.front() == ' ';
    if (t.front() == '-' && (t.size() == 1 || t[1] == ' ')) {
      if (!in_list) fail(path, l.number, column_of(l, t), "", "a list item outside gpu_hours: or gpus:");
      const std::string_view v = trim_blanks(t.substr(1));
      items.push_back(Raw{l.number, v.empty() ? column_of(l, t) : column_of(l, v), unquote(v)});
      continue;
    }
    if (indented)
      fail(path, l.number, column_of(l, t), "", "expected a top-level key or a list item (a demand file is flat: period, start, gpu_hours or gpus)");
    in_list = false;
    const auto colon = t.find(':');
    if (colon == std::string_view::npos || (colon + 1 < t.size() && t[colon + 1] != ' '))
      fail(path, l.number, 1, "", "expected \"key: value\", got \"" + std::string(t) + "\"");
    const std::string key(trim_blanks(t.substr(0, colon)));
    const std::string_view value = trim_blanks(t.substr(colon + 1));
    const int vcol = value.empty() ? column_of(l, t) + static_cast<int>(colon) + 1 : column_of(l, value);
    auto once = [&](bool seen) {
      if (seen) fail(path, l.number, 1, key, "repeated key");
    };
    if (key == "period") {
      once(period.has_value());
      period = Raw{l.number, vcol, unquote(value)};
    } else if (key == "start") {
      once(start.has_value());
      start = Raw{l.number, vcol, unquote(value)};
    } else if (key == "gpu_hours" || key == "gpus") {
      if (!list_key.empty())
        fail(path, l.number, 1, key, list_key == key ? "repeated key" : "give gpu_hours or gpus, not both");
      list_key = key;
      list_line = l.number;
      if (value.empty()) {
        in_list = true;
      } else if (value.front() == '[' && value.back() == ']') {
        std::string_view inner = value.substr(1, value.size() - 2);
        if (!trim_blanks(inner).empty()) {
          while (true) {
            const auto comma = inner.find(',');
            const std::string_view item = trim_blanks(inner.substr(0, comma));
            items.push_back(Raw{l.number, column_of(l, item), unquote(item)});
            if (comma == std::string_view::npos) break;
            inner.remove_prefix(comma + 1);
          }
        }
      } else {
        fail(path, l.number, vcol, key, "expected a list of numbers, one per period (\"- 120\" lines or [120, 96, ...])");
      }
    } else {
      const std::string near = closest_name(key, {"period", "start", "gpu_hours", "gpus"});
      fail(path, l.number, 1, key, "unknown key" + (near.empty() ? std::string() : " (did you mean '" + near + "'?)") +
                                       "; expected period, start, gpu_hours or gpus");
    }
  }
  if (!period) fail(path, 1, 1, "period", "missing: write \"period: day\" or \"period: week\"");
  if (period->value != "day" && period->value != "week")
    fail(path, period->line, period->column, "period", "expected day or week, got \"" + period->value + "\"");
  p.period = period->value;
  p.period_hours = period_hours_of(p.period);
  if (start) {
    if (!date_days(start->value)) fail(path, start->line, start->column, "start", "not a valid date (YYYY-MM-DD): \"" + start->value + "\"");
    p.start = start->value;
  }
  if (list_key.empty()) fail(path, 1, 1, "gpu_hours", "missing: list the GPU-hours per period under gpu_hours: (or average GPUs under gpus:)");
  if (items.empty()) fail(path, list_line, 1, list_key, "no periods listed");
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string field = list_key + "[" + std::to_string(i + 1) + "]";
    add_period(p, path, items[i].line, demand_value(path, items[i].line, items[i].column, field, items[i].value, p.period_hours));
  }
  return p;
}

DemandProfile profile_of_jobs(const DemandSummary& d, const std::string& path) {
  // A job history: its GPU-hours per UTC day, first to last day it touches.
  if (d.jobs == 0) throw InputError(SourceLocation{path, 0, 0}, "", "no job that used a GPU and ran (check AllocTRES/gpus)");
  if (d.daily_gpu_hours.size() > kMaxDemandPeriods)
    throw InputError(SourceLocation{path, 0, 0}, "", "more than " + std::to_string(kMaxDemandPeriods) + " days of jobs");
  DemandProfile p;
  p.path = path;
  p.period = "day";
  p.period_hours = 24;
  p.start = civil(d.first_day);
  p.gpu_hours = d.daily_gpu_hours;
  p.from_jobs = true;
  p.jobs = d.jobs;
  p.jobs_peak_gpus = d.peak_gpus;
  return p;
}

DemandProfile load_demand_profile(const std::string& path) {
  const std::string text = io::read_file(path);
  if (looks_like_job_log(text)) return profile_of_jobs(summarise_demand(parse_job_log(text, path).jobs), path);
  const bool csv_name = path.size() >= 4 && path.compare(path.size() - 4, 4, ".csv") == 0;
  bool csv = csv_name;
  if (!csv) {
    const bool yaml_name = (path.size() >= 5 && path.compare(path.size() - 5, 5, ".yaml") == 0) ||
                           (path.size() >= 4 && path.compare(path.size() - 4, 4, ".yml") == 0);
    if (!yaml_name) {
      // Sniff: the first line that is not a comment has a comma in a CSV.
      for (const Line& l : split_lines(text)) {
        const std::string_view t = trim_blanks(l.text);
        if (t.empty() || t.front() == '#') continue;
        csv = t.find(',') != std::string_view::npos && t.find(':') == std::string_view::npos;
        break;
      }
    }
  }
  return csv ? parse_demand_csv(text, path) : parse_demand_yaml(text, path);
}

}  // namespace gpuplan::io
