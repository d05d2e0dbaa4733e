#include "io/text/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>
#include <utility>

#include "gpuplan/error.hpp"

namespace gpuplan::io {

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& problem) { throw InputError({path, 0, 0}, "", problem); }

std::string errno_text(int err) {
  if (err == ENOENT) return "no such file";
  if (err == ELOOP) return "too many levels of symbolic links";
  return std::strerror(err);
}

// What a non-regular file is, for the message.
const char* kind_of(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO (named pipe)";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  if (S_ISLNK(m)) return "a symbolic link";
  return "not a regular file";
}

std::string read_fd(int fd, const std::string& path, std::uint64_t max_bytes) {
  std::string data;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(path, std::string("read failed: ") + std::strerror(errno));
    if (n == 0) return data;
    data.append(buf, static_cast<std::size_t>(n));
    if (data.size() > max_bytes)
      fail(path, "file is larger than the " + std::to_string(max_bytes / (1024 * 1024)) + " MiB input limit");
  }
}

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// The files this process has read, by device and inode (names differ: ./a, a, a link to a).
std::mutex inputs_mutex;
bool tracking = false;
std::set<std::pair<dev_t, ino_t>>& inputs() {
  static std::set<std::pair<dev_t, ino_t>> files;
  return files;
}

}  // namespace

void track_inputs(bool on) {
  std::lock_guard<std::mutex> lock(inputs_mutex);
  tracking = on;
  if (!on) inputs().clear();
}

void note_input_file(int fd) {
  if (!tracking) return;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return;
  std::lock_guard<std::mutex> lock(inputs_mutex);
  inputs().insert({st.st_dev, st.st_ino});
}

void note_input_path(const std::string& path) {
  if (!tracking) return;
  struct stat st {};
  if (path == "-" || ::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;
  std::lock_guard<std::mutex> lock(inputs_mutex);
  inputs().insert({st.st_dev, st.st_ino});
}

void require_not_an_input(const std::string& path) {
  struct stat st {};
  if (path == "-" || ::stat(path.c_str(), &st) != 0) return;
  std::lock_guard<std::mutex> lock(inputs_mutex);
  if (inputs().count({st.st_dev, st.st_ino}))
    fail(path, "is also an input of this command; refusing to overwrite it (write the output to another file)");
}

void require_regular_file(const std::string& path) {
  if (path == "-") return;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) fail(path, "cannot open file: " + errno_text(errno));
  if (S_ISDIR(st.st_mode)) fail(path, "is a directory, expected a file");
  if (!S_ISREG(st.st_mode)) fail(path, std::string("is ") + kind_of(st.st_mode) + ", not a regular file");
}

std::string read_file(const std::string& path, std::uint64_t max_bytes) {
  if (path == "-") {
    static bool used = false;  // a second "-" would silently read nothing
    if (used) fail(path, "standard input is already read by another input");
    used = true;
    return read_fd(STDIN_FILENO, "<stdin>", max_bytes);
  }
  Fd in;
  in.fd = open_regular_file(path);
  return read_fd(in.fd, path, max_bytes);
}

int open_regular_file(const std::string& path) {
  require_regular_file(path);  // before open(): opening a FIFO blocks until a writer comes
  Fd in;
  in.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (in.fd < 0) fail(path, "cannot open file: " + errno_text(errno));
  struct stat st {};  // the file opened may not be the one checked: check it again
  if (::fstat(in.fd, &st) != 0 || !S_ISREG(st.st_mode)) fail(path, "is not a regular file");
  note_input_file(in.fd);
  ::fcntl(in.fd, F_SETFL, ::fcntl(in.fd, F_GETFL) & ~O_NONBLOCK);
  const int fd = in.fd;
  in.fd = -1;
  return fd;
}

bool write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return false;
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

void write_file_atomic(const std::string& path, const std::string& contents) {
  if (path == "-") {
    std::fflush(stdout);
    if (!write_all(STDOUT_FILENO, contents.data(), contents.size())) fail("<stdout>", std::string("write failed: ") + std::strerror(errno));
    return;
  }
  require_not_an_input(path);
  mode_t mode = 0;
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode)) fail(path, std::string("is ") + kind_of(st.st_mode) + ": refusing to replace it with a regular file");
    mode = st.st_mode & 07777;
  } else if (errno != ENOENT) {
    fail(path, "cannot write: " + errno_text(errno));
  } else {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    mode = 0666 & ~mask;
  }
  const std::filesystem::path target(path);
  const std::string dir = target.has_parent_path() ? target.parent_path().string() : ".";
  std::string tmp = (std::filesystem::path(dir) / ("." + target.filename().string() + ".XXXXXX")).string();
  Fd out;
  out.fd = ::mkstemp(tmp.data());  // O_EXCL: never follows a planted link, never truncates
  if (out.fd < 0) fail(path, "cannot create a temporary file in " + dir + ": " + std::strerror(errno));
  auto abandon = [&](const char* step) {
    const std::string why = std::strerror(errno);
    ::unlink(tmp.c_str());
    fail(path, std::string(step) + " failed: " + why);
  };
  if (::fchmod(out.fd, mode) != 0) abandon("chmod");
  if (!write_all(out.fd, contents.data(), contents.size())) abandon("write");
  if (::fsync(out.fd) != 0) abandon("fsync");
  const int fd = out.fd;
  out.fd = -1;
  if (::close(fd) != 0) abandon("close");
  if (::rename(tmp.c_str(), path.c_str()) != 0) abandon("rename");
}

}  // namespace gpuplan::io
