// The cost dashboard on a fixed month: JSON's raw figures and nulls, CSV's sections (formula-safe
// names), the HTML page's structure with every name from the ledger escaped, and the terminal
// tables and notes.
#include <catch2/catch.hpp>

#include "io/render/spend_render.hpp"
#include "io/render/spend_tables.hpp"

using namespace gpuplan;
using namespace gpuplan::io;

namespace {

SpendGroup group(const std::string& name, std::size_t runs, double spent) {
  SpendGroup g;
  g.name = name;
  g.runs = runs;
  g.burn.spent = spent;
  return g;
}

SpendReport december() {
  SpendReport r;
  r.as_of = "2026-12-10";
  r.period = "2026-12";
  r.currency = "USD";
  MonthBurn& t = r.total;
  t.period = "2026-12";
  t.days_in_month = 31;
  t.days_elapsed = 10;
  t.spent = 1000;
  t.burn_per_day = 100;
  t.forecast = 3100;
  t.forecast_made = true;
  t.forecast_needs_days = 7;
  t.last_day = "2026-12-31";
  t.cap = 2500;
  t.crosses_on = "2026-12-25";
  t.crossing_forecast = true;
  r.months = {{"2026-11", 800.5}, {"2026-12", 1000}};
  r.days = {{"2026-12-01", 400}, {"2026-12-09", 600}};
  SpendGroup nlp = group("nlp", 4, 1000);
  nlp.gpu_hours = 100;
  nlp.tokens = 2e9;
  nlp.burn.cap = 800;
  nlp.burn.burn_per_day = 100;
  nlp.burn.forecast = 3100;
  nlp.burn.crosses_on = "2026-12-08";
  r.teams = {nlp};
  r.users = {group("<script>alert(1)</script>", 1, 50), group("=1+1", 1, 25)};
  SpendGroup sft = group("sft/a", 2, 300);
  sft.gpu_hours = 40;
  sft.planned = 250;
  r.experiments = {sft};
  r.largest = {{"team", "nlp", 1000, 1.0}};
  nlp.burn.period = "2026-12";
  r.alerts = {{AlertKind::over_cap, "team nlp", nlp.burn, 0, 0, "", ""}};
  return r;
}

// A week for the terminal tables: money to the cent, a forecast crossing.
SpendReport week() {
  SpendReport r;
  r.as_of = "2026-12-03";
  r.period = "2026-W49";
  r.currency = "EUR";
  r.total.spent = 1234.567;
  r.total.burn_per_day = 411.52;
  r.total.forecast = 2880.67;
  r.total.forecast_made = true;
  r.total.days_elapsed = 3;
  r.total.forecast_needs_days = 4;
  r.total.last_day = "2026-12-06";
  r.total.cap = 2500;
  r.total.crosses_on = "2026-12-06";
  r.total.crossing_forecast = true;
  SpendGroup nlp = group("nlp", 3, 1000);
  nlp.burn.cap = 800;
  nlp.burn.crosses_on = "2026-12-02";
  r.teams = {nlp};
  r.users = {group("asha", 1, 234.567)};
  SpendGroup sft = group("sft", 2, 300);
  sft.tokens = 3e9;
  sft.planned = 250;
  r.experiments = {sft};
  return r;
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("spend JSON: the month's burn and each group's raw figures", "[render][spend]") {
  const nlohmann::json j = spend_report_json(december());
  CHECK(j["as_of"] == "2026-12-10");
  CHECK(j["currency"] == "USD");
  CHECK(j["total"] == nlohmann::json::parse(R"({"period": "2026-12", "spent": 1000, "cap": 2500, "burn_per_day": 100, "forecast": 3100,
      "forecast_method": "linear: the average of 10 days, continued to 2026-12-31", "days_elapsed": 10, "days_in_month": 31, "crosses_on": "2026-12-25", "crossing_forecast": true})"));
  CHECK(j["months"][0] == nlohmann::json::parse(R"({"month": "2026-11", "spent": 800.5})"));
  CHECK(j["days"][1] == nlohmann::json::parse(R"({"date": "2026-12-09", "spent": 600})"));
  const auto& team = j["teams"][0];
  CHECK(team["name"] == "nlp");
  CHECK(team["runs"] == 4);
  CHECK(team["cost_per_run"] == 250);
  CHECK(team["cost_per_million_tokens"] == 0.5);  // 1000 over 2,000 M tokens
  CHECK(team["cap"] == 800);
  CHECK(team["planned"].is_null());
  CHECK_FALSE(team.contains("period"));   // the month's, not the group's
  CHECK_FALSE(team.contains("samples"));  // no outcomes in this ledger
  CHECK(j["experiments"][0]["cost_per_million_tokens"].is_null());  // no tokens recorded
  CHECK(j["experiments"][0]["planned"] == 250);
  CHECK(j["users"][0]["cap"].is_null());
  CHECK(j["users"][0]["crosses_on"].is_null());
  CHECK(j["users"][0]["forecast"].is_null());  // no forecast made for the group
  CHECK(j["largest"][0] == nlohmann::json::parse(R"({"kind": "team", "name": "nlp", "spent": 1000, "share": 1.0})"));
  CHECK(j["alerts"][0]["kind"] == "over_cap");
  CHECK_FALSE(j.contains("families"));
}

TEST_CASE("spend CSV: one row per section and name, two decimals, formula-safe names", "[render][spend]") {
  CHECK(render_csv(spend_csv_table(december())) ==
        "section,name,spent,cap,forecast,crosses_on,runs,cost_per_run,cost_per_million_tokens,planned\n"
        "month,2026-11,800.50,,,,,,,\n"
        "month,2026-12,1000.00,,,,,,,\n"
        "total,total,1000.00,2500.00,3100.00,2026-12-25,,,,\n"
        "team,nlp,1000.00,800.00,3100.00,2026-12-08,4,250.00,0.50,\n"
        "user,<script>alert(1)</script>,50.00,,0.00,,1,50.00,,\n"
        "user,'=1+1,25.00,,0.00,,1,25.00,,\n"
        "experiment,sft/a,300.00,,0.00,,2,150.00,,250.00\n"
        "alert,team nlp,,,,,,,,\n");
}

TEST_CASE("the HTML page: no scripts, names escaped, a table behind every chart", "[render][spend]") {
  const std::string h = spend_report_html(december());
  CHECK(h.rfind("<!DOCTYPE html><html lang=\"en\">", 0) == 0);
  CHECK(h.size() >= 15);
  CHECK(h.compare(h.size() - 15, 15, "</body></html>\n") == 0);
  CHECK(has(h, "content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\""));
  CHECK(has(h, "<title>GPU spend 2026-12</title>"));
  CHECK_FALSE(has(h, "<script"));
  CHECK(has(h, "&lt;script&gt;alert(1)&lt;/script&gt;"));
  for (const char* id : {"summary", "days", "months", "teams", "users", "experiments", "largest"})
    CHECK(has(h, "<table id=\"" + std::string(id) + "\">"));
  CHECK(has(h, "<li><span class=\"tag\">OVER CAP</span>team nlp: spent 1000.00 USD in 2026-12, over the cap 800.00 USD since 2026-12-08</li>"));
  CHECK(has(h, "<tr><td>period-end forecast</td><td class=\"n\">3100.00</td></tr>"));
  CHECK(has(h, "<tr><td>cap crossed on</td><td class=\"n\">2026-12-25 (forecast)</td></tr>"));
  CHECK(has(h, "<tr><td>nlp</td><td class=\"n\">1000.00</td><td class=\"n\">800.00</td><td class=\"n\">125.00%</td><td class=\"n\">100.00</td>"
               "<td class=\"n\">3100.00</td><td>2026-12-08 (crossed)</td><td class=\"n\">4</td></tr>"));
  CHECK(has(h, "<tr><td>sft/a</td><td class=\"n\">2</td><td class=\"n\">300.00</td><td class=\"n\">150.00</td><td class=\"n\">40.00</td>"
               "<td class=\"n\"></td><td class=\"n\">250.00</td><td class=\"n\">50.00</td></tr>"));
  CHECK(has(h, "<rect class=\"bar over\""));  // nlp is over its cap: hatched, and said in words
  CHECK(has(h, ">1000.00 (over cap)</text>"));
  CHECK(has(h, ">sft/a planned</text>"));
  CHECK(has(h, "aria-label=\"Cumulative spend this month, cap and forecast\""));
  CHECK(has(h, "<tr><td>2026-12-09</td><td class=\"n\">600.00</td><td class=\"n\">1000.00</td></tr>"));  // running total
}

TEST_CASE("an empty month: no alerts said in words, no charts without data", "[render][spend]") {
  SpendReport r;
  r.as_of = "2026-12-01";
  r.period = "2026-12";
  r.currency = "EUR";
  const std::string h = spend_report_html(r);
  CHECK(has(h, "<section><h2>Alerts</h2><p>No alerts.</p></section>"));
  CHECK_FALSE(has(h, "<svg"));  // no days in the month, no bars
  CHECK(has(h, "<tr><td>period-end forecast</td><td class=\"n\">-</td></tr>"));
  const nlohmann::json j = spend_report_json(r);
  CHECK(j["teams"] == nlohmann::json::array());
  CHECK(j["total"]["forecast"].is_null());
  CHECK(j["total"]["cap"].is_null());
  CHECK(render_csv(spend_csv_table(r)) ==
        "section,name,spent,cap,forecast,crosses_on,runs,cost_per_run,cost_per_million_tokens,planned\n"
        "total,total,0.00,,0.00,,,,,\n");
}

TEST_CASE("html_escape escapes markup and quotes and drops control characters", "[render][spend]") {
  CHECK(html_escape("a&b<c>\"d'\n") == "a&amp;b&lt;c&gt;&quot;d&#39;\xEF\xBF\xBD");
}

TEST_CASE("the dashboard's tables round money to cents and mark forecast crossings", "[render][spend]") {
  const std::vector<Table> t = spend_report_tables(week());
  REQUIRE(t.size() == 4);  // no families: no outcomes table
  CHECK(t[0].title == "Spend 2026-W49 as of 2026-12-03 (EUR)");
  CHECK(t[0].rows == std::vector<std::vector<std::string>>{{"spent", "1234.57"},
                                                           {"cap", "2500.00"},
                                                           {"burn per day", "411.52"},
                                                           {"period-end forecast", "2880.67"},
                                                           {"forecast method", "linear: the average of 3 days, continued to 2026-12-06"},
                                                           {"cap crossed on", "2026-12-06 (forecast)"}});
  CHECK(t[1].title == "Teams");
  CHECK(t[1].rows == std::vector<std::vector<std::string>>{{"nlp", "1000.00", "800.00", "-", "2026-12-02", "3"}});
  CHECK(t[2].rows == std::vector<std::vector<std::string>>{{"asha", "234.57", "-", "-", "-", "1"}});
  CHECK(t[3].columns.size() == 6);  // cost per sample and request only once runs carry outcomes
  CHECK(t[3].rows == std::vector<std::vector<std::string>>{{"sft", "2", "300.00", "150.00", "0.10", "250.00"}});
}

TEST_CASE("the dashboard's notes: each alert in words, or none", "[render][spend]") {
  SpendReport r = week();
  CHECK(spend_report_notes(r) == std::vector<std::string>{"no alerts"});
  r.alerts = {{AlertKind::spot_no_checkpoint, "cheap", {}, 0, 0, "", ""}, {AlertKind::unpriced, "big", {}, 0, 0, "", "no offer fits"}};
  CHECK(spend_report_notes(r) ==
        std::vector<std::string>{"alert: cheap: runs on spot instances and sets no checkpoint interval; a preemption loses the run",
                                 "alert: big: cannot be priced: no offer fits"});
}

TEST_CASE("spend forecast method: linear once enough days are in, none before, nothing before the period", "[render][spend]") {
  MonthBurn b;
  CHECK(forecast_method_text(b).empty());
  b.days_elapsed = 3;
  b.forecast_needs_days = 7;
  b.last_day = "2026-12-31";
  CHECK(forecast_method_text(b) == "none: 3 of 7 days a forecast needs");
  b.days_elapsed = 10;
  b.forecast_made = true;
  CHECK(forecast_method_text(b) == "linear: the average of 10 days, continued to 2026-12-31");
}
