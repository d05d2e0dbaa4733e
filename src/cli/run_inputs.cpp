#include "cli/run_inputs.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>

#include "cli/common.hpp"
#include "cli/workload_flags.hpp"
#include "io/model_files/hf_config.hpp"
#include "io/usage/measured_data.hpp"

namespace gpuplan::cli {

namespace {

ModelArch record_model(const Catalog& catalog, const io::RunRecord& r) {
  if (r.model_arch) return *r.model_arch;
  if (!r.model_config_json.empty()) return io::parse_hf_config(r.model_config_json, r.where.path + ":" + std::to_string(r.where.line) + ":model_config");
  if (!r.model_config_path.empty()) {
    std::filesystem::path p = r.model_config_path;
    if (p.is_relative()) p = std::filesystem::path(r.where.path).parent_path() / p;
    return io::read_hf_config(p.string());
  }
  const auto hit = catalog.find_model(r.model);
  if (!hit.found) throw InputError(r.where, "model", lookup_failure("model", r.model, hit));
  return *hit.found;
}

std::optional<Gpu> record_gpu(const Catalog& catalog, const io::RunRecord& r) {
  std::string lower = r.gpu;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (lower.empty() || lower == "cpu") return std::nullopt;
  auto hit = catalog.find_gpu(r.gpu);
  // torch names cards "NVIDIA GeForce RTX 4090", "NVIDIA A100-SXM4-80GB": try without the vendor.
  if (!hit.found && lower.rfind("nvidia ", 0) == 0) hit = catalog.find_gpu(r.gpu.substr(7));
  if (!hit.found) throw InputError(r.where, "gpu", lookup_failure("GPU", r.gpu, hit) + " (give the catalog id, see gpuplan gpus list)");
  return *hit.found;
}

// estimate's workload flags, built once per thread: building them costs ten times reading a
// record, and every run prices the shipped cases for its error bars. Each use starts from the
// flags as registration left them, with CLI11's results cleared.
struct RecordParser {
  CLI::App app{"run record"};
  WorkloadFlags flags;
  WorkloadFlags initial;
  std::set<std::string> names;  // every "--flag" spelling: CLI11's own lookup is a linear scan
  RecordParser() {
    add_workload_options(app, flags);
    initial = flags;
    for (const CLI::Option* o : all_options(app)) {
      for (const auto& n : o->get_lnames()) names.insert("--" + n);
      for (const auto& n : o->get_snames()) names.insert("-" + n);
    }
  }
};

RecordParser& record_parser() {
  thread_local RecordParser p;
  p.app.clear();
  p.flags = p.initial;
  return p;
}

// The record's settings read as estimate reads its flags.
Workload record_workload(const Context& ctx, const io::RunRecord& r, const ModelArch& m, bool& context_given,
                         bool& fragmentation_given) {
  // A run is estimated with its own settings only: no --profile leaks into what it is compared with.
  Context no_profile = ctx;
  no_profile.options.profile.clear();
  RecordParser& parser = record_parser();
  CLI::App& app = parser.app;
  const WorkloadFlags& flags = parser.flags;
  std::vector<std::string> args;
  for (const auto& [flag, value] : r.settings) {
    if (flag == "--model" || flag == "--model-config" || flag == "--safetensors" || flag == "--params")
      throw InputError(r.where, flag.substr(2), "give the model in the record's model fields, not in settings");
    if (!parser.names.count(flag)) throw InputError(r.where, flag.substr(2), "not an estimate setting");
    args.push_back(flag);
    if (!value.empty()) args.push_back(value);
    context_given = context_given || flag == "--overhead";
    fragmentation_given = fragmentation_given || flag == "--fragmentation";
  }
  std::reverse(args.begin(), args.end());
  try {
    app.parse(args);
    return build_workload(no_profile, flags, m);
  } catch (const CLI::ParseError& e) {
    throw InputError(r.where, "settings", e.what());
  } catch (const InputError& e) {
    std::string field = e.field();
    if (field.rfind("--", 0) == 0) field = field.substr(2);
    throw InputError(r.where, field, e.problem());
  }
}

}  // namespace

MeasuredRun to_measured_run(const Context& ctx, const io::RunRecord& r) {
  MeasuredRun run;
  run.id = r.id;
  run.model = record_model(ctx.catalog(), r);
  run.params = count_params(run.model);
  run.workload = record_workload(ctx, r, run.model, run.context_given, run.fragmentation_given);
  run.grad_accum = r.grad_accum;
  run.gpu = record_gpu(ctx.catalog(), r);
  if (run.gpu) {
    run.links.gpus_per_node = 8;  // one node of up to 8 cards, as the measured cases ran
    run.links.intra_node_gbps = run.gpu->interconnect_gbps;
  }
  run.allocated_bytes = r.allocated_bytes;
  run.reserved_bytes = r.reserved_bytes;
  run.device_bytes = r.device_bytes;
  run.tokens_per_second = r.tokens_per_second;
  return run;
}

std::vector<MeasuredRun> to_measured_runs(const Context& ctx, const std::vector<io::RunRecord>& records) {
  std::vector<MeasuredRun> out;
  std::vector<InputError> errors;
  for (const auto& r : records) {
    try {
      out.push_back(to_measured_run(ctx, r));
    } catch (const InputError& e) {
      errors.push_back(e);
    } catch (const InputErrors& e) {
      for (const auto& x : e.errors()) errors.push_back(x);
    }
  }
  if (!errors.empty()) throw InputErrors(std::move(errors));
  return out;
}

std::vector<MeasuredRun> shipped_memory_cases(const Context& ctx) { return to_measured_runs(ctx, io::shipped_measured_runs("memory")); }

std::vector<MeasuredRun> shipped_throughput_cases(const Context& ctx) {
  return to_measured_runs(ctx, io::shipped_measured_runs("throughput"));
}

}  // namespace gpuplan::cli
