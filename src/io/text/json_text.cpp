#include "io/text/json_text.hpp"

#include <set>
#include <vector>

#include "io/text/input_text.hpp"

namespace gpuplan::io {

using nlohmann::json;

SourceLocation json_locate(const std::string& text, const std::string& path, std::size_t offset) {
  SourceLocation w{path, 1, 1};
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') { ++w.line; w.column = 1; } else { ++w.column; }
  }
  return w;
}

SourceLocation json_locate_key(const std::string& text, const std::string& path, const std::string& key) {
  const auto pos = text.find("\"" + key + "\"");
  return pos == std::string::npos ? SourceLocation{path, 1, 1} : json_locate(text, path, pos);
}

namespace {

void check_depth(const std::string& text, const std::string& path, int limit) {
  int depth = 0;
  bool in_str = false, esc = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_str) {
      if (esc) esc = false;
      else if (c == '\\') esc = true;
      else if (c == '"') in_str = false;
      continue;
    }
    if (c == '"') in_str = true;
    else if (c == '{' || c == '[') {
      if (++depth > limit) throw InputError(json_locate(text, path, i), "", "JSON nested deeper than " + std::to_string(limit) + " levels");
    } else if (c == '}' || c == ']') --depth;
  }
}

// The second place "key" appears: where a repeated key most likely is.
SourceLocation second_occurrence(const std::string& text, const std::string& path, const std::string& key) {
  const std::string quoted = "\"" + key + "\"";
  const auto first = text.find(quoted);
  const auto second = first == std::string::npos ? first : text.find(quoted, first + 1);
  return second == std::string::npos ? SourceLocation{path, 0, 0} : json_locate(text, path, second);
}

}  // namespace

std::string json_error_text(const std::exception& e) {
  std::string what = e.what();
  const std::string mark = "; last read: '";
  const auto from = what.find(mark);
  if (from == std::string::npos) return what;
  const auto expected = what.rfind("'; expected");
  return what.substr(0, from) + (expected != std::string::npos && expected >= from + mark.size() ? what.substr(expected + 1) : "");
}

json parse_json_strict(const std::string& text, const std::string& path, const std::string& what, int depth_limit) {
  check_text(text, path, what);
  check_depth(text, path, depth_limit);
  std::vector<std::set<std::string>> keys;  // one set per open object
  std::string repeated;
  const json::parser_callback_t cb = [&](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) keys.emplace_back();
    else if (event == json::parse_event_t::object_end) keys.pop_back();
    else if (event == json::parse_event_t::key && !keys.empty() && !keys.back().insert(parsed.get<std::string>()).second &&
             repeated.empty())
      repeated = parsed.get<std::string>();
    return true;
  };
  json j;
  try {
    j = json::parse(text, cb);
  } catch (const json::parse_error& e) {
    throw InputError(json_locate(text, path, e.byte > 0 ? e.byte - 1 : 0), "", "invalid JSON: " + json_error_text(e));
  } catch (const json::exception& e) {
    // e.g. out_of_range for a number such as 1e400 (found by fuzz_hf_config)
    throw InputError({path, 0, 0}, "", "invalid JSON: " + json_error_text(e));
  }
  if (!repeated.empty())
    throw InputError(second_occurrence(text, path, repeated), quote_input(repeated),
                     "duplicate key in one JSON object (the later value would silently win)");
  return j;
}

}  // namespace gpuplan::io
