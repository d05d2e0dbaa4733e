#include "cli/project_config.hpp"

#include <algorithm>
#include <filesystem>

#include "cli/common.hpp"
#include "gpuplan/name_match.hpp"
#include "io/text/files.hpp"
#include "io/text/flat_yaml.hpp"

namespace gpuplan::cli {
namespace {

namespace fs = std::filesystem;

const char* const kName = ".gpuplan.yaml";

// A path in the config, relative to the config's folder (a URL or an absolute path as is).
std::string resolved(const std::string& v, const std::string& dir) {
  if (v.empty() || v.front() == '/' || v.find("://") != std::string::npos || dir.empty()) return v;
  return (fs::path(dir) / v).string();
}

}  // namespace

ProjectConfig parse_project_config(const std::string& text, const std::string& path) {
  const io::FlatDocument doc = io::parse_flat_yaml(text, path, "project config");
  const std::string dir = fs::path(path).parent_path().string();
  const std::vector<std::string> known = {"catalogs", "currency", "policy", "ledger", "profile"};
  ProjectConfig c;
  c.path = path;
  std::vector<InputError> errors;
  for (const io::FlatEntry& e : doc.entries) {
    if (std::find(known.begin(), known.end(), e.key) == known.end()) {
      const std::string near = closest_name(e.key, known);
      errors.emplace_back(e.where, e.key, "unknown key" + (near.empty() ? std::string() : " (did you mean '" + near + "'?)"));
      continue;
    }
    if (e.key != "catalogs" && e.is_list) {
      errors.emplace_back(e.value_where, e.key, "expected one value, not a list");
      continue;
    }
    bool empty = false;
    for (const auto& v : e.values) empty = empty || v.empty();
    if (empty) {
      errors.emplace_back(e.value_where, e.key, "empty value");
      continue;
    }
    const std::string& v = e.values.front();
    if (e.key == "catalogs")
      for (const auto& one : e.values) c.catalogs.push_back(resolved(one, dir));
    else if (e.key == "currency") c.currency = v;
    else if (e.key == "policy") c.policy = resolved(v, dir);
    else if (e.key == "ledger") c.ledger = resolved(v, dir);
    else c.profile = resolved(v, dir);
  }
  if (!errors.empty()) throw InputErrors(std::move(errors));
  return c;
}

std::optional<ProjectConfig> find_project_config(const std::string& explicit_path) {
  if (!explicit_path.empty()) return parse_project_config(io::read_file(explicit_path), explicit_path);
  std::error_code ec;
  fs::path dir = fs::current_path(ec);
  if (ec) return std::nullopt;
  for (;;) {
    const fs::path candidate = dir / kName;
    if (fs::is_regular_file(candidate, ec)) {
      // Shown relative when it is here, as the user would type it.
      const std::string shown = dir == fs::current_path(ec) ? std::string(kName) : candidate.string();
      return parse_project_config(io::read_file(candidate.string()), shown);
    }
    if (!dir.has_parent_path() || dir.parent_path() == dir) return std::nullopt;
    dir = dir.parent_path();
  }
}

void apply_project_config(Context& ctx, const std::string& explicit_path, const ConfigTargets& t) {
  const auto c = find_project_config(explicit_path);
  if (!c) return;
  auto fill = [](std::string* target, const std::string& value) {
    if (target && target->empty()) *target = value;
  };
  fill(t.policy, c->policy);
  fill(t.ledger, c->ledger);
  if (!t.policy || t.policy->empty()) fill(t.currency, c->currency);  // a policy names its own currency
  GlobalOptions& g = ctx.options;
  g.catalogs.insert(g.catalogs.begin(), c->catalogs.begin(), c->catalogs.end());  // a --catalog still overrides by id
  if (g.profile.empty()) g.profile = c->profile;
}

}  // namespace gpuplan::cli
