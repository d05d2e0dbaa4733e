#include "io/text/input_text.hpp"

#include <cstdio>

#include "gpuplan/error.hpp"

namespace gpuplan::io {

std::string quote_input(std::string_view s) {
  std::string out;
  std::size_t shown = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (shown == kMaxQuotedChars) {
      out += "... (" + std::to_string(s.size()) + " bytes)";
      break;
    }
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else if (c == '\\' || c == '"') { out += '\\'; out += static_cast<char>(c); }
    else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else out += static_cast<char>(c);
    // Count characters, not bytes: UTF-8 continuation bytes do not start a new one.
    if ((c & 0xC0) != 0x80) ++shown;
  }
  return out;
}

namespace {

// Length of the well-formed UTF-8 sequence starting at s[i] (RFC 3629: no overlongs, no
// surrogates, nothing above U+10FFFF), or 0 when it is malformed.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  if (c < 0x80) return 1;
  std::size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) n = 2;
  else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else return 0;
  if (i + n > s.size()) return 0;
  if (b(i + 1) < lo || b(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if (b(i + k) < 0x80 || b(i + k) > 0xBF) return 0;
  return n;
}

}  // namespace

void check_text(std::string_view text, const std::string& path, const std::string& what) {
  int line = 1, column = 1;
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] == '\0')
      throw InputError({path, line, column}, "",
                       "NUL byte in a " + what + " file: this looks like a binary file, not text");
    const std::size_t n = utf8_length(text, i);
    if (n == 0) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "0x%02x", static_cast<unsigned char>(text[i]));
      throw InputError({path, line, column}, "",
                       std::string("invalid UTF-8 (byte ") + buf + "): " + what + " files must be UTF-8 text");
    }
    if (text[i] == '\n') { ++line; column = 1; } else ++column;
    i += n;
  }
}

bool is_catalog_id(std::string_view s) {
  if (s.empty()) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (!alnum && (i == 0 || (c != '.' && c != '-'))) return false;
  }
  return true;
}

bool is_currency_code(std::string_view s) {
  if (s.size() != 3) return false;
  for (char c : s)
    if (c < 'A' || c > 'Z') return false;
  return true;
}

bool is_date_shape(std::string_view s) {
  if (s.size() != 10) return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const bool dash = i == 4 || i == 7;
    if (dash ? s[i] != '-' : (s[i] < '0' || s[i] > '9')) return false;
  }
  return true;
}

}  // namespace gpuplan::io
