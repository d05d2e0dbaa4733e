// The table writer every command prints through: alignment, colour, wrapping, cutting and
// dropping columns to fit a width, and the CSV and Markdown forms of the same table.
#include <catch2/catch.hpp>

#include "io/render/render.hpp"

using namespace gpuplan::io;

namespace {

Table two_rows() {
  Table t;
  t.title = "Offers";
  t.columns = {"name", "cost"};
  t.align = {Align::left, Align::right};
  t.rows = {{"a", "1.50"}, {"bbb", "12.00"}};
  return t;
}

}  // namespace

TEST_CASE("a table pads each column to its widest cell and right-aligns numbers", "[render]") {
  CHECK(render_table(two_rows(), false) ==
        "Offers\n"
        "name   cost\n"
        "a      1.50\n"
        "bbb   12.00\n");
}

TEST_CASE("colour is bold for the title and underline for the header, and only when asked", "[render]") {
  const std::string colored = render_table(two_rows(), true);
  CHECK(colored.rfind("\033[1mOffers\033[0m\n\033[4mname   cost\033[0m\n", 0) == 0);
  CHECK(render_table(two_rows(), false).find('\033') == std::string::npos);
}

TEST_CASE("an empty table prints its header alone", "[render]") {
  Table t;
  t.columns = {"gpu", "fits"};
  CHECK(render_table(t, false) == "gpu  fits\n");
  CHECK(render_csv(t) == "gpu,fits\n");
  CHECK(render_markdown(t) == "| gpu | fits |\n|---|---|\n");
}

TEST_CASE("a trailing text column wraps to fit the width before anything is cut", "[render]") {
  Table t;
  t.columns = {"id", "why"};
  t.rows = {{"x", "alpha beta gamma delta"}};
  CHECK(render_table(t, false, 20) ==
        "id  why\n"
        "x   alpha beta gamma\n"
        "    delta\n");
  CHECK(render_table(t, false, 0) == "id  why\nx   alpha beta gamma delta\n");  // 0: no limit
}

TEST_CASE("a cuttable column is cut with an ellipsis and a line says so", "[render]") {
  Table t;
  t.columns = {"offer", "price"};
  t.align = {Align::left, Align::right};
  t.cuttable = {0};
  t.rows = {{"a-very-long-offer-name-here", "1.00"}};
  CHECK(render_table(t, false, 20) ==
        "offer          price\n"
        "a-very-long-…   1.00\n"
        "(long names cut to fit 20 columns: --wide or --format json shows them whole)\n");
}

TEST_CASE("a droppable column is left out when nothing else fits, and named under the table", "[render]") {
  Table t;
  t.columns = {"name", "extra"};
  t.align = {Align::left, Align::right};
  t.droppable = {1};
  t.rows = {{"abc", "0123456789"}};
  CHECK(render_table(t, false, 10) == "name\nabc\n(left out to fit 10 columns: extra; --wide shows them)\n");
  CHECK(render_table(t, false, 16) == "name       extra\nabc   0123456789\n");  // fits: nothing dropped
}

TEST_CASE("a control character in a cell cannot break the table's lines", "[render]") {
  Table t;
  t.columns = {"name"};
  t.rows = {{"a\nb\033c"}};
  CHECK(render_table(t, false) == "name\na\xEF\xBF\xBD" "b\xEF\xBF\xBD" "c\n");
  CHECK(printable("tab\there\x7F") == "tab\xEF\xBF\xBDhere\xEF\xBF\xBD");
  CHECK(printable("C1 \xC2\x9B end") == "C1 \xEF\xBF\xBD end");  // U+009B CSI
  CHECK(printable("caf\xC3\xA9") == "caf\xC3\xA9");            // other UTF-8 is kept
}

TEST_CASE("CSV prints the raw columns when a table has them, quoted and formula-safe", "[render]") {
  Table t;
  t.columns = {"name", "cost"};
  t.rows = {{"shown", "$1.50"}};
  t.csv_columns = {"name", "cost_usd"};
  t.csv_rows = {{"=cmd()", "1.5"}, {"a,b", "-3.5"}, {"say \"hi\"", ""}, {"-x", "+2"}};
  CHECK(render_csv(t) ==
        "name,cost_usd\n"
        "'=cmd(),1.5\n"
        "\"a,b\",-3.5\n"
        "\"say \"\"hi\"\"\",\n"
        "'-x,+2\n");
  t.csv_columns.clear();  // without them, the display rows
  CHECK(render_csv(t) == "name,cost\nshown,$1.50\n");
}

TEST_CASE("Markdown escapes text, marks right-aligned columns and shows names as code", "[render]") {
  Table t;
  t.title = "Gate *now*";
  t.columns = {"name", "n"};
  t.align = {Align::left, Align::right};
  t.name_columns = {0};
  t.rows = {{"a|b", "<1>"}, {"", "2"}};
  CHECK(render_markdown(t) ==
        "**Gate \\*now\\***\n\n"
        "| name | n |\n"
        "|---|---:|\n"
        "| `a\\|b` | &lt;1&gt; |\n"
        "|  | 2 |\n");
}

TEST_CASE("Markdown text breaks mentions and autolinks, code spans outlast the backticks inside", "[render]") {
  const std::string zwsp = "\xE2\x80\x8B";
  CHECK(markdown_text("@team") == "@" + zwsp + "team");
  CHECK(markdown_text("http://x") == "http:" + zwsp + "//x");
  CHECK(markdown_text("www.x") == "www" + zwsp + ".x");
  CHECK(markdown_text("a_b [c](d) #1 !") == "a\\_b \\[c\\]\\(d\\) \\#1 \\!");
  CHECK(markdown_code("a`b") == "``a`b``");
  CHECK(markdown_code("`x") == "`` `x ``");
  CHECK(markdown_code("") == "");
}

TEST_CASE("wrap breaks at spaces and keeps a longer word whole", "[render]") {
  CHECK(wrap("one two three", 7) == std::vector<std::string>{"one two", "three"});
  CHECK(wrap("abcdefghij", 4) == std::vector<std::string>{"abcdefghij"});
  CHECK(wrap("", 4) == std::vector<std::string>{""});
}

TEST_CASE("a bar is whole blocks then an eighth, clamped to [0, 1]", "[render]") {
  CHECK(bar(0.5, 4) == "██");
  CHECK(bar(0.1, 1) == "▏");     // 0.8 of an eighth rounds to one
  CHECK(bar(0.3, 2) == "▋");     // 4.8 eighths round to 5
  CHECK(bar(2.0, 2) == "██");
  CHECK(bar(-1.0, 3) == "");
}
