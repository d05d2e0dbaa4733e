#include "io/catalogs/profile_yaml.hpp"

#include <cmath>
#include <cstdio>

#include "io/text/files.hpp"
#include "io/text/yaml_document.hpp"

namespace gpuplan::io {

namespace {

const char* const kForms[] = {"consumer", "workstation", "datacentre"};
const char* const kMethods[] = {"full", "lora", "qlora", "freeze", "inference", "pretrain"};

std::string num(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string list(const std::vector<double>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + num(v[i]);
  return s + "]";
}

struct ProfileReader {
  const std::string& path;
  std::vector<InputError>& errors;

  double number(const YAML::Node& n, const std::string& field, double lo, double hi) const {
    double v = 0;
    if (!n.IsScalar() || !YAML::convert<double>::decode(n, v) || !std::isfinite(v) || v < lo || v > hi) {
      errors.emplace_back(yaml_location(path, n), field, "expected a number from " + num(lo) + " to " + num(hi));
      return lo;
    }
    return v;
  }
  void unknown_keys(const YAML::Node& map, const std::string& prefix, std::initializer_list<const char*> keys) const {
    if (!map.IsMap()) {
      errors.emplace_back(yaml_location(path, map), prefix, "expected a mapping");
      return;
    }
    for (const auto& kv : map) {
      const std::string k = kv.first.Scalar();
      bool ok = false;
      for (const char* known : keys) ok = ok || k == known;
      if (!ok) errors.emplace_back(yaml_location(path, kv.first), prefix.empty() ? k : prefix + "." + k, "unknown key");
    }
    for (auto& e : repeated_keys(path, map, prefix)) errors.push_back(e);
  }
  std::vector<double> numbers(const YAML::Node& n, const std::string& field) const {
    std::vector<double> out;
    if (!n.IsSequence()) {
      errors.emplace_back(yaml_location(path, n), field, "expected a list of numbers");
      return out;
    }
    // A residual is measured / estimated - 1, and nothing measured is 0: at -1 the "likely"
    // value divides by zero (it printed "likely inf-3244.4 GiB").
    for (const auto& x : n) out.push_back(number(x, field, -0.999, 1000));
    return out;
  }
};

int slot_of(const std::string& key) {
  const auto slash = key.find('/');
  if (slash == std::string::npos) return -1;
  for (int f = 0; f < 3; ++f)
    for (int m = 0; m < 6; ++m)
      if (key.substr(0, slash) == kForms[f] && key.substr(slash + 1) == kMethods[m]) return f * 6 + m;
  return -1;
}

// The key `name` (the spelling profiles are written with) or its first spelling, which profiles
// written before it still use; refused when a file gives both.
std::string spelt(const YAML::Node& t, const ProfileReader& rd, const std::string& name, const std::string& first) {
  if (t[name] && t[first])
    rd.errors.emplace_back(yaml_location(rd.path, t[first]), "time." + first, "give one of time." + name + " and time." + first);
  return t[first] && !t[name] ? first : name;
}

void read_time(const YAML::Node& t, const ProfileReader& rd, Profile& p) {
  rd.unknown_keys(t, "time", {"utilization", "utilization_scale", "utilisation", "utilisation_scale", "bandwidth_efficiency",
                              "step_overhead_seconds"});
  if (!t.IsMap()) return;
  const std::string scale = spelt(t, rd, "utilization_scale", "utilisation_scale"), util = spelt(t, rd, "utilization", "utilisation");
  if (const YAML::Node s = t[scale]) {
    rd.unknown_keys(s, "time." + scale, {"value", "runs"});
    if (!s.IsMap() || !s["value"]) rd.errors.emplace_back(yaml_location(rd.path, s), "time." + scale + ".value", "missing");
    else p.hfu_scale = rd.number(s["value"], "time." + scale + ".value", 0.01, 10);
    if (s.IsMap() && s["runs"]) p.hfu_scale_runs = static_cast<int>(rd.number(s["runs"], "time." + scale + ".runs", 0, 1e9));
  }
  if (t["bandwidth_efficiency"]) p.bandwidth_efficiency = rd.number(t["bandwidth_efficiency"], "time.bandwidth_efficiency", 0.01, 1.5);
  if (t["step_overhead_seconds"]) p.step_overhead_seconds = rd.number(t["step_overhead_seconds"], "time.step_overhead_seconds", 0, 10);
  const YAML::Node u = t[util];
  if (!u) return;
  if (!u.IsMap()) {
    rd.errors.emplace_back(yaml_location(rd.path, u), "time." + util, "expected CLASS/METHOD: {value: V, runs: N}");
    return;
  }
  for (const auto& kv : u) {
    const std::string key = kv.first.Scalar(), field = "time." + util + "." + key;
    const int slot = slot_of(key);
    if (slot < 0) {
      rd.errors.emplace_back(yaml_location(rd.path, kv.first), field,
                             "expected GPU class (consumer, workstation, datacentre) / method (full, lora, qlora, freeze, inference, pretrain)");
      continue;
    }
    rd.unknown_keys(kv.second, field, {"value", "runs"});
    if (!kv.second.IsMap() || !kv.second["value"]) {
      rd.errors.emplace_back(yaml_location(rd.path, kv.second), field + ".value", "missing");
      continue;
    }
    p.hfu[slot] = rd.number(kv.second["value"], field + ".value", 0.001, 3);
    if (kv.second["runs"]) p.hfu_runs[slot] = static_cast<int>(rd.number(kv.second["runs"], field + ".runs", 0, 1e9));
  }
}

}  // namespace

std::string profile_to_yaml(const Profile& p) {
  std::string s = "# gpuplan calibration profile, written by `gpuplan calibrate`. Load with --profile FILE\n"
                  "# or `profile:` in an experiment spec. Absent constants keep gpuplan's defaults.\n";
  s += "gpuplan_profile: 1\n";
  s += "fitted_from: \"" + p.source + "\"\n";
  s += "runs: " + std::to_string(p.runs) + "\n";
  s += "memory:\n";
  if (p.cuda_context_bytes) s += "  cuda_context_bytes: " + num(*p.cuda_context_bytes) + "\n";
  if (p.fragmentation) s += "  fragmentation: " + num(*p.fragmentation) + "\n";
  if (!p.cuda_context_bytes && !p.fragmentation) s += "  {}\n";
  s += "time:\n";
  bool any = false;
  if (p.hfu_scale)
    s += "  utilization_scale: {value: " + num(*p.hfu_scale) + ", runs: " + std::to_string(p.hfu_scale_runs) + "}\n";
  for (int i = 0; i < kHfuSlots; ++i) {
    if (!(p.hfu[i] > 0)) continue;
    if (!any) s += "  utilization:\n";
    any = true;
    s += std::string("    ") + kForms[i / 6] + "/" + kMethods[i % 6] + ": {value: " + num(p.hfu[i]) +
         ", runs: " + std::to_string(p.hfu_runs[i]) + "}\n";
  }
  if (p.bandwidth_efficiency) s += "  bandwidth_efficiency: " + num(*p.bandwidth_efficiency) + "\n";
  if (p.step_overhead_seconds) s += "  step_overhead_seconds: " + num(*p.step_overhead_seconds) + "\n";
  if (!any && !p.hfu_scale && !p.bandwidth_efficiency && !p.step_overhead_seconds) s += "  {}\n";
  s += "# Leave-one-out relative errors of the calibrated model on the runs: the error bars.\n";
  s += "residuals:\n  memory: " + list(p.memory_errors) + "\n  throughput: " + list(p.throughput_errors) + "\n";
  return s;
}

Profile parse_profile(const std::string& text, const std::string& path) {
  YamlDocument doc = parse_yaml_document(text, path, "profile");
  if (!doc.errors.empty()) throw InputErrors(std::move(doc.errors));
  std::vector<InputError> errors;
  const ProfileReader rd{path, errors};
  Profile p;
  const YAML::Node& root = doc.root;
  rd.unknown_keys(root, "", {"gpuplan_profile", "fitted_from", "runs", "memory", "time", "residuals"});
  if (!root.IsMap()) throw InputErrors(std::move(errors));
  if (!root["gpuplan_profile"] || root["gpuplan_profile"].Scalar() != "1")
    errors.emplace_back(yaml_location(path, root), "gpuplan_profile", "expected 1 (is this a calibration profile?)");
  if (root["fitted_from"]) p.source = root["fitted_from"].Scalar();
  if (root["runs"]) p.runs = static_cast<int>(rd.number(root["runs"], "runs", 0, 1e9));
  if (const YAML::Node m = root["memory"]) {
    rd.unknown_keys(m, "memory", {"cuda_context_bytes", "fragmentation"});
    if (m.IsMap() && m["cuda_context_bytes"]) p.cuda_context_bytes = rd.number(m["cuda_context_bytes"], "memory.cuda_context_bytes", 0, 1e12);
    if (m.IsMap() && m["fragmentation"]) p.fragmentation = rd.number(m["fragmentation"], "memory.fragmentation", -0.5, 2);
  }
  if (const YAML::Node t = root["time"]) read_time(t, rd, p);
  if (const YAML::Node r = root["residuals"]) {
    rd.unknown_keys(r, "residuals", {"memory", "throughput"});
    if (r.IsMap() && r["memory"]) p.memory_errors = rd.numbers(r["memory"], "residuals.memory");
    if (r.IsMap() && r["throughput"]) p.throughput_errors = rd.numbers(r["throughput"], "residuals.throughput");
  }
  if (!errors.empty()) throw InputErrors(std::move(errors));
  return p;
}

Profile read_profile(const std::string& path) { return parse_profile(read_file(path, kMaxSmallFileBytes), path); }

}  // namespace gpuplan::io
