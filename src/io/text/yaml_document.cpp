#include "io/text/input_text.hpp"
#include "io/text/yaml_document.hpp"

#include <yaml-cpp/eventhandler.h>

#include <algorithm>
#include <sstream>
#include <optional>
#include <string_view>
#include <set>
#include <utility>

namespace gpuplan::io {

namespace {

// yaml-cpp parses recursively; refuse documents whose flow nesting or indentation depth could
// exhaust the stack before handing them over.
std::optional<std::pair<int, std::string>> too_deep(const std::string& text) {
  int depth = 0, line = 1;
  bool in_single = false, in_double = false, in_comment = false;
  for (char c : text) {
    if (c == '\n') {
      ++line;
      in_comment = false;
      in_single = in_double = false;  // quoted scalars spanning lines are rare in catalogs
      continue;
    }
    if (in_comment) continue;
    if (in_double) { if (c == '"') in_double = false; continue; }
    if (in_single) { if (c == '\'') in_single = false; continue; }
    if (c == '#') in_comment = true;
    else if (c == '"') in_double = true;
    else if (c == '\'') in_single = true;
    else if (c == '[' || c == '{') {
      if (++depth > kMaxYamlDepth) return std::make_pair(line, std::string("nesting deeper than ") + std::to_string(kMaxYamlDepth) + " levels");
    } else if (c == ']' || c == '}') {
      if (depth > 0) --depth;
    }
  }
  // Block-style nesting: each level needs more indentation; cap it.
  line = 1;
  int col = 0;
  bool leading = true;
  for (char c : text) {
    if (c == '\n') { ++line; col = 0; leading = true; continue; }
    if (leading && (c == ' ' || c == '-')) { ++col; continue; }
    leading = false;
    if (col > 4 * kMaxYamlDepth) return std::make_pair(line, std::string("indentation deeper than ") + std::to_string(4 * kMaxYamlDepth) + " columns");
  }
  return std::nullopt;
}

}  // namespace

int second_document_line(const std::string& text) {
  int line = 0;
  bool content = false;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t end = std::min(text.find('\n', pos), text.size());
    const std::string_view l(text.data() + pos, end - pos);
    ++line;
    const bool marker = l.substr(0, 3) == "---" && (l.size() == 3 || l[3] == ' ' || l[3] == '\t' || l[3] == '\r');
    if (marker && content) return line;
    if (marker) content = true;  // the opening marker: the next one starts document two
    else if (!l.empty() && l[0] != '#' && l.find_first_not_of(" \t\r") != std::string_view::npos) content = true;
    pos = end + 1;
  }
  return 0;
}

std::vector<InputError> yaml_text_problems(const std::string& text, const std::string& path, const std::string& what) {
  std::vector<InputError> errors;
  try {
    check_text(text, path, what);
  } catch (const InputError& e) {
    errors.push_back(e);
    return errors;
  }
  if (auto deep = too_deep(text))
    errors.emplace_back(SourceLocation{path, deep->first, 0}, "", deep->second + " (limit for " + what + " files)");
  return errors;
}

SourceLocation yaml_location(const std::string& path, const YAML::Node& n) {
  const YAML::Mark m = n.Mark();
  return {path, m.line >= 0 ? m.line + 1 : 0, m.column >= 0 ? m.column + 1 : 0};
}

std::vector<InputError> repeated_keys(const std::string& path, const YAML::Node& map, const std::string& prefix) {
  std::vector<InputError> errors;
  std::set<std::string> seen;
  for (const auto& kv : map)
    if (!seen.insert(kv.first.Scalar()).second)
      errors.emplace_back(yaml_location(path, kv.first), prefix + kv.first.Scalar(), "duplicate key in this mapping");
  return errors;
}

namespace {

// Discards every event: the parser is driven only to count documents.
class DocumentCounter : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

// A second document needs a `---` or `...` marker at the start of a line: text without one
// holds at most one, which spares the second parse (half of reading a spec file).
bool may_hold_markers(const std::string& text) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    if (text.compare(pos, 3, "---") == 0 || text.compare(pos, 3, "...") == 0) return true;
    const std::size_t newline = text.find('\n', pos);
    if (newline == std::string::npos) break;
    pos = newline + 1;
  }
  return false;
}

// True when the text holds a second document; at most two parser steps, so it always ends.
bool has_second_document(const std::string& text) {
  if (!may_hold_markers(text)) return false;
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentCounter counter;
  return parser.HandleNextDocument(counter) && parser.HandleNextDocument(counter);
}

}  // namespace

YamlDocument parse_yaml_document(const std::string& text, const std::string& path, const std::string& what) {
  YamlDocument d;
  d.errors = yaml_text_problems(text, path, what);
  if (!d.errors.empty()) return d;
  try {
    // Load parses (and throws on) the first document; a second one (after `---`) must be
    // refused, since Load drops it without a word. yaml-cpp 0.7's LoadAll loops forever on some
    // malformed input (",\"0-\"01experiment~:\"torn\",\"co", found by fuzz_budget_files), so
    // documents are counted with at most two parser steps instead.
    d.root = YAML::Load(text);
    if (has_second_document(text)) {
      d.errors.emplace_back(SourceLocation{path, second_document_line(text), 1}, "",
                            "a second YAML document (after '---'): a " + what + " file holds one document");
      d.root = YAML::Node();
      return d;
    }
  } catch (const YAML::Exception& e) {
    d.errors.emplace_back(SourceLocation{path, e.mark.line >= 0 ? e.mark.line + 1 : 0, e.mark.column >= 0 ? e.mark.column + 1 : 0},
                          "", "invalid YAML: " + e.msg);
    d.root = YAML::Node();
  }
  return d;
}

}  // namespace gpuplan::io
