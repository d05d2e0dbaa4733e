#include "io/ledger.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "gpuplan/units.hpp"
#include "io/files.hpp"

namespace gpuplan::io {

namespace {

LedgerRecord parse_record(const nlohmann::json& j, const SourceLocation& at, std::vector<InputError>& errors) {
  LedgerRecord r;
  r.where = at;
  if (!j.is_object()) {
    errors.emplace_back(at, "", "expected a JSON object per line");
    return r;
  }
  auto str = [&](const char* key, bool required) -> std::string {
    const auto it = j.find(key);
    if (it == j.end()) {
      if (required) errors.emplace_back(at, key, "missing required field");
      return "";
    }
    if (!it->is_string()) {
      errors.emplace_back(at, key, "expected a string");
      return "";
    }
    return it->get<std::string>();
  };
  auto number = [&](const char* key, bool required) -> double {
    const auto it = j.find(key);
    if (it == j.end()) {
      if (required) errors.emplace_back(at, key, "missing required field");
      return 0;
    }
    if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() < 0) {
      errors.emplace_back(at, key, "expected a non-negative number");
      return 0;
    }
    return it->get<double>();
  };
  r.date = str("date", true);
  if (!r.date.empty() && !is_calendar_date(r.date)) errors.emplace_back(at, "date", "expected YYYY-MM-DD, got \"" + r.date + "\"");
  r.experiment = str("experiment", true);
  r.team = str("team", false);
  r.user = str("user", false);
  r.provider = str("provider", false);
  r.currency = str("currency", true);
  r.cost = number("cost", true);
  r.gpu_hours = number("gpu_hours", false);
  return r;
}

}  // namespace

LedgerLoad read_ledger(const std::string& path) { return parse_ledger(read_file(path), path); }

namespace {
// True when `row` fails only because it ends too soon: what an interrupted append leaves.
bool cut_short(const std::string& row) {
  try {
    (void)nlohmann::json::parse(row);
    return false;
  } catch (const nlohmann::json::parse_error& e) {
    return e.byte >= row.size();
  } catch (const nlohmann::json::exception&) {
    return false;  // e.g. 1e400: complete, but out of range
  }
}
}  // namespace

LedgerLoad parse_ledger(const std::string& text, const std::string& path) {
  LedgerLoad out;
  std::vector<InputError> errors;
  int line = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    const std::size_t nl = text.find('\n', pos);
    const bool last_unterminated = nl == std::string::npos;
    const std::string row = text.substr(pos, last_unterminated ? std::string::npos : nl - pos);
    pos = last_unterminated ? text.size() : nl + 1;
    ++line;
    if (row.find_first_not_of(" \t\r") == std::string::npos) continue;
    const SourceLocation at{path, line, 1};
    nlohmann::json j = nlohmann::json::parse(row, nullptr, false);
    if (j.is_discarded()) {
      // Torn = cut short. A whole line that is well-formed JSON but fails to load (1e400
      // overflows a double) is a bad record, not an interrupted append.
      if (last_unterminated && cut_short(row)) {
        out.warnings.push_back(path + ":" + std::to_string(line) + ": torn last record (no newline, not valid JSON) skipped; an append was interrupted");
        continue;
      }
      errors.emplace_back(at, "", "not valid JSON");
      continue;
    }
    LedgerRecord r = parse_record(j, at, errors);
    out.records.push_back(std::move(r));
  }
  if (!errors.empty()) throw InputErrors(std::move(errors));
  return out;
}

std::string ledger_line(const LedgerRecord& r) {
  nlohmann::json j = {{"date", r.date}, {"experiment", r.experiment}, {"cost", r.cost}, {"currency", r.currency}};
  if (!r.team.empty()) j["team"] = r.team;
  if (!r.user.empty()) j["user"] = r.user;
  if (!r.provider.empty()) j["provider"] = r.provider;
  if (r.gpu_hours > 0) j["gpu_hours"] = r.gpu_hours;
  return j.dump();
}

void append_ledger(const std::string& path, const LedgerRecord& r) {
  auto fail = [&](const char* what) {
    throw InputError(SourceLocation{path, 0, 0}, "ledger", std::string(what) + ": " + std::strerror(errno));
  };
  const int fd = ::open(path.c_str(), O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) fail("cannot open for appending");
  if (::flock(fd, LOCK_EX) != 0) {
    ::close(fd);
    fail("cannot lock");
  }
  std::string out;
  // A torn line from an interrupted append stays on its own line rather than merging with ours.
  const off_t size = ::lseek(fd, 0, SEEK_END);
  if (size > 0) {
    char last = '\n';
    if (::pread(fd, &last, 1, size - 1) == 1 && last != '\n') out += '\n';
  }
  out += ledger_line(r) + "\n";
  const ssize_t n = ::write(fd, out.data(), out.size());
  const bool ok = n == static_cast<ssize_t>(out.size()) && ::fsync(fd) == 0;
  ::flock(fd, LOCK_UN);
  ::close(fd);
  if (!ok) fail("write failed");
}

}  // namespace gpuplan::io
