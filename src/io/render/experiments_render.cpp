#include "io/render/experiments_render.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "io/render/spend_render.hpp"

namespace gpuplan::io {

namespace {

using nlohmann::json;

std::string fmt2(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

json opt(const std::optional<double>& v) { return v ? json(*v) : json(); }

std::string plural(std::size_t n, const char* one, const char* many) { return std::to_string(n) + " " + (n == 1 ? one : many); }

// "eval_loss down 0.12" / "accuracy up 0.03": a gain in the metric's own direction.
std::string gain_text(const MetricSeries& s, double gain) { return s.metric + (s.higher_is_better ? " up " : " down ") + metric_text(gain); }

const MetricRun* best_run(const MetricSeries& s) {
  const MetricRun* best = nullptr;
  for (const auto& r : s.runs)
    if (!best || (s.higher_is_better ? r.value > best->value : r.value < best->value)) best = &r;
  return best;
}

json series_json(const MetricSeries& s, const DecisionRule& rule, const std::string& currency) {
  json runs = json::array();
  for (const auto& r : s.runs)
    runs.push_back({{"experiment", r.experiment}, {"date", r.date}, {"id", r.id}, {"cost", r.cost}, {"value", r.value},
                    {"on_frontier", r.on_frontier}, {"improved", r.improved},
                    {"dominated_by", r.dominated_by ? json(*r.dominated_by) : json()}});
  json improvements = json::array();
  for (const auto& i : s.improvements)
    improvements.push_back({{"run", i.run}, {"experiment", s.runs[i.run].experiment}, {"gain", i.gain}, {"cost", i.cost}, {"runs", i.runs},
                            {"cost_per_run", i.cost_per_run()}, {"cost_per_gain", i.cost_per_gain()}});
  const MetricRun* best = best_run(s);
  return {{"metric", s.metric},
          {"better", s.higher_is_better ? "higher" : "lower"},
          {"best", best ? json(best->value) : json()},
          {"runs", runs},
          {"frontier", s.frontier},
          {"improvements", improvements},
          {"last_improvement", s.improvements.empty() ? json() : improvements.back()},
          {"wasted_runs", s.wasted},
          {"wasted_cost", s.wasted_cost},
          {"runs_since_frontier", s.runs_since_frontier},
          {"cost_since_frontier", s.cost_since_frontier},
          {"cost_per_gain_ratio", opt(s.cost_per_gain_ratio)},
          {"decision", to_string(s.decision)},
          {"basis", to_string(s.basis)},
          {"reason", decision_reason(s, rule, currency)}};
}

json family_json(const FamilyOutcome& f, const DecisionRule& rule, const std::string& currency) {
  json idle = json::array();
  for (IdleCause c : f.idle_causes) idle.push_back({{"cause", to_string(c)}, {"advice", idle_advice(c)}});
  json metrics = json::array();
  for (const auto& s : f.metrics) metrics.push_back(series_json(s, rule, currency));
  return {{"family", f.family},
          {"experiments", f.experiments},
          {"records", f.records},
          {"spent", f.spent},
          {"gpu_hours", f.gpu_hours},
          {"tokens", f.tokens},
          {"samples", f.samples},
          {"requests", f.requests},
          {"cost_per_million_tokens", opt(f.cost_per_million_tokens)},
          {"cost_per_million_samples", opt(f.cost_per_million_samples)},
          {"cost_per_thousand_requests", opt(f.cost_per_thousand_requests)},
          {"utilization", opt(f.utilization)},
          {"utilization_runs", f.utilization_runs},
          {"utilization_low", f.utilization_low},
          {"idle", idle},
          {"restore_seconds_max", opt(f.restore_seconds_max)},
          {"decision", f.metrics.empty() ? json() : json(to_string(f.metrics.front().decision))},
          {"metrics", metrics}};
}

std::string improvement_text(const MetricSeries& s, const Improvement& i, const std::string& cur) {
  return s.runs[i.run].experiment + ", " + gain_text(s, i.gain) + ", cost " + fmt2(i.cost) + " " + cur + " over " + plural(i.runs, "run", "runs") +
         " (" + fmt2(i.cost_per_gain()) + " " + cur + " per unit)";
}

}  // namespace

std::string metric_text(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

std::string decision_reason(const MetricSeries& s, const DecisionRule& rule, const std::string& cur) {
  const std::string limit = fmt2(rule.change_ratio) + "x";
  switch (s.basis) {
    case DecisionBasis::no_recent_frontier: {
      const std::size_t last = s.runs.size() - 1 - s.runs_since_frontier;
      return "stop: none of the last " + plural(s.runs_since_frontier, "run", "runs") + " reached the cost/" + s.metric + " frontier (" +
             fmt2(s.cost_since_frontier) + " " + cur + " spent since " + s.runs[last].experiment + " on " + s.runs[last].date +
             ", the last run on it; the rule stops after " + std::to_string(rule.stop_after_runs) + ")";
    }
    case DecisionBasis::flattened: {
      const Improvement& a = s.improvements[s.improvements.size() - 2];
      const Improvement& b = s.improvements.back();
      return "change method: the last improvement (" + improvement_text(s, b, cur) + ") cost " +
             (s.cost_per_gain_ratio ? fmt2(*s.cost_per_gain_ratio) + "x" : std::string("infinitely more than")) +
             " per unit what the one before did (" + improvement_text(s, a, cur) + "), over the " + limit + " limit; cost per run went from " +
             fmt2(a.cost_per_run()) + " to " + fmt2(b.cost_per_run()) + " " + cur;
    }
    case DecisionBasis::cheap_improvement:
      return "continue: the last improvement (" + improvement_text(s, s.improvements.back(), cur) + ") " +
             (s.cost_per_gain_ratio ? "cost " + fmt2(*s.cost_per_gain_ratio) + "x per unit what the one before did, within the " + limit + " limit"
                                    : std::string("is the first; nothing to compare it with yet"));
    case DecisionBasis::baseline_only:
      break;
  }
  return "continue: " + plural(s.runs.size(), "run", "runs") + ", none better than the first yet; the rule stops after " +
         std::to_string(rule.stop_after_runs) + " in a row off the frontier";
}

std::string idle_advice(IdleCause c) {
  switch (c) {
    case IdleCause::text_input:
      return "text input: pre-tokenise the data set, store it in shards read sequentially, and keep it near the GPUs; "
             "`gpuplan estimate --storage-bandwidth --cpu-cores` says whether storage or tokenising bounds the run";
    case IdleCause::image_input:
      return "image input: decode and augment ahead of the GPU (more loader workers, prefetching, or decoding on the GPU) "
             "and read shards sequentially (WebDataset, Parquet) from storage near the workers";
    case IdleCause::data_input:
      return "data loading: profile a short run for data-loader wait, CPU saturation and storage throughput before adding GPUs";
    case IdleCause::micro_batch:
      return "memory: a micro-batch too small to fill the GPU idles it too; `gpuplan estimate --micro-batch N` shows the largest that fits";
  }
  return "";
}

json families_json(const SpendReport& r) {
  json fams = json::array();
  for (const auto& f : r.families) fams.push_back(family_json(f, r.rule, r.currency));
  return {{"decision_rule",
           {{"stop_after_runs", r.rule.stop_after_runs}, {"change_ratio", r.rule.change_ratio}, {"min_utilization", r.rule.min_utilization}}},
          {"families", fams}};
}

namespace {

std::vector<std::string> series_row(const FamilyOutcome& f, const MetricSeries& s) {
  const MetricRun* best = best_run(s);
  const Improvement* last = s.improvements.empty() ? nullptr : &s.improvements.back();
  return {f.family,
          s.metric + (s.higher_is_better ? " (higher)" : " (lower)"),
          std::to_string(s.runs.size()),
          best ? metric_text(best->value) : "-",
          std::to_string(s.frontier.size()),
          last ? metric_text(last->gain) : "-",
          last ? fmt2(last->cost) : "-",
          last ? fmt2(last->cost_per_gain()) : "-",
          s.cost_per_gain_ratio ? fmt2(*s.cost_per_gain_ratio) + "x" : "-",
          std::to_string(s.wasted.size()) + " (" + fmt2(s.wasted_cost) + ")",
          std::to_string(s.runs_since_frontier),
          to_string(s.decision)};
}

const std::vector<std::string> kColumns = {"family", "metric", "runs", "best", "on frontier", "last gain", "its cost", "cost/gain",
                                           "vs before", "wasted (cost)", "since frontier", "decision"};

}  // namespace

Table families_table(const SpendReport& r) {
  Table t;
  t.title = "Experiment families: cost against quality (" + r.currency + ")";
  t.columns = kColumns;
  t.align = {Align::left, Align::left, Align::right, Align::right, Align::right, Align::right, Align::right,
             Align::right, Align::right, Align::right, Align::right, Align::left};
  t.name_columns = {0};
  t.droppable = {4, 10, 9, 3};  // the notes under the table repeat what decides
  t.cuttable = {0};
  for (const auto& f : r.families)
    for (const auto& s : f.metrics) t.rows.push_back(series_row(f, s));
  return t;
}

std::vector<std::string> family_notes(const SpendReport& r) {
  std::vector<std::string> out;
  for (const auto& f : r.families) {
    if (!f.metrics.empty()) out.push_back("family " + f.family + ": " + decision_reason(f.metrics.front(), r.rule, r.currency));
    if (f.utilization_low) {
      std::string s = "family " + f.family + ": GPU utilization " + fmt2(100 * *f.utilization) + "% (median of " +
                      plural(f.utilization_runs, "run", "runs") + "), below " + fmt2(100 * r.rule.min_utilization) + "%";
      for (IdleCause c : f.idle_causes) s += "; " + idle_advice(c);
      out.push_back(s);
    }
    if (f.restore_seconds_max)
      out.push_back("family " + f.family + ": the slowest checkpoint restore took " + metric_text(*f.restore_seconds_max) +
                    " s (a preemption costs at least that, plus the work since the last checkpoint)");
  }
  return out;
}

namespace {

// Cost (x) against the metric (y): frontier runs filled and joined cheapest first, the others
// hollow; every point carries its run in a <title>, and the table below holds the numbers.
std::string series_chart(const FamilyOutcome& f, const MetricSeries& s, const std::string& cur) {
  if (s.runs.empty()) return "";
  double cmax = 0, vmin = s.runs[0].value, vmax = s.runs[0].value;
  for (const auto& r : s.runs) {
    cmax = std::max(cmax, r.cost);
    vmin = std::min(vmin, r.value);
    vmax = std::max(vmax, r.value);
  }
  if (cmax <= 0) cmax = 1;
  if (vmax - vmin <= 0) vmax = vmin + 1;
  const int W = 520, H = 260, L = 70, B = 40, T = 14, R = 20;
  // Better is up: a lower-is-better metric runs downwards.
  auto X = [&](double c) { return fmt2(L + (W - L - R) * c / cmax); };
  auto Y = [&](double v) {
    const double t = (v - vmin) / (vmax - vmin);
    return fmt2(T + (H - T - B) * (s.higher_is_better ? 1 - t : t));
  };
  const std::string label = f.family + ": cost against " + s.metric;
  std::string out = "<figure class=\"frontier\" data-family=\"" + html_escape(f.family) + "\" data-metric=\"" + html_escape(s.metric) +
                    "\"><svg role=\"img\" aria-label=\"" + html_escape(label) + "\" viewBox=\"0 0 " + std::to_string(W) + " " + std::to_string(H) +
                    "\" width=\"" + std::to_string(W) + "\">";
  out += "<line stroke=\"#111\" x1=\"" + X(0) + "\" y1=\"" + std::to_string(H - B) + "\" x2=\"" + X(cmax) + "\" y2=\"" + std::to_string(H - B) + "\"/>";
  out += "<line stroke=\"#111\" x1=\"" + X(0) + "\" y1=\"" + std::to_string(T) + "\" x2=\"" + X(0) + "\" y2=\"" + std::to_string(H - B) + "\"/>";
  out += "<text x=\"" + X(cmax) + "\" y=\"" + std::to_string(H - 8) + "\" text-anchor=\"end\">cost per run, " + html_escape(cur) + " (max " + fmt2(cmax) +
         ")</text>";
  out += "<text x=\"4\" y=\"" + std::to_string(T + 4) + "\">" + html_escape(metric_text(s.higher_is_better ? vmax : vmin)) + " (better)</text>";
  out += "<text x=\"4\" y=\"" + std::to_string(H - B) + "\">" + html_escape(metric_text(s.higher_is_better ? vmin : vmax)) + "</text>";
  std::string pts;
  for (std::size_t i : s.frontier) pts += (pts.empty() ? "" : " ") + X(s.runs[i].cost) + "," + Y(s.runs[i].value);
  out += "<polyline class=\"line\" points=\"" + pts + "\"/>";
  for (std::size_t i = 0; i < s.runs.size(); ++i) {
    const MetricRun& r = s.runs[i];
    out += "<circle class=\"" + std::string(r.on_frontier ? "run on" : "run off") + "\" cx=\"" + X(r.cost) + "\" cy=\"" + Y(r.value) +
           "\" r=\"5\"><title>" + html_escape(r.experiment + " " + r.date + ": " + fmt2(r.cost) + " " + cur + ", " + s.metric + " " +
                                              metric_text(r.value) + (r.on_frontier ? " (on the frontier)" : " (off the frontier)")) +
           "</title></circle>";
  }
  return out + "</svg><figcaption>" + html_escape(label) + ": filled points are on the frontier (nothing cheaper did as well)</figcaption></figure>";
}

std::string html_rows_table(const Table& t) {
  std::string s = "<table id=\"families\"><caption>Experiment families (table)</caption><thead><tr>";
  for (std::size_t i = 0; i < t.columns.size(); ++i)
    s += std::string("<th scope=\"col\"") + (t.align[i] == Align::right ? " class=\"n\"" : "") + ">" + html_escape(t.columns[i]) + "</th>";
  s += "</tr></thead><tbody>";
  for (const auto& row : t.rows) {
    s += "<tr>";
    for (std::size_t i = 0; i < row.size(); ++i) s += std::string(t.align[i] == Align::right ? "<td class=\"n\">" : "<td>") + html_escape(row[i]) + "</td>";
    s += "</tr>";
  }
  return s + "</tbody></table>";
}

}  // namespace

std::string families_html(const SpendReport& r) {
  // Styles for the charts ride with the section, so a page without outcomes is unchanged.
  std::string s = "<section><style>.run.on{fill:#111}.run.off{fill:#fff;stroke:#111;stroke-width:2}figure.frontier{display:inline-block;margin:0 1em 1em 0}</style>"
                  "<h2>Experiments as decisions: cost against quality</h2><p class=\"note\">Rule: stop when none of a family's last " +
                  std::to_string(r.rule.stop_after_runs) + " runs is on its cost/quality frontier; change the method when the last improvement cost more than " +
                  fmt2(r.rule.change_ratio) + "x per unit gained what the one before did; otherwise continue. Utilization below " +
                  fmt2(100 * r.rule.min_utilization) + "% is flagged.</p>";
  s += "<ul class=\"decisions\" id=\"decisions\">";
  for (const auto& line : family_notes(r)) s += "<li>" + html_escape(line) + "</li>";
  s += "</ul>";
  for (const auto& f : r.families)
    for (const auto& m : f.metrics) s += series_chart(f, m, r.currency);
  return s + html_rows_table(families_table(r)) + "</section>";
}

}  // namespace gpuplan::io
