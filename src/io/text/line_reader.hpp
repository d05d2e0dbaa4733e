#pragma once
// A line-oriented file read in fixed-size chunks rather than whole: memory stays at one chunk
// plus the longest line, so a year of a cluster's scheduler log (hundreds of MB) is read without
// a whole-file cap. Each line is capped instead (a binary file or a missing newline is refused at
// the line where it passes the cap, naming file and line).
#include <cstddef>
#include <string>

#include "io/text/text_lines.hpp"

namespace gpuplan::io {

// Longest line a line reader accepts.
inline constexpr std::size_t kMaxLineBytes = 1u << 20;

class LineReader {
 public:
  // Opens `path` with read_file's checks (a regular file; a FIFO or device is refused).
  explicit LineReader(const std::string& path, std::size_t max_line_bytes = kMaxLineBytes);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  // The next line, numbered from 1, without its LF or CRLF ending (a UTF-8 byte order mark at
  // the start of the file dropped), as split_lines() splits a whole text; false at the end.
  // `line.text` stays valid until the next call.
  bool next(Line& line);

 private:
  bool fill();  // appends one chunk; false at the end of the file

  std::string path_;
  std::size_t max_line_;
  int fd_ = -1;
  std::string buf_;
  std::size_t pos_ = 0;
  int number_ = 0;
  bool eof_ = false;
};

}  // namespace gpuplan::io
