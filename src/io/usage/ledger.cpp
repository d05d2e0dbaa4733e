#include "io/usage/ledger.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <chrono>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <thread>
#include <unordered_set>

#include "gpuplan/units.hpp"
#include "io/text/files.hpp"
#include "io/usage/ledger_flat_line.hpp"
#include "io/usage/ledger_record_check.hpp"

namespace gpuplan::io {

namespace {

}  // namespace

// One metric: {"name": "eval_loss", "value": 1.82, "better": "lower"}.
static void read_metric(const nlohmann::json& m, LedgerRecord& r, const SourceLocation& at, std::vector<InputError>& errors) {
  const auto name = m.is_object() ? m.find("name") : m.end();
  const auto value = m.is_object() ? m.find("value") : m.end();
  const auto better = m.is_object() ? m.find("better") : m.end();
  const bool ok = m.is_object() && m.size() == 3 && name != m.end() && name->is_string() && value != m.end() && value->is_number() &&
                  better != m.end() && better->is_string() && (*better == "lower" || *better == "higher");
  if (!ok) {
    errors.emplace_back(at, "metrics", "expected {\"name\": text, \"value\": number, \"better\": \"lower\" or \"higher\"} per metric");
    return;
  }
  r.metrics.push_back({name->get<std::string>(), value->get<double>(), *better == "higher"});
}

// The optional measured outcomes; a record written before they existed has none of them.
void read_outcomes(const nlohmann::json& j, LedgerRecord& r, const SourceLocation& at, std::vector<InputError>& errors) {
  auto number = [&](const char* key) -> std::optional<double> {
    const auto it = j.find(key);
    if (it == j.end()) return std::nullopt;
    if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() < 0) {
      errors.emplace_back(at, key, "expected a non-negative number");
      return std::nullopt;
    }
    return it->get<double>();
  };
  if (const auto it = j.find("family"); it != j.end()) {
    if (it->is_string()) r.family = it->get<std::string>();
    else errors.emplace_back(at, "family", "expected a string");
  }
  if (const auto it = j.find("metrics"); it != j.end()) {
    if (!it->is_array()) errors.emplace_back(at, "metrics", "expected an array of metrics");
    else
      for (const auto& m : *it) read_metric(m, r, at, errors);
  }
  r.utilization = number("utilization");
  r.samples = number("samples").value_or(0);
  r.requests = number("requests").value_or(0);
  r.restore_seconds = number("restore_seconds");
}

LedgerRecord parse_ledger_object(const nlohmann::json& j, const SourceLocation& at, std::vector<InputError>& errors) {
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
  r.experiment = str("experiment", true);
  r.team = str("team", false);
  r.user = str("user", false);
  r.provider = str("provider", false);
  r.currency = str("currency", true);
  r.cost = number("cost", true);
  r.gpu_hours = number("gpu_hours", false);
  r.tokens = number("tokens", false);
  r.id = str("id", false);
  read_outcomes(j, r, at, errors);
  return r;
}

namespace {

[[noreturn]] void fail_errno(const std::string& path, const std::string& what, int err) {
  throw InputError(SourceLocation{path, 0, 0}, "ledger", what + ": " + std::strerror(err));
}

// Opens without blocking (a FIFO would otherwise hang) and refuses what is not a regular file.
// Writers pass O_NOFOLLOW: a ledger that is a symlink (to ~/.bashrc, say) is never appended to.
int open_regular(const std::string& path, int flags) {
  const int fd = ::open(path.c_str(), flags | O_NONBLOCK | O_CLOEXEC, 0644);
  if (fd < 0) {
    if (errno == ENOENT) throw InputError(SourceLocation{path, 0, 0}, "", "cannot open file: no such file");
    if (errno == ELOOP && (flags & O_NOFOLLOW))
      throw InputError(SourceLocation{path, 0, 0}, "", "is a symbolic link; a ledger written to must be a plain file (name its target instead)");
    fail_errno(path, "cannot open", errno);
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    const char* kind = S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                       : S_ISDIR(st.st_mode) ? "a directory" : S_ISSOCK(st.st_mode) ? "a socket" : "not a regular file";
    throw InputError(SourceLocation{path, 0, 0}, "", std::string("is ") + kind + ", not a regular file (a ledger must be a plain file)");
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  if (!(flags & (O_WRONLY | O_RDWR))) note_input_file(fd);
  return fd;
}

// Calls `line(text, number, terminated)` for each line of the file, reading it in chunks.
void for_each_line(int fd, const std::string& path, const std::function<void(const std::string&, int, bool)>& line) {
  std::string pending;
  std::vector<char> buf(1 << 20);
  int number = 0;
  off_t at = 0;
  for (;;) {
    const ssize_t n = ::pread(fd, buf.data(), buf.size(), at);
    if (n < 0) fail_errno(path, "read failed", errno);
    if (n == 0) break;
    at += n;
    std::size_t from = 0;
    for (;;) {
      const char* nl = static_cast<const char*>(std::memchr(buf.data() + from, '\n', static_cast<std::size_t>(n) - from));
      if (!nl) break;
      const std::size_t end = static_cast<std::size_t>(nl - buf.data());
      pending.append(buf.data() + from, end - from);
      line(pending, ++number, true);
      pending.clear();
      from = end + 1;
    }
    pending.append(buf.data() + from, static_cast<std::size_t>(n) - from);
    if (pending.size() > kMaxLedgerLineBytes)
      throw InputError(SourceLocation{path, number + 1, 1}, "",
                       "record longer than the " + std::to_string(kMaxLedgerLineBytes / 1024) + " KiB ledger line limit");
  }
  if (!pending.empty()) line(pending, ++number, false);
}

// True when `row` fails only because it ends too soon: what an interrupted append leaves.
bool cut_short(const std::string& row) {
  try {
    [[maybe_unused]] const nlohmann::json whole = nlohmann::json::parse(row);  // GCC ignores a (void) cast here
    return false;
  } catch (const nlohmann::json::parse_error& e) {
    return e.byte >= row.size();
  } catch (const nlohmann::json::exception&) {
    return false;  // e.g. 1e400: complete, but out of range
  }
}

void parse_row(const std::string& row, int line, bool terminated, const std::string& path,
               const std::function<void(LedgerRecord&&)>& visit, std::vector<std::string>& warnings,
               std::vector<InputError>& errors) {
  if (row.find_first_not_of(" \t\r") == std::string::npos) return;
  const SourceLocation at{path, line, 1};
  if (row.size() > kMaxLedgerLineBytes) {
    errors.emplace_back(at, "", "record longer than the " + std::to_string(kMaxLedgerLineBytes / 1024) + " KiB ledger line limit");
    return;
  }
  const std::size_t before = errors.size();
  // Most lines take the fast reader; any it is not sure of take the full parse, whose messages
  // every error keeps.
  std::optional<LedgerRecord> flat = read_flat_ledger_line(row, at);
  if (!flat) {
    const nlohmann::json j = nlohmann::json::parse(row, nullptr, false);
    if (j.is_discarded()) {
      // Torn = cut short. A whole line that is well-formed JSON but fails to load (1e400
      // overflows a double) is a bad record, not an interrupted append.
      if (!terminated && cut_short(row)) {
        warnings.push_back(path + ":" + std::to_string(line) + ": torn last record (no newline, not valid JSON) skipped; an append was interrupted");
        return;
      }
      errors.emplace_back(at, "", "not valid JSON");
      return;
    }
    flat = parse_ledger_object(j, at, errors);
  }
  LedgerRecord& r = *flat;
  if (errors.size() == before) {
    try {
      check_ledger_record(r, at, errors);
    } catch (const InputError& e) {
      errors.push_back(e);
    }
  }
  if (errors.size() == before) visit(std::move(r));
}

// The ids among `wanted` that the file already holds.
std::unordered_set<std::string> ids_present(int fd, const std::string& path, const std::unordered_set<std::string>& wanted) {
  std::unordered_set<std::string> found;
  if (wanted.empty()) return found;
  std::vector<std::string> needles;
  if (wanted.size() <= 16)
    for (const auto& id : wanted) needles.push_back(nlohmann::json(id).dump());
  for_each_line(fd, path, [&](const std::string& row, int, bool) {
    // A line another JSON writer escaped ("caf\u00e9", even the key) is always parsed: the
    // needles are spelled as this writer spells them.
    const bool escaped = row.find('\\') != std::string::npos;
    if (!escaped && row.find("\"id\"") == std::string::npos) return;
    // Few ids: parse only the lines that contain one of them; many (an import): parse each line.
    if (!escaped && !needles.empty() && std::none_of(needles.begin(), needles.end(), [&](const std::string& n) { return row.find(n) != std::string::npos; }))
      return;
    const nlohmann::json j = nlohmann::json::parse(row, nullptr, false);
    if (!j.is_object()) return;
    const auto it = j.find("id");
    if (it != j.end() && it->is_string() && wanted.count(it->get<std::string>())) found.insert(it->get<std::string>());
  });
  return found;
}

void lock_with_timeout(int fd, const std::string& path, double timeout_s) {
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    if (::flock(fd, LOCK_EX | LOCK_NB) == 0) return;
    if (errno != EWOULDBLOCK && errno != EINTR) fail_errno(path, "cannot lock", errno);
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (waited >= timeout_s) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.0f", timeout_s);
      throw InputError(SourceLocation{path, 0, 0}, "ledger",
                       std::string("another process has held the lock on ") + path + " for " + buf +
                           " s; gave up (see who holds it with `fuser " + path + "`; GPUPLAN_LEDGER_LOCK_TIMEOUT sets the wait)");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

// A file whose first line does not open a JSON object is not a ledger (a shell profile, a
// config): appending to it, or cutting its "torn" tail off, would damage someone's file.
void require_ledger_head(int fd, const std::string& path) {
  char head[256];
  const ssize_t n = ::pread(fd, head, sizeof head, 0);
  if (n < 0) fail_errno(path, "read failed", errno);
  for (ssize_t i = 0; i < n; ++i) {
    if (head[i] == ' ' || head[i] == '\t' || head[i] == '\r' || head[i] == '\n') continue;
    if (head[i] == '{') return;
    throw InputError(SourceLocation{path, 1, 1}, "ledger",
                     "not a JSON Lines ledger (the first line is not a JSON object); nothing was written");
  }
}

// A last line without a newline is either a record whose writer died before finishing it (cut
// short: every completed append ends in a newline and only then reports success, so nothing
// committed is lost by cutting it off) or a whole record another tool wrote without a final
// newline (kept: `prefix` becomes "\n" so the next record starts a line of its own). Any other
// tail is refused. Called under the lock; returns the size to append at.
off_t settle_tail(int fd, const std::string& path, off_t size, std::string& warning, std::string& prefix) {
  char last = '\n';
  if (size == 0 || ::pread(fd, &last, 1, size - 1) != 1 || last == '\n') return size;
  std::vector<char> buf(kMaxLedgerLineBytes + 1);
  const off_t from = std::max<off_t>(0, size - static_cast<off_t>(buf.size()));
  const ssize_t n = ::pread(fd, buf.data(), static_cast<std::size_t>(size - from), from);
  if (n < 0) fail_errno(path, "read failed", errno);
  off_t keep = -1;
  for (ssize_t i = n - 1; i >= 0 && keep < 0; --i)
    if (buf[static_cast<std::size_t>(i)] == '\n') keep = from + i + 1;
  if (keep < 0 && from > 0)
    throw InputError(SourceLocation{path, 0, 0}, "ledger",
                     "the last line is longer than the " + std::to_string(kMaxLedgerLineBytes / 1024) + " KiB ledger line limit");
  if (keep < 0) keep = 0;
  const std::string tail(buf.data() + (keep - from), static_cast<std::size_t>(size - keep));
  const std::size_t first = tail.find_first_not_of(" \t\r");
  if (first == std::string::npos || nlohmann::json::parse(tail, nullptr, false).is_object()) {
    prefix = "\n";
    return size;
  }
  if (tail[first] != '{' || !cut_short(tail))
    throw InputError(SourceLocation{path, 0, 0}, "ledger",
                     "the last line is neither a record nor one cut short by an interrupted append; nothing was written (fix it by hand)");
  if (::ftruncate(fd, keep) != 0) fail_errno(path, "cannot remove a torn last record", errno);
  warning = path + ": removed a torn last record (" + std::to_string(size - keep) + " bytes) left by an interrupted append";
  return keep;
}

// Writes all of `out` at the end of the file; on any failure cuts the file back to `size`.
void write_or_restore(int fd, const std::string& path, const std::string& out, off_t size) {
  std::size_t done = 0;
  int err = 0;
  while (done < out.size()) {
    const ssize_t n = ::write(fd, out.data() + done, out.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      err = n < 0 ? errno : EIO;
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  if (err == 0 && ::fsync(fd) != 0) err = errno;
  if (err == 0) return;
  const bool restored = ::ftruncate(fd, size) == 0 && ::fsync(fd) == 0;
  throw InputError(SourceLocation{path, 0, 0}, "ledger",
                   std::string("append failed: ") + std::strerror(err) +
                       (restored ? "; the file is unchanged" : "; could not cut the partial record back off, fix the last line by hand"));
}

}  // namespace

void add_outcomes(nlohmann::json& j, const LedgerRecord& r) {
  if (!r.family.empty()) j["family"] = r.family;
  if (!r.metrics.empty()) {
    j["metrics"] = nlohmann::json::array();
    for (const auto& m : r.metrics) j["metrics"].push_back({{"name", m.name}, {"value", m.value}, {"better", m.higher_is_better ? "higher" : "lower"}});
  }
  if (r.utilization) j["utilization"] = *r.utilization;
  if (r.samples > 0) j["samples"] = r.samples;
  if (r.requests > 0) j["requests"] = r.requests;
  if (r.restore_seconds) j["restore_seconds"] = *r.restore_seconds;
}

void scan_ledger_file(const std::string& path, const std::function<void(LedgerRecord&&)>& visit,
                      std::vector<std::string>& warnings) {
  const int fd = open_regular(path, O_RDONLY);
  std::vector<InputError> errors;
  try {
    for_each_line(fd, path, [&](const std::string& row, int line, bool terminated) {
      if (errors.size() < 100) parse_row(row, line, terminated, path, visit, warnings, errors);
    });
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  if (!errors.empty()) throw InputErrors(std::move(errors));
}

LedgerLoad read_ledger(const std::string& path) {
  LedgerLoad out;
  scan_ledger_file(path, [&](LedgerRecord&& r) { out.records.push_back(std::move(r)); }, out.warnings);
  return out;
}

LedgerLoad parse_ledger(const std::string& text, const std::string& path) {
  LedgerLoad out;
  std::vector<InputError> errors;
  int line = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    const std::size_t nl = text.find('\n', pos);
    const bool terminated = nl != std::string::npos;
    const std::string row = text.substr(pos, terminated ? nl - pos : std::string::npos);
    pos = terminated ? nl + 1 : text.size();
    parse_row(row, ++line, terminated, path, [&](LedgerRecord&& r) { out.records.push_back(std::move(r)); }, out.warnings, errors);
  }
  if (!errors.empty()) throw InputErrors(std::move(errors));
  return out;
}

std::string ledger_line(const LedgerRecord& r) {
  nlohmann::json j = {{"date", r.date}, {"experiment", r.experiment}, {"cost", r.cost}, {"currency", r.currency}};
  if (!r.id.empty()) j["id"] = r.id;
  if (!r.team.empty()) j["team"] = r.team;
  if (!r.user.empty()) j["user"] = r.user;
  if (!r.provider.empty()) j["provider"] = r.provider;
  if (r.gpu_hours > 0) j["gpu_hours"] = r.gpu_hours;
  if (r.tokens > 0) j["tokens"] = r.tokens;
  add_outcomes(j, r);
  std::string line = j.dump();
  if (line.size() > kMaxLedgerLineBytes)
    throw InputError(SourceLocation{r.where.path, r.where.line, 0}, "",
                     "record longer than the " + std::to_string(kMaxLedgerLineBytes / 1024) + " KiB ledger line limit");
  return line;
}

AppendResult append_ledger(const std::string& path, const std::vector<LedgerRecord>& records, double lock_timeout_s) {
  require_valid_records(records);  // before the file is even opened: a bad record writes nothing
  std::string out;
  const int fd = open_regular(path, O_RDWR | O_APPEND | O_CREAT | O_NOFOLLOW);
  try {
    lock_with_timeout(fd, path, lock_timeout_s);
    require_ledger_head(fd, path);
    std::unordered_set<std::string> wanted;
    for (const auto& r : records)
      if (!r.id.empty()) wanted.insert(r.id);
    std::unordered_set<std::string> seen = ids_present(fd, path, wanted);
    std::size_t added = 0;
    for (const auto& r : records) {
      if (!r.id.empty() && !seen.insert(r.id).second) continue;
      out += ledger_line(r) + "\n";
      ++added;
    }
    AppendResult result;
    result.added = added;
    off_t size = ::lseek(fd, 0, SEEK_END);
    std::string prefix;
    if (!out.empty()) size = settle_tail(fd, path, size, result.warning, prefix);
    if (!out.empty()) write_or_restore(fd, path, prefix + out, size);
    ::close(fd);  // releases the lock
    return result;
  } catch (...) {
    ::close(fd);
    throw;
  }
}

}  // namespace gpuplan::io
