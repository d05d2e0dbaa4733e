#include "io/render/spend_render.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>

#include "io/render/alert_text.hpp"
#include "io/render/experiments_render.hpp"
#include "io/render/render.hpp"

namespace gpuplan::io {

namespace {

std::string fmt2(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

nlohmann::json opt(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

nlohmann::json burn_json(const MonthBurn& b) {
  return {{"period", b.period},
          {"spent", b.spent},
          {"cap", opt(b.cap)},
          {"burn_per_day", b.burn_per_day},
          {"forecast", b.forecast_made ? nlohmann::json(b.forecast) : nlohmann::json()},
          {"forecast_method", forecast_method_text(b)},
          {"days_elapsed", b.days_elapsed},
          {"days_in_month", b.days_in_month},
          {"crosses_on", b.crosses_on.empty() ? nlohmann::json() : nlohmann::json(b.crosses_on)},
          {"crossing_forecast", b.crossing_forecast}};
}

nlohmann::json group_json(const SpendGroup& g, bool outcomes) {
  nlohmann::json j = burn_json(g.burn);
  j.erase("period");
  j.erase("days_elapsed");
  j.erase("days_in_month");
  j["name"] = g.name;
  j["runs"] = g.runs;
  j["gpu_hours"] = g.gpu_hours;
  j["tokens"] = g.tokens;
  j["cost_per_run"] = g.cost_per_run();
  j["cost_per_million_tokens"] = opt(g.cost_per_million_tokens());
  j["planned"] = opt(g.planned);
  if (outcomes) {  // keys a ledger without measured outcomes never had
    j["samples"] = g.samples;
    j["cost_per_million_samples"] = opt(g.cost_per_million_samples());
    j["requests"] = g.requests;
    j["cost_per_thousand_requests"] = opt(g.cost_per_thousand_requests());
  }
  return j;
}

std::string opt2(const std::optional<double>& v) { return v ? fmt2(*v) : ""; }

// --- HTML pieces ------------------------------------------------------------------------------

const char* kCss = R"(
body{font:15px/1.45 system-ui,sans-serif;color:#111;background:#fff;max-width:1100px;margin:1.5em auto;padding:0 1em}
h1{font-size:1.5em;margin-bottom:.2em}h2{font-size:1.15em;border-bottom:2px solid #111;padding-bottom:.15em;margin-top:1.8em}
table{border-collapse:collapse;margin:.6em 0 1.2em;font-variant-numeric:tabular-nums}
th,td{border:1px solid #999;padding:.25em .6em;text-align:left}td.n,th.n{text-align:right}
caption{text-align:left;font-weight:600;padding:.2em 0}
.alerts li{margin:.3em 0}.tag{font-weight:700;border:1px solid #111;padding:0 .3em;margin-right:.4em}
.summary td:first-child{font-weight:600}svg{max-width:100%;height:auto}svg text{font:12px system-ui,sans-serif;fill:#111}
.bar{fill:#6b8fbf;stroke:#111}.bar.over{fill:url(#hatch);stroke:#111}.cap{stroke:#111;stroke-dasharray:4 3;stroke-width:2}
.line{fill:none;stroke:#111;stroke-width:2}.fc{fill:none;stroke:#111;stroke-width:2;stroke-dasharray:6 4}
.note{color:#333;font-size:.9em}
@media print{body{max-width:none;margin:0;font-size:11pt}h2{break-after:avoid}table,svg{break-inside:avoid}}
)";

struct Bar {
  std::string label;
  double value = 0;
  std::optional<double> cap;
};

// Horizontal bars, value printed on each, a dashed mark at the cap; over-cap bars are hatched
// and say so in words, so the chart reads without colour.
std::string bar_chart(const std::string& title, const std::vector<Bar>& bars) {
  if (bars.empty()) return "";
  double top = 0;
  for (const auto& b : bars) top = std::max({top, b.value, b.cap.value_or(0)});
  if (top <= 0) top = 1;
  const int row = 26, label_w = 220, plot_w = 560, h = row * static_cast<int>(bars.size()) + 10;
  std::string s = "<svg role=\"img\" aria-label=\"" + html_escape(title) + "\" viewBox=\"0 0 " + std::to_string(label_w + plot_w + 160) +
                  " " + std::to_string(h) + "\" width=\"" + std::to_string(label_w + plot_w + 160) + "\">";
  s += "<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\">"
       "<rect width=\"6\" height=\"6\" fill=\"#fff\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#111\" stroke-width=\"3\"/></pattern></defs>";
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const Bar& b = bars[i];
    const int y = 5 + row * static_cast<int>(i);
    const double w = plot_w * b.value / top;
    const bool over = b.cap && b.value > *b.cap;
    std::string label = b.label.size() > 30 ? b.label.substr(0, 29) + "\xE2\x80\xA6" : b.label;
    s += "<text x=\"" + std::to_string(label_w - 6) + "\" y=\"" + std::to_string(y + 16) + "\" text-anchor=\"end\">" + html_escape(label) + "</text>";
    s += "<rect class=\"bar" + std::string(over ? " over" : "") + "\" x=\"" + std::to_string(label_w) + "\" y=\"" + std::to_string(y + 3) +
         "\" width=\"" + fmt2(std::max(w, 1.0)) + "\" height=\"18\"/>";
    s += "<text x=\"" + fmt2(label_w + std::max(w, 1.0) + 5) + "\" y=\"" + std::to_string(y + 16) + "\">" + fmt2(b.value) +
         (over ? " (over cap)" : "") + "</text>";
    if (b.cap) {
      const double x = label_w + plot_w * *b.cap / top;
      s += "<line class=\"cap\" x1=\"" + fmt2(x) + "\" x2=\"" + fmt2(x) + "\" y1=\"" + std::to_string(y) + "\" y2=\"" + std::to_string(y + row) + "\"/>";
    }
  }
  return s + "</svg>";
}

// The month's running total by day, the cap, and the forecast to month end (dashed).
std::string burn_chart(const SpendReport& r) {
  const MonthBurn& b = r.total;
  if (b.days_in_month <= 0) return "";
  const double top = std::max({b.forecast, b.cap.value_or(0), b.spent, 1.0}) * 1.08;
  const int W = 760, H = 260, L = 70, B = 30;
  auto X = [&](double day) { return fmt2(L + (W - L - 20) * day / b.days_in_month); };
  auto Y = [&](double v) { return fmt2(H - B - (H - B - 10) * v / top); };
  std::string s = "<svg role=\"img\" aria-label=\"Cumulative spend this month, cap and forecast\" viewBox=\"0 0 " + std::to_string(W) + " " +
                  std::to_string(H) + "\" width=\"" + std::to_string(W) + "\">";
  s += "<line stroke=\"#111\" x1=\"" + X(0) + "\" y1=\"" + Y(0) + "\" x2=\"" + X(b.days_in_month) + "\" y2=\"" + Y(0) + "\"/>";
  s += "<text x=\"" + X(0) + "\" y=\"" + std::to_string(H - 8) + "\">day 1</text><text x=\"" + X(b.days_in_month - 2) + "\" y=\"" +
       std::to_string(H - 8) + "\">day " + std::to_string(b.days_in_month) + "</text>";
  std::string pts = X(0) + "," + Y(0);
  double running = 0;
  for (const auto& [date, cost] : r.days) {
    running += cost;
    const double day = std::stod(date.substr(8, 2));
    pts += " " + X(day) + "," + Y(running);
  }
  s += "<polyline class=\"line\" points=\"" + pts + "\"/>";
  s += "<line class=\"fc\" x1=\"" + X(b.days_elapsed) + "\" y1=\"" + Y(b.spent) + "\" x2=\"" + X(b.days_in_month) + "\" y2=\"" + Y(b.forecast) + "\"/>";
  s += "<text x=\"" + X(b.days_in_month) + "\" y=\"" + Y(b.forecast) + "\" text-anchor=\"end\" dy=\"-6\">forecast " + fmt2(b.forecast) + "</text>";
  if (b.cap) {
    s += "<line class=\"cap\" x1=\"" + X(0) + "\" x2=\"" + X(b.days_in_month) + "\" y1=\"" + Y(*b.cap) + "\" y2=\"" + Y(*b.cap) + "\"/>";
    s += "<text x=\"" + X(0) + "\" y=\"" + Y(*b.cap) + "\" dy=\"-4\">cap " + fmt2(*b.cap) + "</text>";
  }
  return s + "</svg>";
}

using Row = std::vector<std::string>;

// Cells are escaped here; a column whose header starts with '#' is numeric (right-aligned).
std::string table(const std::string& id, const std::string& caption, const std::vector<std::string>& cols, const std::vector<Row>& rows) {
  std::string s = "<table id=\"" + id + "\"><caption>" + html_escape(caption) + "</caption><thead><tr>";
  for (const auto& c : cols) {
    const bool n = !c.empty() && c[0] == '#';
    s += std::string("<th scope=\"col\"") + (n ? " class=\"n\"" : "") + ">" + html_escape(n ? c.substr(1) : c) + "</th>";
  }
  s += "</tr></thead><tbody>";
  for (const auto& row : rows) {
    s += "<tr>";
    for (std::size_t i = 0; i < row.size(); ++i) {
      const bool n = i < cols.size() && !cols[i].empty() && cols[i][0] == '#';
      s += std::string(n ? "<td class=\"n\">" : "<td>") + html_escape(row[i]) + "</td>";
    }
    s += "</tr>";
  }
  return s + "</tbody></table>";
}

std::string crossing(const MonthBurn& b) {
  if (b.crosses_on.empty()) return b.cap ? "not this month" : "";
  return b.crosses_on + (b.crossing_forecast ? " (forecast)" : " (crossed)");
}

std::vector<Row> group_rows(const std::vector<SpendGroup>& gs) {
  std::vector<Row> rows;
  for (const auto& g : gs)
    rows.push_back({g.name, fmt2(g.burn.spent), opt2(g.burn.cap),
                    g.burn.cap && *g.burn.cap > 0 ? fmt2(100 * g.burn.spent / *g.burn.cap) + "%" : "", fmt2(g.burn.burn_per_day),
                    fmt2(g.burn.forecast), crossing(g.burn), std::to_string(g.runs)});
  return rows;
}

std::string group_section(const std::string& id, const std::string& title, const std::vector<SpendGroup>& gs) {
  std::vector<Bar> bars;
  for (const auto& g : gs) bars.push_back({g.name, g.burn.spent, g.burn.cap});
  return "<section><h2>" + title + "</h2>" + bar_chart(title, bars) +
         table(id, title + " (table)", {"name", "#spent", "#cap", "#of cap", "#burn/day", "#month-end forecast", "cap crossed on", "#runs"},
               group_rows(gs)) +
         "</section>";
}

std::string experiments_section(const SpendReport& r) {
  std::vector<Row> rows;
  std::vector<Bar> bars;
  const bool outcomes = !r.families.empty();
  for (const auto& g : r.experiments) {
    const auto per_m = g.cost_per_million_tokens();
    rows.push_back({g.name, std::to_string(g.runs), fmt2(g.burn.spent), fmt2(g.cost_per_run()), fmt2(g.gpu_hours), per_m ? fmt2(*per_m) : "",
                    opt2(g.planned), g.planned ? fmt2(g.burn.spent - *g.planned) : ""});
    if (outcomes) {
      rows.back().push_back(opt2(g.cost_per_million_samples()));
      rows.back().push_back(opt2(g.cost_per_thousand_requests()));
    }
    if (g.planned) bars.push_back({g.name + " planned", *g.planned, std::nullopt});
    bars.push_back({g.name + (g.planned ? " actual" : ""), g.burn.spent, g.burn.cap});
  }
  std::vector<std::string> cols = {"experiment", "#runs", "#spent", "#cost/run", "#GPU-hours", "#cost/M tokens", "#planned", "#actual - planned"};
  if (outcomes) cols.insert(cols.end(), {"#cost/M samples", "#cost/1k requests"});
  return "<section><h2>Experiments: cost per run, per million tokens, planned against actual</h2>" +
         bar_chart("Experiments, planned and actual", bars) + table("experiments", "Experiments (table)", cols, rows) + "</section>";
}

const char* alert_tag(AlertKind k) {
  switch (k) {
    case AlertKind::over_cap:
    case AlertKind::over_life_cap: return "OVER CAP";
    case AlertKind::forecast_over_cap: return "FORECAST OVER CAP";
    case AlertKind::spot_no_checkpoint: return "SPOT WITHOUT CHECKPOINTS";
    case AlertKind::unpriced: return "UNPRICED";
    case AlertKind::run_over_max_cost: return "run_over_max_cost";
  }
  return "";
}

std::string alerts_section(const SpendReport& r) {
  std::string s = "<section><h2>Alerts</h2>";
  if (r.alerts.empty()) return s + "<p>No alerts.</p></section>";
  s += "<ul class=\"alerts\" id=\"alerts\">";
  for (const auto& a : r.alerts)
    s += "<li><span class=\"tag\">" + html_escape(alert_tag(a.kind)) + "</span>" + html_escape(alert_message(a, r.currency)) + "</li>";
  return s + "</ul></section>";
}

std::string summary_section(const SpendReport& r) {
  const MonthBurn& b = r.total;
  std::vector<Row> rows = {{"spent this month", fmt2(b.spent)},
                           {"cap (total)", opt2(b.cap)},
                           {"burn rate per day", fmt2(b.burn_per_day)},
                           {"period-end forecast", b.forecast_made ? fmt2(b.forecast) : "-"},
                           {"forecast method", forecast_method_text(b)},
                           {"cap crossed on", crossing(b)},
                           {"days elapsed", std::to_string(b.days_elapsed) + " of " + std::to_string(b.days_in_month)}};
  std::vector<Row> day_rows;
  double running = 0;
  for (const auto& [d, c] : r.days) {
    running += c;
    day_rows.push_back({d, fmt2(c), fmt2(running)});
  }
  return "<section><h2>This month: burn rate and forecast</h2>" + table("summary", "Summary (" + r.currency + ")", {"", "#value"}, rows) +
         burn_chart(r) + table("days", "Spend by day (table)", {"date", "#spent", "#running total"}, day_rows) + "</section>";
}

}  // namespace

std::string forecast_method_text(const MonthBurn& b) {
  if (b.forecast_needs_days <= 0) return {};
  if (!b.forecast_made)
    return "none: " + std::to_string(b.days_elapsed) + " of " + std::to_string(b.forecast_needs_days) + " days a forecast needs";
  return "linear: the average of " + std::to_string(b.days_elapsed) + " days, continued to " + b.last_day;
}

std::string html_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : printable(s)) {  // no control characters in any cell, as in every format
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

nlohmann::json spend_report_json(const SpendReport& r) {
  nlohmann::json j = {{"as_of", r.as_of}, {"period", r.period}, {"currency", r.currency}, {"total", burn_json(r.total)}};
  j["months"] = nlohmann::json::array();
  for (const auto& [m, v] : r.months) j["months"].push_back({{"month", m}, {"spent", v}});
  j["days"] = nlohmann::json::array();
  for (const auto& [d, v] : r.days) j["days"].push_back({{"date", d}, {"spent", v}});
  for (const auto& [key, gs] : {std::pair{"teams", &r.teams}, {"users", &r.users}, {"experiments", &r.experiments}}) {
    j[key] = nlohmann::json::array();
    for (const auto& g : *gs) j[key].push_back(group_json(g, !r.families.empty()));
  }
  j["largest"] = nlohmann::json::array();
  for (const auto& s : r.largest) j["largest"].push_back({{"kind", s.kind}, {"name", s.name}, {"spent", s.spent}, {"share", s.share}});
  j["alerts"] = nlohmann::json::array();
  for (const auto& a : r.alerts) j["alerts"].push_back({{"kind", to_string(a.kind)}, {"subject", a.subject}, {"message", alert_message(a, r.currency)}});
  if (!r.families.empty()) j.update(families_json(r));
  return j;
}

Table spend_csv_table(const SpendReport& r) {
  Table t;
  t.title = "Spend " + r.period;
  t.csv_columns = {"section", "name", "spent", "cap", "forecast", "crosses_on", "runs", "cost_per_run", "cost_per_million_tokens", "planned"};
  for (const auto& [m, v] : r.months) t.csv_rows.push_back({"month", m, fmt2(v), "", "", "", "", "", "", ""});
  t.csv_rows.push_back({"total", "total", fmt2(r.total.spent), opt2(r.total.cap), fmt2(r.total.forecast), r.total.crosses_on, "", "", "", ""});
  auto groups = [&](const char* section, const std::vector<SpendGroup>& gs) {
    for (const auto& g : gs)
      t.csv_rows.push_back({section, g.name, fmt2(g.burn.spent), opt2(g.burn.cap), fmt2(g.burn.forecast), g.burn.crosses_on,
                            std::to_string(g.runs), fmt2(g.cost_per_run()), opt2(g.cost_per_million_tokens()), opt2(g.planned)});
  };
  groups("team", r.teams);
  groups("user", r.users);
  groups("experiment", r.experiments);
  for (const auto& a : r.alerts) t.csv_rows.push_back({"alert", a.subject, "", "", "", "", "", "", "", ""});
  return t;
}

std::string spend_report_html(const SpendReport& r) {
  std::string s = "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
                  "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">"
                  "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><title>GPU spend " +
                  html_escape(r.period) + "</title><style>" + kCss + "</style></head><body>";
  s += "<h1>GPU spend, " + html_escape(r.period) + "</h1><p class=\"note\">As of " + html_escape(r.as_of) + ". All amounts in " +
       html_escape(r.currency) + ". Forecasts assume the month's average daily burn continues. Made by gpuplan report.</p>";
  s += alerts_section(r) + summary_section(r);
  std::vector<Bar> months;
  std::vector<Row> month_rows;
  for (const auto& [m, v] : r.months) {
    months.push_back({m, v, m == r.period ? r.total.cap : std::nullopt});
    month_rows.push_back({m, fmt2(v)});
  }
  s += "<section><h2>Spend by month</h2>" + bar_chart("Spend by month", months) + table("months", "Spend by month (table)", {"month", "#spent"}, month_rows) +
       "</section>";
  s += group_section("teams", "Teams against their caps", r.teams) + group_section("users", "Users against their caps", r.users);
  s += experiments_section(r);
  if (!r.families.empty()) s += families_html(r);
  std::vector<Row> top;
  for (const auto& sp : r.largest) top.push_back({sp.kind, sp.name, fmt2(sp.spent), fmt2(100 * sp.share) + "%"});
  s += "<section><h2>Largest spenders this month</h2>" + table("largest", "Largest spenders (table)", {"kind", "name", "#spent", "#share"}, top) +
       "</section>";
  return s + "</body></html>\n";
}

}  // namespace gpuplan::io
