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

// Problems found before parsing: malformed UTF-8 or NUL bytes, nesting past the limits.
std::vector<InputError> yaml_text_problems(const std::string& text, const std::string& path, const std::string& what);

// The line of the `---` that starts a file's second document: the first marker after content,
// or the second marker when the file opens with one (0 when there is none).
int second_document_line(const std::string& text);

// Where a node sits in its file (1-based line and column).
SourceLocation yaml_location(const std::string& path, const YAML::Node& n);

// Keys of `map` that appear twice: yaml-cpp keeps the first, which is almost never what the
// author of the later one meant. Each is an error at the repeated key.
std::vector<InputError> repeated_keys(const std::string& path, const YAML::Node& map, const std::string& prefix);

}  // namespace gpuplan::io
