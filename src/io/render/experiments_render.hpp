#pragma once
// Experiments as decisions in the cost dashboard: each family's cost against its quality
// metrics, the frontier, what the last improvement cost, and continue / change method / stop
// in words. One set of words and one rounding for the table, the HTML page and JSON's
// `reason`, so the three say the same thing.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gpuplan/spend.hpp"
#include "io/render/render.hpp"

namespace gpuplan::io {

// {"decision_rule": {...}, "families": [...]}: merged into the report's JSON when r.families is
// not empty.
nlohmann::json families_json(const SpendReport& r);

// The decision and the figures behind it, in one sentence.
std::string decision_reason(const MetricSeries& s, const DecisionRule& rule, const std::string& currency);
// What to look at when a family's GPUs idle.
std::string idle_advice(IdleCause c);

// One row per family and metric (the first metric of a family decides for it).
Table families_table(const SpendReport& r);
// A line per family: its decision with the reason, and the low-utilization flag with its advice.
std::vector<std::string> family_notes(const SpendReport& r);
// The HTML section: a cost-against-quality chart per family and metric, then the table.
std::string families_html(const SpendReport& r);

// How the table and page print a metric value (4 significant digits) and a ratio (2 decimals).
std::string metric_text(double v);

}  // namespace gpuplan::io
