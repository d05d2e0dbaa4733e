#include "io/usage/job_log.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <map>
#include <optional>
#include <stdexcept>
#include <string_view>

#include "gpuplan/error.hpp"
#include "io/text/files.hpp"
#include "io/text/line_reader.hpp"
#include "io/text/text_lines.hpp"

namespace gpuplan::io {

namespace {

constexpr long long kMaxGpusPerJob = 100000;
constexpr double kMaxJobDays = 400;      // far past any scheduler's time limit
constexpr double kMaxLogYears = 20;      // bounds the per-day series and the chart




std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

struct Cell {
  std::string_view text;
  int column = 1;
};

// The cells of a line into `out` (cleared first: one vector serves every line of a log).
void split_into(const Line& l, char sep, std::vector<Cell>& out) {
  out.clear();
  std::size_t from = 0;
  while (true) {
    const auto at = l.text.find(sep, from);
    const std::string_view raw = l.text.substr(from, at == std::string_view::npos ? std::string_view::npos : at - from);
    out.push_back({trim_blanks(raw), static_cast<int>(from) + 1});
    if (at == std::string_view::npos) break;
    from = at + 1;
  }
}

std::vector<Cell> split(const Line& l, char sep) {
  std::vector<Cell> out;
  split_into(l, sep, out);
  return out;
}

// Neither blank nor a # comment: where a log's header or a record can be.
bool is_content_line(const Line& l) {
  const auto t = trim_blanks(l.text);
  return !t.empty() && t.front() != '#';
}

const Line* first_line(const std::vector<Line>& lines) {
  for (const Line& l : lines)
    if (is_content_line(l)) return &l;
  return nullptr;
}

std::optional<long long> whole(std::string_view s) {
  long long v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

// Days since 1970-01-01 (Howard Hinnant's days_from_civil) for a valid date.
std::optional<long> civil_days(int y, int m, int d) {
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (m < 1 || m > 12 || d < 1 || d > kDays[m - 1] + (m == 2 && leap)) return std::nullopt;
  const int yy = y - (m <= 2 ? 1 : 0), era = yy / 400, yoe = yy - era * 400;
  const int doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  return static_cast<long>(era) * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
}

// "2026-03-01T10:00:00", "2026-03-01 10:00", a trailing Z: seconds since 1970, read as UTC.
std::optional<double> timestamp(std::string_view s) {
  if (!s.empty() && (s.back() == 'Z' || s.back() == 'z')) s.remove_suffix(1);
  if (s.size() != 16 && s.size() != 19) return std::nullopt;
  if (s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != ' ') || s[13] != ':' || (s.size() == 19 && s[16] != ':'))
    return std::nullopt;
  const auto y = whole(s.substr(0, 4)), mo = whole(s.substr(5, 2)), d = whole(s.substr(8, 2)), h = whole(s.substr(11, 2)),
             mi = whole(s.substr(14, 2)), se = s.size() == 19 ? whole(s.substr(17, 2)) : std::optional<long long>(0);
  if (!y || !mo || !d || !h || !mi || !se || *h > 23 || *mi > 59 || *se > 60) return std::nullopt;
  const auto days = civil_days(static_cast<int>(*y), static_cast<int>(*mo), static_cast<int>(*d));
  if (!days) return std::nullopt;
  return static_cast<double>(*days) * 86400 + static_cast<double>(*h * 3600 + *mi * 60 + *se);
}

std::optional<JobState> state_of(std::string_view s) {
  const std::string w = lower(s.substr(0, s.find(' ')));  // "CANCELLED by 1234"
  static const std::map<std::string, JobState> kStates = {
      {"completed", JobState::completed}, {"failed", JobState::failed},       {"cancelled", JobState::cancelled},
      {"timeout", JobState::timeout},     {"out_of_memory", JobState::out_of_memory}, {"node_fail", JobState::node_fail},
      {"boot_fail", JobState::node_fail}, {"deadline", JobState::timeout},   {"preempted", JobState::preempted},
      {"running", JobState::running},     {"requeued", JobState::preempted}, {"suspended", JobState::other}};
  if (w.empty()) return std::nullopt;
  const auto it = kStates.find(w);
  return it == kStates.end() ? JobState::other : it->second;
}

// GPUs in an AllocTRES list: "gres/gpu=4", or the typed "gres/gpu:a100=4" (summed when only typed).
std::optional<long long> tres_gpus(std::string_view s) {
  std::optional<long long> plain;
  long long typed = 0;
  bool any_typed = false;
  for (std::size_t from = 0; from <= s.size();) {
    const auto comma = s.find(',', from);
    const std::string_view item = s.substr(from, comma == std::string_view::npos ? std::string_view::npos : comma - from);
    const auto eq = item.find('=');
    const std::string_view key = item.substr(0, eq);
    if (eq != std::string_view::npos && (key == "gres/gpu" || key.substr(0, 9) == "gres/gpu:")) {
      const auto v = whole(item.substr(eq + 1));
      if (!v || *v < 0) return std::nullopt;
      if (key == "gres/gpu") plain = *v;
      else typed += *v, any_typed = true;
    }
    if (comma == std::string_view::npos) break;
    from = comma + 1;
  }
  return plain ? *plain : any_typed ? typed : 0;
}

[[noreturn]] void fail(const std::string& path, int line, int column, const std::string& field, const std::string& problem) {
  throw InputError(SourceLocation{path, line, column}, field, problem);
}

// The columns the readers look up, by lower-case name; their positions are found once per log
// (a million-line log looked each name up in a map on every line).
enum Col { kSubmit, kStart, kEnd, kJobId, kState, kAllocTres, kJobName, kUser, kAccount, kPartition, kId, kName, kTeam, kGpus, kCols };
constexpr const char* kColNames[kCols] = {"submit", "start",     "end", "jobid", "state", "alloctres", "jobname",
                                          "user",   "account",   "partition", "id", "name",  "team",      "gpus"};
using Columns = std::array<std::optional<std::size_t>, kCols>;

Columns find_columns(const std::map<std::string, std::size_t>& index) {
  Columns out;
  for (int c = 0; c < kCols; ++c)
    if (const auto it = index.find(kColNames[c]); it != index.end()) out[static_cast<std::size_t>(c)] = it->second;
  return out;
}

// One row's cells by column, with the header's spelling for messages. The three times are read
// once, for the log's cut-off, and kept for the job (nullopt: empty, Unknown, None or unreadable).
struct Row {
  const std::string& path;
  const Line& line;
  const std::vector<Cell>& header;
  const Columns& columns;
  const std::vector<Cell>& cells;
  std::array<std::optional<double>, 3> stamps{};  // kSubmit, kStart, kEnd

  const Cell* cell(Col c) const {
    const auto& at = columns[static_cast<std::size_t>(c)];
    return at ? &cells[*at] : nullptr;
  }
  std::string_view text(Col c) const { return cell(c) ? cell(c)->text : std::string_view(); }
  [[noreturn]] void fail_at(Col name, const std::string& problem) const {
    const Cell* c = cell(name);
    const std::string field = c ? std::string(header[*columns[static_cast<std::size_t>(name)]].text) : kColNames[name];
    fail(path, line.number, c ? c->column : 1, field, problem);
  }
  void read_stamps() {
    for (Col c : {kSubmit, kStart, kEnd}) stamps[static_cast<std::size_t>(c)] = timestamp(text(c));
  }
  // A timestamp (kSubmit, kStart or kEnd), or nullopt for Unknown/None/empty.
  std::optional<double> time(Col name) const {
    const std::string_view t = text(name);
    if (t.empty() || t == "Unknown" || t == "None") return std::nullopt;
    const auto v = stamps[static_cast<std::size_t>(name)];
    if (!v) fail_at(name, "expected a time such as 2026-03-01T10:00:00, got \"" + std::string(t) + "\"");
    return v;
  }
};

void require(const std::map<std::string, std::size_t>& index, const Line& h, const std::string& path,
             const std::vector<std::string>& names, const std::string& what) {
  for (const auto& n : names)
    if (!index.count(n)) fail(path, h.number, 1, n, "missing column: " + what);
}

// Fills the fields both formats share; false when the job never started.
bool read_times(const Row& r, Job& j, bool& running) {
  j.submit = r.time(kSubmit);
  const auto start = r.time(kStart);
  if (!start) return false;
  j.start = *start;
  const auto end = r.time(kEnd);
  running = !end;
  j.end = end.value_or(j.start);
  if (end && *end < j.start) r.fail_at(kEnd, "ends before it starts");
  if (end && *end - j.start > kMaxJobDays * 86400) r.fail_at(kEnd, "runs longer than 400 days: check the times");
  return true;
}

std::optional<Job> sacct_row(const Row& r, JobLog& log) {
  Job j;
  j.id = std::string(r.text(kJobId));
  if (j.id.find('.') != std::string::npos) {  // a step (123.batch, 123.0): its allocation line counts
    ++log.steps_skipped;
    return std::nullopt;
  }
  const auto state = state_of(r.text(kState));
  if (!state) r.fail_at(kState, "empty");
  bool running = false;
  if (lower(r.text(kState)).rfind("pending", 0) == 0 || !read_times(r, j, running)) {
    ++log.pending_skipped;
    return std::nullopt;
  }
  j.state = running ? JobState::running : *state;
  const auto gpus = tres_gpus(r.text(kAllocTres));
  if (!gpus || *gpus > kMaxGpusPerJob)
    r.fail_at(kAllocTres, "expected gres/gpu=N or gres/gpu:TYPE=N, got \"" + std::string(r.text(kAllocTres)) + "\"");
  j.gpus = static_cast<int>(*gpus);
  j.name = std::string(r.text(kJobName));
  j.user = std::string(r.text(kUser));
  j.team = std::string(r.text(kAccount));
  j.partition = std::string(r.text(kPartition));
  return j;
}

std::optional<Job> csv_row(const Row& r, JobLog& log) {
  Job j;
  bool running = false;
  if (!read_times(r, j, running)) r.fail_at(kStart, "missing: every job needs a start time");
  const auto gpus = whole(r.text(kGpus));
  if (!gpus || *gpus < 0 || *gpus > kMaxGpusPerJob)
    r.fail_at(kGpus, "expected a whole number of GPUs (0 to 100000), got \"" + std::string(r.text(kGpus)) + "\"");
  j.gpus = static_cast<int>(*gpus);
  j.state = running ? JobState::running : JobState::completed;
  if (!running && !r.text(kState).empty()) j.state = *state_of(r.text(kState));
  j.id = std::string(r.text(kId));
  j.name = std::string(r.text(kName));
  j.user = std::string(r.text(kUser));
  j.team = std::string(r.cell(kTeam) ? r.text(kTeam) : r.text(kAccount));
  j.partition = std::string(r.text(kPartition));
  (void)log;
  return j;
}

}  // namespace

namespace {

bool is_job_log_header(const Line& h) {
  const std::string t = lower(h.text);
  if (t.find('|') != std::string::npos) return t.find("jobid") != std::string::npos;
  std::map<std::string, int> names;
  for (const Cell& c : split(h, ',')) names[lower(c.text)] = 1;
  return names.count("start") && names.count("end") && names.count("gpus");
}

}  // namespace

bool looks_like_job_log(const std::string& text) {
  const auto lines = split_lines(text);
  const Line* h = first_line(lines);
  return h && is_job_log_header(*h);
}

bool file_looks_like_job_log(const std::string& path) {
  if (path == "-") throw std::logic_error("file_looks_like_job_log: standard input can be read only once");
  LineReader in(path);
  Line l;
  while (in.next(l))
    if (is_content_line(l)) return is_job_log_header(l);
  return false;
}

namespace {

// More GPUs busy at once than any cluster holds is a bad log (21,475 overlapping 100,000-GPU
// jobs overflowed the int the core counts concurrency in, and printed a baseline of -2 billion
// GPUs). The sweep here runs in 64 bits so the core's never has to.
void require_physical_concurrency(const std::vector<Job>& jobs, const std::string& path) {
  constexpr long long kMaxConcurrentGpus = 10000000;
  std::vector<std::pair<double, long long>> events;
  events.reserve(jobs.size() * 2);
  for (const Job& j : jobs)
    if (j.gpus > 0 && j.end > j.start) events.push_back({j.start, j.gpus}), events.push_back({j.end, -static_cast<long long>(j.gpus)});
  std::sort(events.begin(), events.end());  // at one instant, ends (negative) come before starts
  long long level = 0;
  for (const auto& [t, delta] : events)
    if ((level += delta) > kMaxConcurrentGpus)
      fail(path, 1, 1, "gpus", "the jobs overlap to more than 10,000,000 GPUs busy at once: not a cluster's log, check the gpus column");
}

// The log from a source of numbered lines (`next(Line&)` false at the end): a whole text or a
// file read chunk by chunk. The header is copied, since a streamed line lives only until the next.
template <class NextLine>
JobLog parse_lines(NextLine&& next, const std::string& path, std::size_t file_bytes) {
  Line l;
  std::string head_text;
  Line head_line;
  bool found = false;
  while (!found && next(l))
    if (is_content_line(l)) {
      head_text.assign(l.text);
      head_line = Line{l.number, head_text};
      found = true;
    }
  if (!found) fail(path, 1, 1, "", "empty: expected a header (sacct --parsable2, or start,end,gpus,...)");
  const Line* h = &head_line;
  JobLog log;
  const bool sacct = h->text.find('|') != std::string_view::npos;
  log.format = sacct ? "sacct" : "csv";
  const char sep = sacct ? '|' : ',';
  const std::vector<Cell> header = split(*h, sep);
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < header.size(); ++i) index[lower(header[i].text)] = i;
  if (sacct) require(index, *h, path, {"jobid", "start", "end", "alloctres", "state"}, "sacct --parsable2 --format needs JobID, Start, End, AllocTRES, State");
  else require(index, *h, path, {"start", "end", "gpus"}, "a job CSV needs start, end and gpus (and optionally submit, user, team, partition, state)");
  const Columns columns = find_columns(index);
  std::vector<std::size_t> running;
  std::vector<Cell> cells;
  bool reserved = false;
  while (next(l)) {
    if (!is_content_line(l)) continue;
    if (!reserved) {
      // Room for the jobs a file of this size holds at the first line's length: growing by
      // doubling moved every job again and again (a fifth of reading a million-job log). Room
      // never written is never resident, so a log of longer or skipped lines costs nothing.
      log.jobs.reserve(file_bytes / std::max<std::size_t>(l.text.size() + 1, 32));
      reserved = true;
    }
    split_into(l, sep, cells);
    Row r{path, l, header, columns, cells};
    if (r.cells.size() != header.size())
      fail(path, l.number, 1, "", "expected " + std::to_string(header.size()) + " fields, got " + std::to_string(r.cells.size()));
    // The log's cut-off is the latest time on any line (steps and pending jobs included).
    r.read_stamps();
    for (const auto& t : r.stamps)
      if (t) log.cutoff = std::max(log.cutoff, *t);
    auto job = sacct ? sacct_row(r, log) : csv_row(r, log);
    if (!job) continue;
    if (job->state == JobState::running) running.push_back(log.jobs.size());
    log.jobs.push_back(std::move(*job));
  }
  double first = log.cutoff;
  for (const Job& j : log.jobs) first = std::min(first, j.start);
  if (log.cutoff - first > kMaxLogYears * 365.25 * 86400)
    fail(path, h->number, 1, "", "the jobs span more than 20 years: check the times");
  // A running job (End Unknown) has run until the latest time the log shows.
  for (std::size_t i : running) log.jobs[i].end = std::max(log.jobs[i].start, log.cutoff);
  log.running = static_cast<int>(running.size());
  require_physical_concurrency(log.jobs, path);
  return log;
}

}  // namespace

JobLog parse_job_log(const std::string& text, const std::string& path) {
  const auto lines = split_lines(text);
  std::size_t at = 0;
  return parse_lines([&](Line& l) { return at < lines.size() ? (l = lines[at++], true) : false; }, path, text.size());
}

// Streamed: a log of any length is read (standard input, read once, still goes through read_file).
JobLog load_job_log(const std::string& path) {
  if (path == "-") return parse_job_log(read_file(path), path);
  LineReader in(path);
  struct stat st{};
  const std::size_t bytes = ::stat(path.c_str(), &st) == 0 ? static_cast<std::size_t>(st.st_size) : 0;
  return parse_lines([&](Line& l) { return in.next(l); }, path, bytes);
}

}  // namespace gpuplan::io
