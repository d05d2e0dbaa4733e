#include "io/render/report.hpp"

namespace gpuplan::io {
namespace {

// Tables and notes for people; notes wrap with continuation lines indented so each still reads as one.
std::string human_text(const Report& r, const RenderOptions& o) {
  std::string out;
  for (std::size_t i = 0; i < r.tables.size(); ++i) out += (i ? "\n" : "") + render_table(r.tables[i], o.color, o.width);
  if (!r.notes.empty()) out += "\n";
  for (const auto& n : r.notes) {
    const std::string text = printable(n);
    const auto lines = o.width ? wrap(text, o.width - 2) : std::vector<std::string>{text};
    for (std::size_t i = 0; i < lines.size(); ++i) out += (i ? "  " : "") + lines[i] + "\n";
  }
  return out;
}

}  // namespace

std::optional<Format> format_from_string(const std::string& name) {
  for (const auto& f : kFormats)
    if (name == f.name) return f.format;
  return std::nullopt;
}

std::string render_report(const Report& r, nlohmann::json&& body, Format f, const RenderOptions& o) {
  switch (f) {
    case Format::json: {
      nlohmann::json j = nlohmann::json::object();
      j["schema_version"] = kJsonSchemaVersion;
      if (body.is_object())
        for (auto& [k, v] : body.items()) j[k] = std::move(v);
      return j.dump(2) + "\n";
    }
    case Format::csv:
      if (r.csv) return render_csv(*r.csv);
      return r.tables.empty() ? std::string() : render_csv(r.tables.front());
    case Format::markdown: {
      std::string out = r.markdown_verdict;
      for (std::size_t i = 0; i < r.tables.size(); ++i) out += (i ? "\n" : "") + render_markdown(r.tables[i]);
      for (const auto& n : r.notes) out += "\n> " + markdown_text(n) + "\n";
      return out;
    }
    case Format::github:
      // The human part between ::stop-commands:: and its resume line: the Actions runner then
      // executes nothing in it, whatever a name in a table says; the annotations come first.
      return r.github_annotations + "::stop-commands::" + o.stop_token + "\n" + human_text(r, o) + "::" + o.stop_token + "::\n";
    case Format::table: return human_text(r, o);
  }
  return {};
}

}  // namespace gpuplan::io
