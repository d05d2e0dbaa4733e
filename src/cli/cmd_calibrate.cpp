// gpuplan calibrate: fit the team's constants to its measured runs, report each run before and
// after, and write the profile that --profile loads.
#include <memory>

#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/run_inputs.hpp"
#include "gpuplan/calibrate.hpp"
#include "io/catalogs/profile_yaml.hpp"
#include "io/render/calibrate_render.hpp"
#include "io/text/files.hpp"
#include "io/usage/run_records.hpp"

namespace gpuplan::cli {
namespace {

struct CalibrateFlags {
  std::string runs, out;
  bool partial = false;
};

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
  io::CalibrationReport report;
  for (std::size_t i = 0; i < runs.size(); ++i) report.runs.push_back({&runs[i], estimate_run(runs[i], Profile{}), estimate_run(runs[i], p), loo[i]});
  report.constants = calibration_constants(p, runs);
  report.underfit = fit.underfit;
  report.memory_band = error_band(p.memory_errors);
  report.throughput_band = error_band(p.throughput_errors);
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
    report.written_to = f.out;
  }
  Report r;
  r.json = io::calibration_json(report);
  r.tables = io::calibration_tables(report);
  r.notes = io::calibration_notes(report);
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
