#include "io/render/render.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace gpuplan::io {
namespace {

// Display width of UTF-8 text: count code points, not bytes (the bar uses multi-byte blocks).
std::size_t width_of(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}

std::string pad(const std::string& s, std::size_t w, Align a) {
  const std::size_t have = width_of(s);
  if (have >= w) return s;
  const std::string fill(w - have, ' ');
  return a == Align::right ? fill + s : s + fill;
}

// The first `n` code points of `s`, with an ellipsis when cut.
std::string cut(const std::string& s, std::size_t n) {
  if (width_of(s) <= n) return s;
  std::string out;
  std::size_t seen = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if ((c & 0xC0) != 0x80 && ++seen > n - 1) break;
    out += s[i];
  }
  return out + "…";
}

// Column widths for the shown columns (indices into the table), fitted to `max_width` (0: no
// limit): a trailing left-aligned text column wraps first, then cuttable columns are narrowed.
struct Layout {
  std::vector<std::size_t> shown;  // table column indices, in order
  std::vector<std::size_t> w;      // width per shown column
  bool wrap_last = false, cut_any = false;
  std::size_t total() const {
    std::size_t n = w.empty() ? 0 : 2 * (w.size() - 1);
    for (auto x : w) n += x;
    return n;
  }
};

Align align_of(const Table& t, std::size_t c) { return c < t.align.size() ? t.align[c] : Align::left; }

// Narrows the widest cuttable columns until the line fits `max_width`; true when any was cut.
bool fit_widths(Layout& l, const Table& t, std::size_t max_width) {
  const std::size_t kMinCut = t.min_cut;
  auto cuttable = [&](std::size_t i) { return std::find(t.cuttable.begin(), t.cuttable.end(), l.shown[i]) != t.cuttable.end(); };
  bool cut_any = false;
  while (max_width > 0 && l.total() > max_width) {
    std::size_t widest = l.w.size();
    for (std::size_t i = 0; i < l.w.size(); ++i)
      if (cuttable(i) && l.w[i] > kMinCut && (widest == l.w.size() || l.w[i] > l.w[widest])) widest = i;
    if (widest == l.w.size()) break;  // nothing left to narrow
    // Leave room for a trailing text column to wrap into rather than cut everything to the bone.
    if (align_of(t, l.shown.back()) == Align::left && l.shown.back() != l.shown[widest]) {
      std::size_t others = l.total() - l.w.back();
      if (others <= max_width - std::min<std::size_t>(max_width, 16)) break;
    }
    l.w[widest] = std::max(kMinCut, l.w[widest] - std::min(l.w[widest] - kMinCut, l.total() - max_width));
    cut_any = true;
  }
  return cut_any;
}

Layout layout(const Table& t, std::vector<std::size_t> shown, std::size_t max_width) {
  Layout l;
  l.shown = std::move(shown);
  for (std::size_t c : l.shown) {
    std::size_t width = width_of(t.columns[c]);
    for (const auto& r : t.rows)
      if (c < r.size()) width = std::max(width, width_of(r[c]));
    l.w.push_back(width);
  }
  // A trailing text column (a "why") wraps onto more lines before anything is cut, and again
  // once cutting the others has left it room.
  auto wrap_last = [&] {
    if (max_width == 0 || l.w.empty() || align_of(t, l.shown.back()) != Align::left) return;
    const std::size_t last = l.w.size() - 1;
    std::size_t others = 2 * last;
    for (std::size_t i = 0; i < last; ++i) others += l.w[i];
    if (others + l.w[last] > max_width && others + 16 <= max_width) {
      l.w[last] = max_width - others;
      l.wrap_last = true;
    }
  };
  wrap_last();
  l.cut_any = fit_widths(l, t, max_width);
  if (!l.wrap_last && l.total() > max_width) wrap_last();
  return l;
}

// The layout that fits: drop the `droppable` columns, least important first, until it does.
Layout fitted_layout(const Table& t, std::size_t max_width, std::vector<std::string>& dropped) {
  std::vector<std::size_t> shown(t.columns.size());
  for (std::size_t c = 0; c < shown.size(); ++c) shown[c] = c;
  // A name cut below this many characters stops saying which offer it is: leave a column out first.
  constexpr std::size_t kReadable = 24;
  auto good = [&](const Layout& l) {
    if (max_width == 0) return true;
    if (l.total() > max_width) return false;
    for (std::size_t i = 0; i < l.shown.size(); ++i)
      if (std::find(t.cuttable.begin(), t.cuttable.end(), l.shown[i]) != t.cuttable.end() && l.w[i] < kReadable &&
          l.w[i] < layout(t, {l.shown[i]}, 0).w[0])
        return false;
    return true;
  };
  Layout l = layout(t, shown, max_width);
  for (std::size_t c : t.droppable) {
    if (good(l)) break;
    const auto it = std::find(shown.begin(), shown.end(), c);
    if (it == shown.end()) continue;
    shown.erase(it);
    dropped.push_back(t.columns[c]);
    l = layout(t, shown, max_width);
  }
  return l;
}

// A copy of the table with every title, header and cell printable.
Table printable_table(const Table& t) {
  Table p = t;
  p.title = printable(t.title);
  for (auto& c : p.columns) c = printable(c);
  for (auto& r : p.rows)
    for (auto& c : r) c = printable(c);
  return p;
}

bool is_number(const std::string& s) {
  if (s.empty()) return false;
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

const char* const kZwsp = "\xE2\x80\x8B";  // U+200B ZERO WIDTH SPACE
const char* const kReplacement = "\xEF\xBF\xBD";  // U+FFFD

}  // namespace

std::string printable(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const bool c1 = c == 0xC2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
                    static_cast<unsigned char>(s[i + 1]) <= 0x9F;
    if (c < 0x20 || c == 0x7F || c1) {
      out += kReplacement;
      if (c1) ++i;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::string csv_cell(const std::string& raw) {
  std::string s = printable(raw);
  if (!s.empty() && std::string("=+-@").find(s.front()) != std::string::npos && !is_number(s)) s.insert(0, "'");
  if (s.find_first_of(",\"") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string markdown_text(const std::string& raw) {
  const std::string s = printable(raw);
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else if (std::string("\\`*_[]()~!|#").find(c) != std::string::npos) out += std::string("\\") + c;
    else if (c == '@') out += std::string("@") + kZwsp;  // no @mention, no email autolink
    else if (c == ':' && s.compare(i + 1, 2, "//") == 0) out += std::string(":") + kZwsp;  // no http:// autolink
    else if (c == '.' && i >= 3 && (s.compare(i - 3, 3, "www") == 0 || s.compare(i - 3, 3, "WWW") == 0)) out += std::string(kZwsp) + ".";
    else out += c;
  }
  return out;
}

std::string markdown_code(const std::string& raw) {
  if (raw.empty()) return "";
  std::string s = printable(raw);
  std::size_t longest = 0, run = 0;
  for (char c : s) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  std::string body;
  for (char c : s) body += c == '|' ? std::string("\\|") : std::string(1, c);  // a pipe ends a table cell even in code
  const std::string fence(longest + 1, '`');
  const bool pad = s.front() == '`' || s.back() == '`' || s.front() == ' ';
  return fence + (pad ? " " : "") + body + (pad ? " " : "") + fence;
}

// Word-wraps `s` into lines of at most `width` code points (a longer word stays whole, on its own line).
std::vector<std::string> wrap(const std::string& s, std::size_t width) {
  std::vector<std::string> lines{""};
  std::size_t start = 0;
  while (start <= s.size()) {
    std::size_t end = s.find(' ', start);
    if (end == std::string::npos) end = s.size();
    const std::string word = s.substr(start, end - start);
    std::string& last = lines.back();
    if (!last.empty() && width_of(last) + 1 + width_of(word) > width) lines.push_back(word);
    else last += (last.empty() ? "" : " ") + word;
    start = end + 1;
  }
  return lines;
}

std::string render_table(const Table& table, bool color, std::size_t max_width) {
  const Table t = printable_table(table);
  std::vector<std::string> dropped;
  const Layout l = fitted_layout(t, max_width, dropped);
  const std::size_t last = l.w.empty() ? 0 : l.w.size() - 1;
  auto emit = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (std::size_t i = 0; i < l.shown.size(); ++i) {
      const std::size_t c = l.shown[i];
      line += (i ? "  " : "") + pad(cut(c < cells.size() ? cells[c] : "", l.w[i]), l.w[i], align_of(t, c));
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    return line + "\n";
  };
  std::string out;
  if (!t.title.empty())
    for (const auto& line : max_width ? wrap(t.title, max_width) : std::vector<std::string>{t.title})
      out += (color ? "\033[1m" + line + "\033[0m" : line) + "\n";
  std::string head = emit(t.columns);
  head.pop_back();
  out += (color ? "\033[4m" + head + "\033[0m" : head) + "\n";
  for (const auto& r : t.rows) {
    const std::size_t lc = l.shown.empty() ? 0 : l.shown[last];
    if (!l.wrap_last || r.size() <= lc) {
      out += emit(r);
      continue;
    }
    const auto parts = wrap(r[lc], l.w[last]);
    std::vector<std::string> cells = r;
    for (std::size_t i = 0; i < parts.size(); ++i) {
      if (i > 0) cells.assign(r.size(), "");
      cells[lc] = parts[i];
      out += emit(cells);
    }
  }
  if (l.cut_any) out += "(long names cut to fit " + std::to_string(max_width) + " columns: --wide or --format json shows them whole)\n";
  if (!dropped.empty()) {
    std::string names;
    for (const auto& d : dropped) names += (names.empty() ? "" : ", ") + d;
    out += "(left out to fit " + std::to_string(max_width) + " columns: " + names + "; --wide shows them)\n";
  }
  return out;
}

std::string render_csv(const Table& t) {
  const bool raw = !t.csv_columns.empty();
  const auto& columns = raw ? t.csv_columns : t.columns;
  const auto& rows = raw ? t.csv_rows : t.rows;
  std::string out;
  for (std::size_t c = 0; c < columns.size(); ++c) out += (c ? "," : "") + csv_cell(columns[c]);
  out += "\n";
  for (const auto& r : rows) {
    for (std::size_t c = 0; c < columns.size(); ++c) out += (c ? "," : "") + csv_cell(c < r.size() ? r[c] : "");
    out += "\n";
  }
  return out;
}

std::string render_markdown(const Table& t) {
  auto is_name = [&](std::size_t c) { return std::find(t.name_columns.begin(), t.name_columns.end(), c) != t.name_columns.end(); };
  std::string out;
  if (!t.title.empty()) out += "**" + markdown_text(t.title) + "**\n\n";
  out += "|";
  for (const auto& c : t.columns) out += " " + markdown_text(c) + " |";
  out += "\n|";
  for (std::size_t c = 0; c < t.columns.size(); ++c)
    out += (c < t.align.size() && t.align[c] == Align::right) ? "---:|" : "---|";
  out += "\n";
  for (const auto& r : t.rows) {
    out += "|";
    for (std::size_t c = 0; c < t.columns.size(); ++c) {
      const std::string& v = c < r.size() ? r[c] : std::string();
      out += " " + (is_name(c) ? markdown_code(v) : markdown_text(v)) + " |";
    }
    out += "\n";
  }
  return out;
}

std::string bar(double share, int width) {
  share = std::clamp(share, 0.0, 1.0);
  const int eighths = static_cast<int>(std::lround(share * width * 8));
  static const char* const kParts[] = {"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};
  std::string out;
  for (int i = 0; i < eighths / 8; ++i) out += "█";
  out += kParts[eighths % 8];
  return out;
}

}  // namespace gpuplan::io
