#pragma once
// Splitting a text file's contents into numbered lines, for the line-oriented readers (demand
// files and scheduler job logs) that report errors as FILE:LINE.
#include <string_view>
#include <vector>

namespace gpuplan::io {

struct Line {
  int number = 0;
  std::string_view text;  // without the line ending
};

// Lines with CRLF or LF endings; a UTF-8 byte order mark at the start is dropped.
inline std::vector<Line> split_lines(std::string_view text) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  std::vector<Line> out;
  int n = 0;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.push_back(Line{++n, line});
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return out;
}

// Without leading and trailing spaces and tabs.
inline std::string_view trim_blanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace gpuplan::io
