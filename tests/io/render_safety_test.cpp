// Names come from files anyone can commit: every renderer keeps them inert (no control
// characters, no workflow commands, no Markdown/HTML, no spreadsheet formulas).
#include <catch2/catch.hpp>

#include <algorithm>

#include "io/render/check_report.hpp"
#include "io/render/render.hpp"

using namespace gpuplan;
using namespace gpuplan::io;

namespace {
Table one_row(const std::string& name, const std::string& detail) {
  Table t;
  t.title = "Budget check";
  t.columns = {"experiment", "result", "detail"};
  t.rows = {{name, "FAIL", detail}};
  t.name_columns = {0};
  return t;
}
bool has_control(const std::string& s) {
  for (unsigned char c : s)
    if ((c < 0x20 && c != '\n') || c == 0x7F) return true;
  return false;
}
}  // namespace

TEST_CASE("control characters never reach a table, CSV or Markdown cell", "[render]") {
  const std::string evil = "a\rb\nc\x1b[2J\x07\t\0d\xC2\x85z";
  const std::string name(evil.data(), 16);
  CHECK(printable(name).find_first_of(std::string("\r\n\x1b\x07\t\0", 6)) == std::string::npos);
  CHECK(printable("\xC2\x85") == "\xEF\xBF\xBD");  // C1 NEL
  CHECK(printable("caf\xC3\xA9") == "caf\xC3\xA9");  // ordinary UTF-8 stays
  for (const std::string& out : {render_table(one_row(name, "x"), false, 100), render_csv(one_row(name, "x")), render_markdown(one_row(name, "x"))})
    CHECK_FALSE(has_control(out));
  // One row stays one line: a CR or LF in a name cannot add a line of its own.
  const std::string md = render_markdown(one_row("ok\n| x | All budget rules pass |", "d"));
  CHECK(std::count(md.begin(), md.end(), '\n') == 5);
}

TEST_CASE("no table line can start a workflow command", "[render]") {
  const std::string table = render_table(one_row("\n::error::forged", "::warning::x"), false, 0);
  CHECK(table.find("\n::") == std::string::npos);
  CHECK(gh_escape_data("a\x1b" "b\r\n%") == "a\xEF\xBF\xBD" "b%0D%0A%25");
}

TEST_CASE("Markdown: names are code spans, text has no HTML, links or mentions", "[render]") {
  CHECK(markdown_code("llama") == "`llama`");
  CHECK(markdown_code("a`b") == "``a`b``");
  CHECK(markdown_code("`x") == "`` `x ``");
  CHECK(markdown_code("a|b") == "`a\\|b`");
  const std::string t = markdown_text("<img src=x> [click](https://evil.example) @org/team www.x.io");
  CHECK(t.find('<') == std::string::npos);
  CHECK(t.find("](") == std::string::npos);
  CHECK(t.find("\\[click\\]") != std::string::npos);
  CHECK(t.find("@org") == std::string::npos);     // a zero-width space follows the @
  CHECK(t.find("https://") == std::string::npos);  // no autolink
  CHECK(t.find("www.") == std::string::npos);
  const std::string md = render_markdown(one_row("<img src=x onerror=alert(1)>", "@org/team"));
  CHECK(md.find("| `<img src=x onerror=alert(1)>` |") != std::string::npos);
  CHECK(md.find("@org") == std::string::npos);
}

TEST_CASE("CSV cells cannot be formulas, numbers stay numbers", "[render]") {
  CHECK(csv_cell("=HYPERLINK(\"http://x\")") == "\"'=HYPERLINK(\"\"http://x\"\")\"");
  CHECK(csv_cell("+1+2") == "'+1+2");
  CHECK(csv_cell("-2+3") == "'-2+3");
  CHECK(csv_cell("@SUM(A1)") == "'@SUM(A1)");
  CHECK(csv_cell("-3.5") == "-3.5");
  CHECK(csv_cell("1e3") == "1e3");
  CHECK(csv_cell("a,b") == "\"a,b\"");
  CHECK(csv_cell("x\ny") == "x\xEF\xBF\xBDy");
}
