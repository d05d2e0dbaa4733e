#include "io/flat_yaml.hpp"

#include "io/files.hpp"
#include "io/yaml_document.hpp"

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

}  // namespace

FlatDocument parse_flat_yaml(const std::string& text, const std::string& path, const std::string& what) {
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
  return parse_flat_yaml(read_file(path), path, what);
}

}  // namespace gpuplan::io
