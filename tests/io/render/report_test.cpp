// A report spelled in every format from the one table of formats: JSON with its schema version,
// CSV of the first table unless the report names its own, Markdown with notes quoted, tables
// with notes wrapped to the width, and github's human part fenced by the caller's token.
#include <catch2/catch.hpp>

#include "io/render/report.hpp"

using namespace gpuplan::io;

namespace {

Report two_tables() {
  Report r;
  r.json = {{"answer", 42}};
  Table a;
  a.title = "First";
  a.columns = {"name", "value"};
  a.rows = {{"x", "1"}};
  Table b = a;
  b.title = "Second";
  b.rows = {{"y", "2"}};
  r.tables = {a, b};
  r.notes = {"a note long enough to wrap at twenty columns"};
  return r;
}

std::string as(Format f, const RenderOptions& o = {}) {
  const Report r = two_tables();
  return render_report(r, nlohmann::json(r.json), f, o);
}

}  // namespace

TEST_CASE("report formats: every name in the table parses to its format, others do not", "[render][report]") {
  for (const auto& f : kFormats) CHECK(format_from_string(f.name) == f.format);
  CHECK_FALSE(format_from_string("yaml"));
  CHECK_FALSE(format_from_string("JSON"));
}

TEST_CASE("report JSON: the body with the schema version", "[render][report]") {
  CHECK(nlohmann::json::parse(as(Format::json)) == nlohmann::json{{"schema_version", kJsonSchemaVersion}, {"answer", 42}});
}

TEST_CASE("report CSV: the first table, or the report's own CSV table", "[render][report]") {
  CHECK(as(Format::csv) == "name,value\nx,1\n");
  Report r = two_tables();
  r.csv = r.tables[1];
  CHECK(render_report(r, {}, Format::csv, {}) == "name,value\ny,2\n");
  CHECK(render_report(Report{}, {}, Format::csv, {}).empty());
}

TEST_CASE("report Markdown and tables: every table, then the notes", "[render][report]") {
  const std::string md = as(Format::markdown);
  CHECK(md.find("First") < md.find("Second"));
  CHECK(md.find("\n> a note long enough to wrap at twenty columns\n") != std::string::npos);
  RenderOptions narrow;
  narrow.width = 22;
  const std::string text = as(Format::table, narrow);
  CHECK(text.find("First") < text.find("Second"));
  CHECK(text.find("\na note long enough\n  to wrap at twenty\n  columns\n") != std::string::npos);
  RenderOptions wide;
  wide.width = 0;
  CHECK(as(Format::table, wide).find("\na note long enough to wrap at twenty columns\n") != std::string::npos);
}

TEST_CASE("report github: the tables and notes fenced by the caller's stop token", "[render][report]") {
  RenderOptions o;
  o.stop_token = "0123abcd";
  const std::string g = as(Format::github, o);
  CHECK(g.rfind("::stop-commands::0123abcd\n", 0) == 0);
  CHECK(g.substr(g.size() - 13) == "::0123abcd::\n");
  CHECK(g.find(as(Format::table, o)) != std::string::npos);
}

TEST_CASE("report leads: a gate's annotations before github's fence, its verdict before Markdown's tables", "[render][report]") {
  Report r = two_tables();
  r.github_annotations = "::error file=a.yaml,line=3::over the cap\n";
  r.markdown_verdict = "**FAIL**: 1 of 2 rules fail\n\n";
  RenderOptions o;
  o.stop_token = "t0";
  CHECK(render_report(r, {}, Format::github, o).rfind("::error file=a.yaml,line=3::over the cap\n::stop-commands::t0\n", 0) == 0);
  CHECK(render_report(r, {}, Format::markdown, o).rfind("**FAIL**: 1 of 2 rules fail\n\n", 0) == 0);
  const std::string table = render_report(r, {}, Format::table, o);
  CHECK(table.find("::error") == std::string::npos);
  CHECK(table.find("**FAIL**") == std::string::npos);
}
