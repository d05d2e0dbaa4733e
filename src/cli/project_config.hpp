#pragma once
// `.gpuplan.yaml`: the defaults a team shares (catalogs, currency, policy, ledger, profile),
// found upward from the working directory or named by --config. Flags given on the command
// line win; the file fills only what they leave unset. Paths are relative to the file.
#include <optional>
#include <string>
#include <vector>

#include "cli/common.hpp"

namespace gpuplan::cli {

struct ProjectConfig {
  std::string path;                   // the file read
  std::vector<std::string> catalogs;  // extra catalogs, before any --catalog
  std::string currency, policy, ledger, profile;
};

// Parses a config file's text; unknown keys, lists where one value belongs and empty values
// are InputErrors at file:line.
ProjectConfig parse_project_config(const std::string& text, const std::string& path);

// `explicit_path` (--config) when given, else the nearest .gpuplan.yaml from the working
// directory up to the filesystem root; nullopt when there is none.
std::optional<ProjectConfig> find_project_config(const std::string& explicit_path);

// Fills each of the command's unset settings (and the global --catalog and --profile) from the
// project config, if there is one.
struct ConfigTargets {
  std::string* policy = nullptr;
  std::string* ledger = nullptr;
  std::string* currency = nullptr;
};
void apply_project_config(Context& ctx, const std::string& explicit_path, const ConfigTargets& targets);

}  // namespace gpuplan::cli
