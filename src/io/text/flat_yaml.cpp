#include "io/text/flat_yaml.hpp"

#include <cctype>
#include <cstring>
#include <set>
#include <string_view>

#include "io/text/files.hpp"
#include "io/text/yaml_document.hpp"

namespace gpuplan::io {

const FlatEntry* FlatDocument::find(const std::string& key) const {
  for (const auto& e : entries)
    if (e.key == key) return &e;
  return nullptr;
}

namespace {

void add_entry(const std::string& path, const std::string& key, const YAML::Node& k, const YAML::Node& v, FlatDocument& doc,
               std::vector<InputError>& errors) {
  FlatEntry e;
  e.key = key;
  e.where = yaml_location(path, k);
  e.value_where = yaml_location(path, v);
  if (v.IsScalar()) {
    e.values.push_back(v.Scalar());
  } else if (v.IsSequence()) {
    e.is_list = true;
    for (const auto& item : v) {
      if (!item.IsScalar()) {
        errors.emplace_back(yaml_location(path, item), key, "expected a list of plain values");
        return;
      }
      e.values.push_back(item.Scalar());
    }
  } else if (v.IsNull()) {
    errors.emplace_back(e.where, key, "has no value");
    return;
  } else {
    errors.emplace_back(e.value_where, key, "expected a value or a list of values, not a mapping");
    return;
  }
  doc.entries.push_back(std::move(e));
}

bool key_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.'; }

// Characters a value may hold on the fast path: none of YAML's indicators or quotes, so the
// text is the scalar yaml-cpp would read.
bool value_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || std::strchr(" ._/+-@=%,()", c) != nullptr;
}

bool null_word(std::string_view v) { return v == "~" || v == "null" || v == "Null" || v == "NULL"; }

// One `key: value  # comment` line; false when it is anything else.
bool simple_line(std::string_view l, int line, const std::string& path, FlatDocument& doc) {
  std::size_t k = 0;
  while (k < l.size() && key_char(l[k])) ++k;
  if (k == 0 || l[0] == '-' || k + 1 >= l.size() || l[k] != ':' || l[k + 1] != ' ') return false;
  if (null_word(l.substr(0, k)) || l.substr(0, k) == "<<") return false;
  std::size_t v = k + 1;
  while (v < l.size() && l[v] == ' ') ++v;
  std::size_t end = l.find(" #", v);
  if (end == std::string_view::npos) end = l.size();
  while (end > v && l[end - 1] == ' ') --end;
  const std::string_view value = l.substr(v, end - v);
  if (value.empty() || null_word(value) || value.back() == ':' || value.find(": ") != std::string_view::npos) return false;
  if (!std::isalnum(static_cast<unsigned char>(value[0])) && value[0] != '/' && value[0] != '_') return false;
  for (char c : value)
    if (!value_char(c)) return false;
  FlatEntry e;
  e.key = std::string(l.substr(0, k));
  e.values.emplace_back(value);
  e.where = SourceLocation{path, line, 1};
  e.value_where = SourceLocation{path, line, static_cast<int>(v) + 1};
  doc.entries.push_back(std::move(e));
  return true;
}

}  // namespace

std::optional<FlatDocument> parse_simple_flat_yaml(const std::string& text, const std::string& path) {
  FlatDocument doc;
  doc.path = path;
  std::set<std::string_view> keys;
  int line = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    const std::string_view l(text.data() + pos, nl - pos);
    pos = nl + 1;
    ++line;
    if (l.empty() || l[0] == '#') continue;
    if (!simple_line(l, line, path, doc)) return std::nullopt;
  }
  for (const auto& e : doc.entries)
    if (!keys.insert(e.key).second) return std::nullopt;  // the full reader names the repeat
  if (doc.entries.empty()) return std::nullopt;
  return doc;
}

FlatDocument parse_flat_yaml(const std::string& text, const std::string& path, const std::string& what) {
  // Most spec files are plain `key: value` lines, which yaml-cpp reads at ~0.4 M instructions
  // per file (check over 10,000 specs); those are read here directly, anything else by yaml-cpp.
  // tests/io/flat_yaml_fast_test.cpp checks the two readers agree.
  if (yaml_text_problems(text, path, what).empty())
    if (auto simple = parse_simple_flat_yaml(text, path)) return std::move(*simple);
  return parse_flat_yaml_full(text, path, what);
}

FlatDocument parse_flat_yaml_full(const std::string& text, const std::string& path, const std::string& what) {
  YamlDocument d = parse_yaml_document(text, path, what);
  if (!d.errors.empty()) throw InputErrors(std::move(d.errors));
  FlatDocument doc;
  doc.path = path;
  std::vector<InputError> errors;
  if (!d.root || d.root.IsNull()) throw InputError(SourceLocation{path, 1, 1}, "", "empty " + what + " file");
  if (!d.root.IsMap()) throw InputError(yaml_location(path, d.root), "", "expected a mapping of keys to values");
  try {
    for (auto& e : repeated_keys(path, d.root, "")) errors.push_back(std::move(e));
    for (const auto& kv : d.root) {
      const std::string key = kv.first.Scalar();
      if (kv.second.IsMap()) {
        for (auto& e : repeated_keys(path, kv.second, key + ".")) errors.push_back(std::move(e));
        for (const auto& inner : kv.second) {
          if (inner.second.IsMap()) {
            errors.emplace_back(yaml_location(path, inner.second), key + "." + inner.first.Scalar(), "nested too deep");
            continue;
          }
          add_entry(path, key + "." + inner.first.Scalar(), inner.first, inner.second, doc, errors);
        }
        continue;
      }
      add_entry(path, key, kv.first, kv.second, doc, errors);
    }
  } catch (const YAML::Exception& e) {
    errors.emplace_back(SourceLocation{path, e.mark.line + 1, e.mark.column + 1}, "", std::string("malformed YAML: ") + e.msg);
  }
  if (!errors.empty()) throw InputErrors(std::move(errors));
  return doc;
}

FlatDocument load_flat_yaml(const std::string& path, const std::string& what) {
  return parse_flat_yaml(read_file(path, kMaxSmallFileBytes), path, what);
}

}  // namespace gpuplan::io
