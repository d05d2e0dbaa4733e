#pragma once
// The cost dashboard's outputs: JSON and CSV for scripts, and one self-contained HTML file
// (inline CSS and SVG, no scripts, no network) with a table behind every chart.
#include <nlohmann/json.hpp>
#include <string>

#include "gpuplan/spend.hpp"
#include "io/render/render.hpp"

namespace gpuplan::io {

nlohmann::json spend_report_json(const SpendReport& r);
// One row per (section, name): section is month, team, user, experiment or alert.
// One row per month, the total, each team, user and experiment, and each alert's subject: what
// --format csv prints.
Table spend_csv_table(const SpendReport& r);
// "linear: the average of 10 days, continued to 2026-12-31", "none: 3 of 7 days a forecast
// needs", or "" before the period starts.
std::string forecast_method_text(const MonthBurn& b);
std::string spend_report_html(const SpendReport& r);

// Escapes text for HTML element content and attribute values (& < > " ').
std::string html_escape(const std::string& s);

}  // namespace gpuplan::io
