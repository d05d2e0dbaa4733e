#pragma once
// Small user-written YAML files (experiment specs, budget policies): a mapping of keys to
// scalars or lists of scalars, with one level of nested mapping ("teams: {nlp: 500}" reads as
// key "teams.nlp"). Every entry keeps its file position for error messages.
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/error.hpp"

namespace gpuplan::io {

struct FlatEntry {
  std::string key;                  // "method", "teams.nlp"
  std::vector<std::string> values;  // one for a scalar, several for a list
  bool is_list = false;
  SourceLocation where;             // of the key
  SourceLocation value_where;       // of the (first) value
};

struct FlatDocument {
  std::string path;
  std::vector<FlatEntry> entries;
  const FlatEntry* find(const std::string& key) const;
};

// Parses a file's text; throws InputErrors (file, line, column, key) on invalid YAML, repeated
// keys, or values nested deeper than one mapping.
FlatDocument parse_flat_yaml(const std::string& text, const std::string& path, const std::string& what);

// The two readers parse_flat_yaml chooses between (exposed for the test that compares them):
// plain `key: value` lines read directly (nullopt for any other text), and yaml-cpp.
std::optional<FlatDocument> parse_simple_flat_yaml(const std::string& text, const std::string& path);
FlatDocument parse_flat_yaml_full(const std::string& text, const std::string& path, const std::string& what);

// Reads and parses a file (size-capped).
FlatDocument load_flat_yaml(const std::string& path, const std::string& what);

}  // namespace gpuplan::io
