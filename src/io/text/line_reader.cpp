#include "io/text/line_reader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "gpuplan/error.hpp"
#include "io/text/files.hpp"

namespace gpuplan::io {

namespace {

constexpr std::size_t kChunkBytes = 1u << 20;

[[noreturn]] void fail(const std::string& path, int line, const std::string& problem) {
  throw InputError(SourceLocation{path, line, line > 0 ? 1 : 0}, "", problem);
}

}  // namespace

LineReader::LineReader(const std::string& path, std::size_t max_line_bytes) : path_(path), max_line_(max_line_bytes) {
  fd_ = open_regular_file(path);
}

LineReader::~LineReader() {
  if (fd_ >= 0) ::close(fd_);
}

bool LineReader::fill() {
  if (eof_) return false;
  if (pos_ > 0) {  // keep only the unfinished line
    buf_.erase(0, pos_);
    pos_ = 0;
  }
  const std::size_t had = buf_.size();
  buf_.resize(had + kChunkBytes);
  ssize_t n;
  do n = ::read(fd_, buf_.data() + had, kChunkBytes);
  while (n < 0 && errno == EINTR);
  if (n < 0) fail(path_, 0, std::string("read failed: ") + std::strerror(errno));
  buf_.resize(had + static_cast<std::size_t>(n));
  eof_ = n == 0;
  return n > 0;
}

bool LineReader::next(Line& line) {
  std::size_t nl;
  while ((nl = buf_.find('\n', pos_)) == std::string::npos) {
    if (buf_.size() - pos_ > max_line_) break;
    if (!fill()) break;
  }
  if (nl == std::string::npos && pos_ == buf_.size()) return false;
  const std::size_t end = nl == std::string::npos ? buf_.size() : nl;
  std::string_view text(buf_.data() + pos_, end - pos_);
  if (number_ == 0 && text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  ++number_;
  if (text.size() > max_line_)
    fail(path_, number_, "line longer than the " + std::to_string(max_line_ / 1024) + " KiB line limit (is this a text file?)");
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
  pos_ = nl == std::string::npos ? buf_.size() : nl + 1;
  line = Line{number_, text};
  return true;
}

}  // namespace gpuplan::io
