#pragma once
// Reading YAML a user wrote: size and nesting limits before yaml-cpp (which recurses) sees the
// text, parse errors with file, line and column, and repeated keys refused.
#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "gpuplan/error.hpp"

namespace gpuplan::io {

// Nesting deeper than this is refused before yaml-cpp sees the document.
inline constexpr int kMaxYamlDepth = 64;

struct YamlDocument {
  YAML::Node root;                 // null when errors is not empty
  std::vector<InputError> errors;
};

// Parses `text` read from `path`; `what` names the kind of file in messages ("catalog", ...).
YamlDocument parse_yaml_document(const std::string& text, const std::string& path, const std::string& what);

// Where a node sits in its file (1-based line and column).
SourceLocation yaml_location(const std::string& path, const YAML::Node& n);

// Keys of `map` that appear twice: yaml-cpp keeps the first, which is almost never what the
// author of the later one meant. Each is an error at the repeated key.
std::vector<InputError> repeated_keys(const std::string& path, const YAML::Node& map, const std::string& prefix);

}  // namespace gpuplan::io
