// libFuzzer target: the CLI's argument handling. Each input line is one argument. Arguments
// that name an existing path are dropped, so the fuzzer never reads devices or large files.
#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/app.hpp"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Results are not the point; keep stdout quiet.
  if (!std::freopen("/dev/null", "w", stdout)) return 0;
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> args{"gpuplan"};
  std::string cur;
  for (std::size_t i = 0; i < size && args.size() < 64; ++i) {
    const char c = static_cast<char>(data[i]);
    if (c == '\n' || c == '\0') {
      args.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) args.push_back(cur);
  std::vector<char*> argv;
  for (auto& a : args) {
    struct stat st;
    if (argv.size() > 0 && !a.empty() && ::stat(a.c_str(), &st) == 0) continue;
    argv.push_back(a.data());
  }
  argv.push_back(nullptr);
  (void)gpuplan::cli::run(static_cast<int>(argv.size() - 1), argv.data());
  return 0;
}
