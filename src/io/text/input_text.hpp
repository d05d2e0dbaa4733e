#pragma once
// Checks and quoting shared by every reader of user-written text: well-formed UTF-8 with no NUL
// bytes before a parser sees it, identifiers checked without a regex engine (std::regex
// recurses per character and overflows the stack on long input), and quoted input capped and
// escaped before it reaches an error message or a terminal.
#include <cstddef>
#include <string>
#include <string_view>

namespace gpuplan::io {

// Longest stretch of a user's input repeated in a message.
inline constexpr std::size_t kMaxQuotedChars = 80;

// `s` with control characters, backslashes and quotes escaped (\n, \x1b, ...), cut to
// kMaxQuotedChars characters with "... (N bytes)" appended when longer. No surrounding quotes.
std::string quote_input(std::string_view s);

// Throws InputError at the line and column of the first NUL byte or malformed UTF-8 sequence.
// `what` names the file's kind in the message ("catalog", "config.json", ...).
void check_text(std::string_view text, const std::string& path, const std::string& what);

// Lowercase letter or digit first, then lowercase letters, digits, '.' and '-'.
bool is_catalog_id(std::string_view s);
// Three capital letters (ISO 4217 shape).
bool is_currency_code(std::string_view s);
// Exactly NNNN-NN-NN with digits (the calendar check is separate).
bool is_date_shape(std::string_view s);

}  // namespace gpuplan::io
