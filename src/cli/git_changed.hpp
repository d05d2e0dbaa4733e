#pragma once
// `check --changed BASE`: the files that differ from a git base, asked of git itself.
#include <string>
#include <vector>

namespace gpuplan::cli {

// Paths (relative to the working directory) of files added or modified between `base` and the
// working tree, from `git diff --name-only` run as a child process (no shell: `base` is one
// argument, after --end-of-options, so it can never be read as an option or a command).
// Exits 2 naming --changed when git is missing, this is not a repository or `base` is unknown.
std::vector<std::string> git_changed_files(const std::string& base);

// The spec files among `files` that git lists as changed against `base`.
std::vector<std::string> only_changed(const std::vector<std::string>& files, const std::string& base);

}  // namespace gpuplan::cli
