#include "io/render.hpp"

#include <algorithm>
#include <cmath>

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

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
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

// Narrows the widest cuttable columns until the line fits `max_width`; true when any was cut.
bool fit_widths(std::vector<std::size_t>& w, const Table& t, std::size_t max_width) {
  constexpr std::size_t kMinCut = 12;
  auto total = [&] {
    std::size_t n = w.empty() ? 0 : 2 * (w.size() - 1);
    for (auto x : w) n += x;
    return n;
  };
  bool cut_any = false;
  while (max_width > 0 && total() > max_width) {
    std::size_t widest = w.size();
    for (std::size_t c : t.cuttable)
      if (c < w.size() && w[c] > kMinCut && (widest == w.size() || w[c] > w[widest])) widest = c;
    if (widest == w.size()) break;  // nothing left to narrow
    w[widest] = std::max(kMinCut, w[widest] - std::min(w[widest] - kMinCut, total() - max_width));
    cut_any = true;
  }
  return cut_any;
}

}  // namespace

// Word-wraps `s` into lines of at most `width` code points (a longer word is cut).
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

std::string render_table(const Table& t, bool color, std::size_t max_width) {
  std::vector<std::size_t> w(t.columns.size(), 0);
  for (std::size_t c = 0; c < t.columns.size(); ++c) w[c] = width_of(t.columns[c]);
  for (const auto& r : t.rows)
    for (std::size_t c = 0; c < r.size() && c < w.size(); ++c) w[c] = std::max(w[c], width_of(r[c]));
  auto align = [&](std::size_t c) { return c < t.align.size() ? t.align[c] : Align::left; };
  // A trailing text column (a "why") wraps onto more lines before anything is cut.
  const std::size_t last = w.empty() ? 0 : w.size() - 1;
  bool wrap_last = false;
  if (max_width > 0 && !w.empty() && align(last) == Align::left) {
    std::size_t others = 2 * last;
    for (std::size_t c = 0; c < last; ++c) others += w[c];
    if (others + w[last] > max_width && others + 24 <= max_width) {
      w[last] = max_width - others;
      wrap_last = true;
    }
  }
  const bool cut_any = fit_widths(w, t, max_width);
  auto pad = [&](const std::string& s, std::size_t width, Align a) { return io::pad(cut(s, width), width, a); };
  auto emit = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (std::size_t c = 0; c < t.columns.size(); ++c) line += (c ? "  " : "") + pad(c < cells.size() ? cells[c] : "", w[c], align(c));
    while (!line.empty() && line.back() == ' ') line.pop_back();
    return line + "\n";
  };
  std::string out;
  if (!t.title.empty()) out += (color ? "\033[1m" + t.title + "\033[0m" : t.title) + "\n";
  std::string head = emit(t.columns);
  head.pop_back();
  out += (color ? "\033[4m" + head + "\033[0m" : head) + "\n";
  for (const auto& r : t.rows) {
    if (!wrap_last || r.size() <= last) {
      out += emit(r);
      continue;
    }
    const auto parts = wrap(r[last], w[last]);
    std::vector<std::string> cells = r;
    for (std::size_t i = 0; i < parts.size(); ++i) {
      if (i > 0) cells.assign(r.size(), "");
      cells[last] = parts[i];
      out += emit(cells);
    }
  }
  if (cut_any) out += "(long names cut to fit " + std::to_string(max_width) + " columns: --wide or --format json shows them whole)\n";
  return out;
}

std::string render_csv(const Table& t) {
  const bool raw = !t.csv_columns.empty();
  const auto& columns = raw ? t.csv_columns : t.columns;
  const auto& rows = raw ? t.csv_rows : t.rows;
  std::string out;
  for (std::size_t c = 0; c < columns.size(); ++c) out += (c ? "," : "") + csv_field(columns[c]);
  out += "\n";
  for (const auto& r : rows) {
    for (std::size_t c = 0; c < columns.size(); ++c) out += (c ? "," : "") + csv_field(c < r.size() ? r[c] : "");
    out += "\n";
  }
  return out;
}

std::string render_markdown(const Table& t) {
  auto cell = [](std::string s) {
    std::string out;
    for (char c : s) {
      if (c == '|') out += "\\|";
      else if (c == '\n') out += ' ';
      else out += c;
    }
    return out;
  };
  std::string out;
  if (!t.title.empty()) out += "**" + cell(t.title) + "**\n\n";
  out += "|";
  for (const auto& c : t.columns) out += " " + cell(c) + " |";
  out += "\n|";
  for (std::size_t c = 0; c < t.columns.size(); ++c)
    out += (c < t.align.size() && t.align[c] == Align::right) ? "---:|" : "---|";
  out += "\n";
  for (const auto& r : t.rows) {
    out += "|";
    for (std::size_t c = 0; c < t.columns.size(); ++c) out += " " + cell(c < r.size() ? r[c] : "") + " |";
    out += "\n";
  }
  return out;
}

std::string bar(double share, int width) {
  share = std::clamp(share, 0.0, 1.0);
  const int eighths = static_cast<int>(std::lround(share * width * 8));
  static const char* kParts[] = {"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};
  std::string out;
  for (int i = 0; i < eighths / 8; ++i) out += "█";
  out += kParts[eighths % 8];
  return out;
}

}  // namespace gpuplan::io
