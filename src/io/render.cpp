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

}  // namespace

std::string render_table(const Table& t, bool color) {
  std::vector<std::size_t> w(t.columns.size(), 0);
  for (std::size_t c = 0; c < t.columns.size(); ++c) w[c] = width_of(t.columns[c]);
  for (const auto& r : t.rows)
    for (std::size_t c = 0; c < r.size() && c < w.size(); ++c) w[c] = std::max(w[c], width_of(r[c]));
  auto align = [&](std::size_t c) { return c < t.align.size() ? t.align[c] : Align::left; };
  std::string out;
  if (!t.title.empty()) out += (color ? "\033[1m" + t.title + "\033[0m" : t.title) + "\n";
  std::string head;
  for (std::size_t c = 0; c < t.columns.size(); ++c) head += (c ? "  " : "") + pad(t.columns[c], w[c], align(c));
  while (!head.empty() && head.back() == ' ') head.pop_back();
  out += (color ? "\033[4m" + head + "\033[0m" : head) + "\n";
  for (const auto& r : t.rows) {
    std::string line;
    for (std::size_t c = 0; c < t.columns.size(); ++c) line += (c ? "  " : "") + pad(c < r.size() ? r[c] : "", w[c], align(c));
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

std::string render_csv(const Table& t) {
  std::string out;
  for (std::size_t c = 0; c < t.columns.size(); ++c) out += (c ? "," : "") + csv_field(t.columns[c]);
  out += "\n";
  for (const auto& r : t.rows) {
    for (std::size_t c = 0; c < t.columns.size(); ++c) out += (c ? "," : "") + csv_field(c < r.size() ? r[c] : "");
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
