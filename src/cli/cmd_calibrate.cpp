// gpuplan calibrate: fit the team's constants to its measured runs, report each run before and
// after, and write the profile that --profile loads.
#include <memory>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/format_values.hpp"
#include "cli/run_inputs.hpp"
#include "cli/uncertainty.hpp"
#include "gpuplan/calibrate.hpp"
#include "io/catalogs/profile_yaml.hpp"
#include "io/text/files.hpp"
#include "io/usage/run_records.hpp"

namespace gpuplan::cli {
namespace {

struct CalibrateFlags {
  std::string runs, out;
  bool partial = false;
};

const char* const kForms[] = {"consumer", "workstation", "datacentre"};
const char* const kMethods[] = {"full", "lora", "qlora", "freeze", "inference", "pretrain"};

std::string quantity_text(double v, bool memory) { return memory ? num(v / (1024.0 * 1024 * 1024), 2) + " GiB" : num(v, 1) + " tok/s"; }
std::string pct(const std::optional<double>& e) { return e ? (*e >= 0 ? "+" : "") + num(100 * *e, 1) + "%" : "-"; }

// One row per measured quantity: the run's measurement, the default estimate, the calibrated one,
// and the leave-one-out estimate (the profile fitted without this run).
void add_run_rows(const MeasuredRun& run, const RunEstimate& before, const RunEstimate& after, const RunEstimate& loo,
                  io::Table& t, nlohmann::json& j) {
  nlohmann::json rj = {{"id", run.id}, {"gpu", run.gpu ? nlohmann::json(run.gpu->id) : nlohmann::json(nullptr)}};
  if (before.memory != MemoryMeasure::none) {
    t.rows.push_back({run.id, std::string("memory (") + to_string(before.memory) + ")", quantity_text(before.memory_measured, true),
                      quantity_text(before.memory_estimate, true), pct(before.memory_error()),
                      quantity_text(after.memory_estimate, true), pct(after.memory_error()), pct(loo.memory_error())});
    t.csv_rows.push_back({run.id, std::string("memory_bytes_") + to_string(before.memory), io::raw(before.memory_measured),
                          io::raw(before.memory_estimate), io::raw(before.memory_error()), io::raw(after.memory_estimate),
                          io::raw(after.memory_error()), io::raw(loo.memory_error())});
    rj["memory"] = {{"measure", to_string(before.memory)}, {"measured_bytes", before.memory_measured},
                    {"before_bytes", before.memory_estimate}, {"after_bytes", after.memory_estimate},
                    {"error_before", *before.memory_error()}, {"error_after", *after.memory_error()},
                    {"error_leave_one_out", *loo.memory_error()}};
  }
  if (before.has_throughput) {
    t.rows.push_back({run.id, "tokens/s", quantity_text(before.throughput_measured, false),
                      quantity_text(before.throughput_estimate, false), pct(before.throughput_error()),
                      quantity_text(after.throughput_estimate, false), pct(after.throughput_error()), pct(loo.throughput_error())});
    t.csv_rows.push_back({run.id, "tokens_per_second", io::raw(before.throughput_measured), io::raw(before.throughput_estimate),
                          io::raw(before.throughput_error()), io::raw(after.throughput_estimate), io::raw(after.throughput_error()),
                          io::raw(loo.throughput_error())});
    rj["throughput"] = {{"measured_tokens_per_second", before.throughput_measured},
                        {"before_tokens_per_second", before.throughput_estimate},
                        {"after_tokens_per_second", after.throughput_estimate},
                        {"error_before", *before.throughput_error()}, {"error_after", *after.throughput_error()},
                        {"error_leave_one_out", *loo.throughput_error()}};
  }
  if (!run.gpu) rj["skipped"] = "CPU run: the models are for GPUs, so only its record is checked";
  else if (before.memory == MemoryMeasure::none && !before.has_throughput) rj["skipped"] = "measures nothing a model predicts";
  j.push_back(rj);
}

void add_constant(const std::string& name, double fallback, const std::optional<double>& fitted, int runs, io::Table& t,
                  nlohmann::json& j, int decimals) {
  const std::string moved = fitted && fallback != 0 ? pct((*fitted - fallback) / fallback) : "-";
  t.rows.push_back({name, num(fallback, decimals), fitted ? num(*fitted, decimals) : "(default)", fitted ? std::to_string(runs) : "0", moved});
  j.push_back({{"constant", name}, {"default", fallback}, {"fitted", fitted ? nlohmann::json(*fitted) : nlohmann::json(nullptr)},
               {"runs", fitted ? runs : 0}});
}

io::Table constants_table(const Profile& p, const std::vector<MeasuredRun>& runs, nlohmann::json& j) {
  io::Table t;
  t.title = "Constants";
  t.columns = {"constant", "default", "fitted", "runs", "moved"};
  t.align = {io::Align::left, io::Align::right, io::Align::right, io::Align::right, io::Align::right};
  int device = 0, frag = 0;
  for (const auto& r : runs) device += r.device_bytes && !r.context_given, frag += (r.reserved_bytes && r.allocated_bytes) || (r.device_bytes && r.context_given);
  const MemoryConstants mk;
  add_constant("cuda_context_gib", mk.overhead_bytes / (1024.0 * 1024 * 1024),
               p.cuda_context_bytes ? std::optional<double>(*p.cuda_context_bytes / (1024.0 * 1024 * 1024)) : std::nullopt, device, t, j, 3);
  add_constant("fragmentation", mk.fragmentation, p.fragmentation, frag, t, j, 3);
  add_constant("utilisation_scale (pooled)", 1.0, p.hfu_scale, p.hfu_scale_runs, t, j, 3);
  for (int i = 0; i < kHfuSlots; ++i) {
    if (!(p.hfu[i] > 0)) continue;
    Gpu g;
    g.form = static_cast<GpuForm>(i / 6);
    Workload w;
    add_constant(std::string("utilisation[") + kForms[i / 6] + "/" + kMethods[i % 6] + "]", default_hfu(g, w), p.hfu[i], p.hfu_runs[i], t, j, 3);
  }
  int decode = 0;
  for (const auto& r : runs) decode += r.gpu && r.tokens_per_second && r.workload.method == Method::inference;
  const ServingConstants sk;
  add_constant("bandwidth_efficiency", sk.bandwidth_efficiency, p.bandwidth_efficiency, decode, t, j, 3);
  add_constant("step_overhead_ms", sk.step_overhead_seconds * 1000,
               p.step_overhead_seconds ? std::optional<double>(*p.step_overhead_seconds * 1000) : std::nullopt, decode, t, j, 3);
  return t;
}

[[noreturn]] void refuse_underfit(const CalibrateFlags& f, const std::vector<Underfit>& u) {
  std::vector<InputError> errors;
  for (const Underfit& x : u)
    errors.emplace_back(SourceLocation{f.runs, 0, 0}, x.constant,
                        std::to_string(x.runs) + " run" + (x.runs == 1 ? " measures" : "s measure") + " it; a robust fit needs at least " +
                            std::to_string(x.needed) + " (add runs, or pass --partial to keep its default)");
  throw InputErrors(std::move(errors));
}

int run_calibrate(const Context& ctx, const CalibrateFlags& f) {
  const std::vector<MeasuredRun> runs = to_measured_runs(ctx, io::read_run_records(f.runs));
  FitResult fit = fit_profile(runs);
  if (!fit.underfit.empty() && !f.partial) refuse_underfit(f, fit.underfit);
  Profile& p = fit.profile;
  p.source = f.runs;
  const std::vector<RunEstimate> loo = leave_one_out(runs);
  for (const RunEstimate& e : loo) {
    if (auto m = e.memory_error()) p.memory_errors.push_back(*m);
    if (auto t = e.throughput_error()) p.throughput_errors.push_back(*t);
  }
  Report r;
  io::Table t;
  t.title = "Runs: before and after calibration";
  t.columns = {"run", "measure", "measured", "default", "error", "calibrated", "error", "left out"};
  t.csv_columns = {"run", "measure", "measured", "default", "error_default", "calibrated", "error_calibrated", "error_left_out"};
  t.cuttable = {0};  // run ids carry the whole setup; JSON and --wide keep them
  t.align = {io::Align::left, io::Align::left, io::Align::right, io::Align::right, io::Align::right, io::Align::right, io::Align::right, io::Align::right};
  r.json["runs"] = nlohmann::json::array();
  for (std::size_t i = 0; i < runs.size(); ++i)
    add_run_rows(runs[i], estimate_run(runs[i], Profile{}), estimate_run(runs[i], p), loo[i], t, r.json["runs"]);
  r.json["constants"] = nlohmann::json::array();
  r.tables = {t, constants_table(p, runs, r.json["constants"])};
  r.json["underfit"] = nlohmann::json::array();
  for (const Underfit& u : fit.underfit) {
    r.json["underfit"].push_back({{"constant", u.constant}, {"runs", u.runs}, {"needed", u.needed}});
    r.notes.push_back(u.constant + ": kept at its default (" + std::to_string(u.runs) + " runs, a fit needs " + std::to_string(u.needed) + ")");
  }
  r.json["error_bars"] = {{"memory", band_json(error_band(p.memory_errors))}, {"throughput", band_json(error_band(p.throughput_errors))}};
  r.notes.push_back("left out: each run estimated by a profile fitted to the other runs (what --profile's error bars use)");
  for (const char* what : {"memory", "throughput"}) {
    const auto b = error_band(what[0] == 'm' ? p.memory_errors : p.throughput_errors);
    if (b) r.notes.push_back(std::string(what) + " error bars: " + band_text(*b));
  }
  if (!f.out.empty()) {
    // Never write a profile gpuplan's own reader refuses (a run with a 1e308-byte peak fitted
    // one): read the text back first, and on a refusal write nothing and say which value.
    const std::string text = io::profile_to_yaml(p);
    try {
      (void)io::parse_profile(text, f.out);
    } catch (const InputErrors& e) {
      bad_flag("--out", "the fitted profile is outside what a profile may hold (" + e.errors().front().field() + ": " +
                            e.errors().front().problem() + "); check the runs' measurements. Nothing was written");
    }
    io::write_file_atomic(f.out, text);
    r.notes.push_back("profile written to " + f.out + " (load it with --profile " + f.out + ")");
    r.json["profile"] = f.out;
  }
  ctx.print_report(r);
  return 0;
}

}  // namespace

void setup_calibrate(CLI::App& app, Context& ctx) {
  auto flags = std::make_shared<CalibrateFlags>();
  auto* cmd = app.add_subcommand("calibrate", "Fit the memory and time constants to your own measured runs");
  cmd->add_option("runs", flags->runs, "Run records, JSON Lines (tools/probe/gpuplan_probe.py writes them; docs/run-records.md)")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--out", flags->out, "Write the fitted profile here (YAML)");
  cmd->add_flag("--partial", flags->partial, "Fit what the runs allow; keep defaults for constants with too few runs");
  add_common_options(*cmd, ctx, kCatalogs);
  cmd->footer("Examples:\n  gpuplan calibrate runs.jsonl --out profile.yaml\n  gpuplan estimate --model llama-3.1-8b --method lora --profile profile.yaml\n"
              "Exit 2 when a constant is measured by too few runs to fit (the message says how many it needs).");
  on_parsed(*cmd, ctx, [&ctx, flags] { return run_calibrate(ctx, *flags); });
}

}  // namespace gpuplan::cli
