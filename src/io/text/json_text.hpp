#pragma once
// Parsing JSON a user supplied (config.json, a safetensors index): UTF-8 and NUL checks, a
// nesting limit before the recursive parser runs, repeated keys refused, and errors that name
// the line and column.
#include <nlohmann/json.hpp>

#include <string>

#include "gpuplan/error.hpp"

namespace gpuplan::io {

// Line and column of a byte offset in `text`.
// nlohmann's message for `e` without its "last read: '...'" part: those are the input's own bytes
// (a token of a credentials file a spec pointed at), and an error must never quote them.
std::string json_error_text(const std::exception& e);

SourceLocation json_locate(const std::string& text, const std::string& path, std::size_t offset);
// Where "key" first appears in `text` (1:1 when it does not).
SourceLocation json_locate_key(const std::string& text, const std::string& path, const std::string& key);

// Throws InputError for malformed text, nesting deeper than depth_limit, or a key repeated
// within one object (nlohmann keeps the last silently; the README promises an error).
nlohmann::json parse_json_strict(const std::string& text, const std::string& path, const std::string& what,
                                 int depth_limit);

}  // namespace gpuplan::io
