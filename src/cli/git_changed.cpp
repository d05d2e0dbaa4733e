#include "cli/git_changed.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>

#include "cli/common.hpp"

extern char** environ;

namespace gpuplan::cli {
namespace {

std::string read_all(int fd) {
  std::string out;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) out.append(buf, static_cast<std::size_t>(n));
    else if (n == 0 || errno != EINTR) break;
  }
  return out;
}

std::string canonical_of(const std::string& p) {
  std::error_code ec;
  const auto c = std::filesystem::weakly_canonical(p, ec);
  return ec ? p : c.string();
}

}  // namespace

std::vector<std::string> git_changed_files(const std::string& base) {
  if (base.empty() || base.front() == '-') bad_flag("--changed", "expected a git revision such as origin/main, got \"" + base + "\"");
  int out_pipe[2], err_pipe[2];
  if (::pipe(out_pipe) != 0) bad_flag("--changed", "cannot start git");
  if (::pipe(err_pipe) != 0) {
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    bad_flag("--changed", "cannot start git");
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err_pipe[1], STDERR_FILENO);
  posix_spawn_file_actions_addclose(&actions, out_pipe[0]);
  posix_spawn_file_actions_addclose(&actions, err_pipe[0]);
  std::vector<std::string> args = {"git", "diff", "--name-only", "-z", "--relative", "--diff-filter=d", "--end-of-options", base, "--"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, "git", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  // git's stderr is a line or two when it fails and empty when it lists files, so reading the
  // two in turn cannot fill a pipe and stall.
  const std::string listed = rc == 0 ? read_all(out_pipe[0]) : "";
  const std::string complaint = rc == 0 ? read_all(err_pipe[0]) : "";
  ::close(out_pipe[0]);
  ::close(err_pipe[0]);
  if (rc != 0) bad_flag("--changed", "cannot run git: " + std::string(std::strerror(rc)));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::string why = complaint;
    while (!why.empty() && (why.back() == '\n' || why.back() == '\r')) why.pop_back();
    bad_flag("--changed", "git diff against \"" + base + "\" failed" + (why.empty() ? "" : ": " + why));
  }
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < listed.size()) {
    const std::size_t end = listed.find('\0', start);
    const std::size_t stop = end == std::string::npos ? listed.size() : end;
    if (stop > start) out.push_back(listed.substr(start, stop - start));
    start = stop + 1;
  }
  return out;
}

std::vector<std::string> only_changed(const std::vector<std::string>& files, const std::string& base) {
  std::set<std::string> changed;
  for (const auto& f : git_changed_files(base)) changed.insert(canonical_of(f));
  std::vector<std::string> out;
  for (const auto& f : files)
    if (changed.count(canonical_of(f))) out.push_back(f);
  return out;
}

}  // namespace gpuplan::cli
