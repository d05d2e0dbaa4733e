#include "io/render/calibrate_render.hpp"

#include "io/render/format.hpp"

namespace gpuplan::io {
namespace {

using nlohmann::json;

std::string signed_pct(double e) { return (e >= 0 ? "+" : "") + num(100 * e, 1) + "%"; }
std::string pct(const std::optional<double>& e) { return e ? signed_pct(*e) : "-"; }
std::string quantity_text(double v, bool memory) { return memory ? num(v / (1024.0 * 1024 * 1024), 2) + " GiB" : num(v, 1) + " tok/s"; }

json run_json(const CalibratedRun& c) {
  const RunEstimate &before = c.before, &after = c.after, &loo = c.left_out;
  json rj = {{"id", c.run->id}, {"gpu", c.run->gpu ? json(c.run->gpu->id) : json(nullptr)}};
  if (before.memory != MemoryMeasure::none)
    rj["memory"] = {{"measure", to_string(before.memory)}, {"measured_bytes", before.memory_measured},
                    {"before_bytes", before.memory_estimate}, {"after_bytes", after.memory_estimate},
                    {"error_before", *before.memory_error()}, {"error_after", *after.memory_error()},
                    {"error_leave_one_out", *loo.memory_error()}};
  if (before.has_throughput)
    rj["throughput"] = {{"measured_tokens_per_second", before.throughput_measured},
                        {"before_tokens_per_second", before.throughput_estimate},
                        {"after_tokens_per_second", after.throughput_estimate},
                        {"error_before", *before.throughput_error()}, {"error_after", *after.throughput_error()},
                        {"error_leave_one_out", *loo.throughput_error()}};
  if (!c.run->gpu) rj["skipped"] = "CPU run: the models are for GPUs, so only its record is checked";
  else if (before.memory == MemoryMeasure::none && !before.has_throughput) rj["skipped"] = "measures nothing a model predicts";
  return rj;
}

// One row per measured quantity: the measurement, the default estimate, the calibrated one and
// the leave-one-out one.
void add_run_rows(const CalibratedRun& c, Table& t) {
  const RunEstimate &before = c.before, &after = c.after, &loo = c.left_out;
  const std::string& id = c.run->id;
  if (before.memory != MemoryMeasure::none) {
    t.rows.push_back({id, std::string("memory (") + to_string(before.memory) + ")", quantity_text(before.memory_measured, true),
                      quantity_text(before.memory_estimate, true), pct(before.memory_error()),
                      quantity_text(after.memory_estimate, true), pct(after.memory_error()), pct(loo.memory_error())});
    t.csv_rows.push_back({id, std::string("memory_bytes_") + to_string(before.memory), raw(before.memory_measured),
                          raw(before.memory_estimate), raw(before.memory_error()), raw(after.memory_estimate),
                          raw(after.memory_error()), raw(loo.memory_error())});
  }
  if (before.has_throughput) {
    t.rows.push_back({id, "tokens/s", quantity_text(before.throughput_measured, false), quantity_text(before.throughput_estimate, false),
                      pct(before.throughput_error()), quantity_text(after.throughput_estimate, false), pct(after.throughput_error()),
                      pct(loo.throughput_error())});
    t.csv_rows.push_back({id, "tokens_per_second", raw(before.throughput_measured), raw(before.throughput_estimate),
                          raw(before.throughput_error()), raw(after.throughput_estimate), raw(after.throughput_error()),
                          raw(loo.throughput_error())});
  }
}

Table runs_table(const CalibrationReport& r) {
  Table t;
  t.title = "Runs: before and after calibration";
  t.columns = {"run", "measure", "measured", "default", "error", "calibrated", "error", "left out"};
  t.csv_columns = {"run", "measure", "measured", "default", "error_default", "calibrated", "error_calibrated", "error_left_out"};
  t.cuttable = {0};  // run ids carry the whole setup; JSON and --wide keep them
  t.align = {Align::left, Align::left, Align::right, Align::right, Align::right, Align::right, Align::right, Align::right};
  for (const CalibratedRun& c : r.runs) add_run_rows(c, t);
  return t;
}

Table constants_table(const CalibrationReport& r) {
  Table t;
  t.title = "Constants";
  t.columns = {"constant", "default", "fitted", "runs", "moved"};
  t.align = {Align::left, Align::right, Align::right, Align::right, Align::right};
  for (const ConstantFit& c : r.constants) {
    const std::string moved = c.fitted && c.default_value != 0 ? pct((*c.fitted - c.default_value) / c.default_value) : "-";
    t.rows.push_back({c.name, num(c.default_value, 3), c.fitted ? num(*c.fitted, 3) : "(default)", std::to_string(c.runs), moved});
  }
  return t;
}

}  // namespace

json band_json(const std::optional<ErrorBand>& b) {
  if (!b) return nullptr;
  return {{"low", b->low}, {"high", b->high}, {"cases", b->cases}, {"within", b->within}, {"coverage", b->coverage}};
}

std::string band_text(const ErrorBand& b) {
  return std::to_string(b.within) + " of " + std::to_string(b.cases) + " measured cases within " + signed_pct(b.low) + ".." +
         signed_pct(b.high);
}

json calibration_json(const CalibrationReport& r) {
  json j;
  j["runs"] = json::array();
  for (const CalibratedRun& c : r.runs) j["runs"].push_back(run_json(c));
  j["constants"] = json::array();
  for (const ConstantFit& c : r.constants)
    j["constants"].push_back({{"constant", c.name}, {"default", c.default_value},
                              {"fitted", c.fitted ? json(*c.fitted) : json(nullptr)}, {"runs", c.runs}});
  j["underfit"] = json::array();
  for (const Underfit& u : r.underfit) j["underfit"].push_back({{"constant", u.constant}, {"runs", u.runs}, {"needed", u.needed}});
  j["error_bars"] = {{"memory", band_json(r.memory_band)}, {"throughput", band_json(r.throughput_band)}};
  if (!r.written_to.empty()) j["profile"] = r.written_to;
  return j;
}

std::vector<Table> calibration_tables(const CalibrationReport& r) { return {runs_table(r), constants_table(r)}; }

std::vector<std::string> calibration_notes(const CalibrationReport& r) {
  std::vector<std::string> notes;
  for (const Underfit& u : r.underfit)
    notes.push_back(u.constant + ": kept at its default (" + std::to_string(u.runs) + " runs, a fit needs " + std::to_string(u.needed) + ")");
  notes.push_back("left out: each run estimated by a profile fitted to the other runs (what --profile's error bars use)");
  if (r.memory_band) notes.push_back("memory error bars: " + band_text(*r.memory_band));
  if (r.throughput_band) notes.push_back("throughput error bars: " + band_text(*r.throughput_band));
  if (!r.written_to.empty()) notes.push_back("profile written to " + r.written_to + " (load it with --profile " + r.written_to + ")");
  return notes;
}

}  // namespace gpuplan::io
