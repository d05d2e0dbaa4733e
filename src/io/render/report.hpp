#pragma once
// A command's report and the formats it is printed in: one table of formats and one function
// that spells a report in each, so a new output format is a row in kFormats and a case in
// render_report, and no command asks which format it is printing in to decide what it holds.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "io/render/render.hpp"

namespace gpuplan::io {

inline constexpr int kJsonSchemaVersion = 1;

enum class Format { table, json, csv, markdown, github };

struct FormatName {
  const char* name;
  Format format;
  bool gates_only;  // offered only by the commands that gate CI (workflow annotations)
};
inline constexpr FormatName kFormats[] = {{"table", Format::table, false},
                                          {"json", Format::json, false},
                                          {"csv", Format::csv, false},
                                          {"markdown", Format::markdown, false},
                                          {"github", Format::github, true}};
std::optional<Format> format_from_string(const std::string& name);

struct Report {
  nlohmann::json json;             // schema_version is added when printed
  std::vector<Table> tables;       // the first is the one CSV prints
  std::vector<std::string> notes;  // printed under the tables (table, markdown, github)
  std::optional<Table> csv;        // what CSV prints when not the first table
  // What a CI gate prints before the report: workflow annotations (github), and the verdict a
  // PR comment opens with, before any table a name could disturb (markdown). Initialised here
  // so the commands' Report{json, tables, notes, csv} need not spell them.
  std::string github_annotations{}, markdown_verdict{};
};

struct RenderOptions {
  bool color = false;       // ANSI colour in tables (the caller knows the terminal)
  std::size_t width = 100;  // tables and notes wrap to it; 0: as wide as their content
  std::string stop_token;   // github: the ::stop-commands:: token, random, from the caller
};

// `r` spelled in `f`; `body` is the JSON document's content (r.json, moved in by the caller).
std::string render_report(const Report& r, nlohmann::json&& body, Format f, const RenderOptions& o);

}  // namespace gpuplan::io
