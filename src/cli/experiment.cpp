#include "cli/experiment.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>

#include "cli/common.hpp"
#include "cli/model_source.hpp"
#include "gpuplan/budget_lines.hpp"
#include "gpuplan/name_match.hpp"
#include "gpuplan/workload.hpp"
#include "gpuplan/units.hpp"
#include "io/render/price_warning_text.hpp"
#include "io/render/exclusion_text.hpp"

namespace gpuplan::cli {

namespace {

const char* const kMetaKeys[] = {"name", "owner", "team", "approved_by", "max_cost", "description", "profile", "status"};

// The same option definitions as the commands, bound to the parser's own flag structs.
// Building them costs more than reading a spec, so one parser serves every file: reset()
// puts the flags back to what registration left them at, and clears CLI11's results.
struct SpecParser {
  CLI::App app{"experiment"};
  WorkloadFlags workload;
  RunFlags run;
  OfferFlags filter;
  std::map<std::string, const CLI::Option*> by_flag;  // "--flag" -> its option: CLI11's lookup is a linear scan
  SpecParser() {
    app.allow_extras(false);
    add_workload_options(app, workload);
    add_run_options(app, run);
    add_offer_filter_options(app, filter);
    initial_workload = workload;
    initial_run = run;
    initial_filter = filter;
    for (const CLI::Option* o : all_options(app))
      for (const auto& n : o->get_lnames()) by_flag.emplace("--" + n, o);
  }
  const CLI::Option* option(const std::string& flag) const {
    const auto it = by_flag.find(flag);
    return it == by_flag.end() ? nullptr : it->second;
  }
  void reset() {
    app.clear();
    workload = initial_workload;
    run = initial_run;
    filter = initial_filter;
  }

 private:
  WorkloadFlags initial_workload;
  RunFlags initial_run;
  OfferFlags initial_filter;
};

// One per thread: CLI11 apps are not safe to share while parsing.
SpecParser& spec_parser() {
  thread_local SpecParser parser;
  parser.reset();
  return parser;
}

std::string flag_of(const std::string& key) {
  std::string f = "--" + key;
  std::replace(f.begin(), f.end(), '_', '-');
  return f;
}

std::string key_of(const std::string& flag) {
  std::string k = flag.rfind("--", 0) == 0 ? flag.substr(2) : flag;
  std::replace(k.begin(), k.end(), '-', '_');
  return k;
}

bool is_meta(const std::string& key) {
  return std::any_of(std::begin(kMetaKeys), std::end(kMetaKeys), [&](const char* m) { return key == m; });
}

}  // namespace

namespace {

template <class E>
std::vector<std::string> names_of(E last) {
  std::vector<std::string> out;
  for (int i = 0; i <= static_cast<int>(last); ++i) out.push_back(to_string(static_cast<E>(i)));
  return out;
}

// The enumerations a key takes, from the core's own names (what the flag parsers accept).
std::vector<std::string> choices_of(const std::string& key) {
  if (key == "method") return names_of(Method::pretrain);
  if (key == "precision") return names_of(Precision::fp8);
  if (key == "quant") return names_of(WeightFormat::int4_awq);
  if (key == "optimizer") return names_of(Optimizer::lion);
  if (key == "attention") return names_of(Attention::flash);
  if (key == "checkpointing") return names_of(Checkpointing::full);
  if (key == "sharding") return names_of(Sharding::fsdp);
  if (key == "offload") return names_of(Offload::optimizer_params);
  if (key == "kv_cache_dtype") return names_of(KvDtype::int8);
  if (key == "loss") return names_of(Loss::fused);
  if (key == "pricing") return names_of(Pricing::reserved_3y);
  if (key == "packing") return {"on", "off"};
  return {};
}

}  // namespace

std::vector<SpecKey> experiment_keys() {
  SpecParser& p = spec_parser();
  std::vector<SpecKey> keys = {{"name", "Experiment name (default: the file name)", false, false, {"name"}, {}, "TEXT"},
                               {"owner", "User the spend counts against", false, false, {"owner"}, {}, "TEXT"},
                               {"team", "Team the spend counts against", false, false, {"team"}, {}, "TEXT"},
                               {"approved_by", "Who approved a run over the policy's GPU-hour threshold", false, false, {"approved_by"}, {}, "TEXT"},
                               {"max_cost", "This experiment's own cap on one run, e.g. 50 or 4000 INR", false, false, {"max_cost"}, {}, "TEXT"},
                               {"status", "Where the experiment is: planned and running specs add their estimate, done and cancelled ones only their ledger spend",
                                false, false, {"status"}, {"planned", "running", "done", "cancelled"}, "TEXT"},
                               {"description", "Free text", false, false, {"description"}, {}, "TEXT"},
                               {"profile", "Calibration profile (gpuplan calibrate --out), relative to the spec", false, false, {"profile"}, {}, "FILE"}};
  for (const CLI::Option* o : all_options(p.app)) {
    const auto& longs = o->get_lnames();
    if (longs.empty() || longs.front() == "help") continue;
    SpecKey k{key_of("--" + longs.front()), o->get_description(), o->get_expected_min() == 0,
              o->get_expected_max() > 1 || o->get_items_expected_max() > 1, {}, {}, o->get_type_name()};
    for (const auto& n : longs) {
      const std::string under = key_of("--" + n);
      std::string dashed = under;
      std::replace(dashed.begin(), dashed.end(), '_', '-');
      for (const auto& s : {under, dashed})
        if (std::find(k.spellings.begin(), k.spellings.end(), s) == k.spellings.end()) k.spellings.push_back(s);
    }
    k.choices = choices_of(k.key);
    keys.push_back(std::move(k));
  }
  return keys;
}

nlohmann::json experiment_schema() {
  nlohmann::json props = nlohmann::json::object();
  for (const SpecKey& k : experiment_keys()) {
    nlohmann::json one = k.flag ? nlohmann::json{{"type", "boolean"}}
                       : !k.choices.empty() ? nlohmann::json{{"enum", k.choices}}
                       : k.type == "INT" ? nlohmann::json{{"type", "integer"}}
                       : k.type == "FLOAT" ? nlohmann::json{{"type", "number"}}
                                           : nlohmann::json{{"type", {"string", "number"}}};  // "2B", 4, "30m"
    nlohmann::json p = k.list ? nlohmann::json{{"anyOf", {one, {{"type", "array"}, {"items", one}}}}} : one;
    p["description"] = k.help;
    for (const auto& s : k.spellings) {
      nlohmann::json q = p;
      if (s != k.key) q["description"] = "Same as " + k.key + ": " + k.help;
      props[s] = q;
    }
  }
  return {{"$schema", "https://json-schema.org/draft/2020-12/schema"},
          {"$id", "https://gpuplan.dev/schemas/experiment.schema.json"},
          {"title", "gpuplan experiment spec"},
          {"description", "Every gpuplan estimate flag as a key of the same name (underscores or dashes). Generated by `gpuplan schema experiment`."},
          {"type", "object"},
          {"properties", props},
          {"additionalProperties", false}};
}

namespace {

bool is_spec_name(const std::filesystem::path& p) {
  std::string ext = p.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext == ".yaml" || ext == ".yml";
}

// Every spec under a folder, subfolders included (a team's folder is still gated); symlinked
// folders are not followed, so a link loop cannot hold the gate.
std::vector<std::string> specs_under(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> here;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, fs::directory_options::none, ec), end;
  if (ec) throw InputError({dir, 0, 0}, "", "cannot read folder: " + ec.message());
  for (; it != end; it.increment(ec)) {
    if (ec) throw InputError({dir, 0, 0}, "", "cannot read folder: " + ec.message());
    if (it->is_directory(ec) && it->path().filename() == ".git") {
      it.disable_recursion_pending();
      continue;
    }
    if (is_spec_name(it->path()) && !it->is_directory(ec)) here.push_back(it->path().string());
  }
  std::sort(here.begin(), here.end());
  return here;
}

}  // namespace

std::vector<std::string> expand_spec_paths(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const auto& p : paths) {
    std::error_code ec;
    if (std::filesystem::is_directory(p, ec)) {
      const auto here = specs_under(p);
      out.insert(out.end(), here.begin(), here.end());
    } else {
      out.push_back(p);
    }
  }
  return out;
}

namespace {

// The folder a spec's paths must stay inside: GPUPLAN_SPEC_ROOT when set, else the git work tree
// holding the spec (in CI a spec is pull-request content, and the checkout is what it may name),
// else "" (a spec outside any repository is the user's own: no limit).
std::filesystem::path spec_root(const std::filesystem::path& spec_dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (const char* r = std::getenv("GPUPLAN_SPEC_ROOT"); r && *r) return fs::weakly_canonical(r, ec);
  for (fs::path d = fs::weakly_canonical(spec_dir.empty() ? "." : spec_dir, ec); !ec && !d.empty(); d = d.parent_path()) {
    if (fs::exists(d / ".git", ec)) return d;
    if (d == d.parent_path()) break;
  }
  return {};
}

// A path a spec names (model_config, safetensors, profile): relative to the spec, and refused
// when it resolves (symlinks followed) outside the spec's root, so a spec cannot make the gate
// read ~/.ssh or /proc/self/environ, nor echo a byte of them.
std::string spec_path(const std::string& spec, const std::string& value, const SourceLocation& at, const std::string& key,
                      std::vector<InputError>& errors) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(spec).parent_path();
  const std::string joined = value.empty() || value.front() == '/' || dir.empty() ? value : (dir / value).string();
  const fs::path root = spec_root(dir);
  if (root.empty() || value.empty()) return joined;
  std::error_code ec;
  const fs::path real = fs::weakly_canonical(joined, ec);
  const bool inside = !ec && std::mismatch(root.begin(), root.end(), real.begin(), real.end()).first == root.end();
  if (!inside)
    errors.emplace_back(at, key, "the path leaves " + root.string() + " (the spec's repository, or GPUPLAN_SPEC_ROOT); a spec may only name files inside it");
  return joined;
}

}  // namespace

Experiment load_experiment(const std::string& path) {
  Experiment x;
  x.doc = io::load_flat_yaml(path, "experiment");
  x.name = std::filesystem::path(path).stem().string();
  std::vector<InputError> errors;
  std::vector<std::string> args;
  static const std::vector<std::string> known = [] {
    std::vector<std::string> keys;
    for (const SpecKey& k : experiment_keys()) keys.push_back(k.key);
    return keys;
  }();
  SpecParser& parser = spec_parser();

  for (const auto& e : x.doc.entries) {
    const std::string key = e.key;
    if (is_meta(key)) {
      if (e.is_list) {
        errors.emplace_back(e.where, key, "expected one value, not a list");
        continue;
      }
      const std::string& v = e.values.front();
      if (key == "name") x.name = v;
      else if (key == "owner") x.owner = v;
      else if (key == "team") x.team = v;
      else if (key == "approved_by") x.approved_by = v;
      else if (key == "max_cost") x.max_cost = v;
      else if (key == "status") {
        if (const auto st = parse_spec_status(v)) x.status = *st;
        else errors.emplace_back(e.value_where, key, "expected planned, running, done or cancelled, got \"" + v + "\"");
      }
      else if (key == "profile") x.profile = spec_path(path, v, e.value_where, key, errors);
      continue;
    }
    std::string normal = key;
    std::replace(normal.begin(), normal.end(), '-', '_');
    const CLI::Option* opt = parser.option(flag_of(key));
    if (!opt || normal == "format" || normal == "catalog") {
      const std::string near = closest_name(normal, known);
      errors.emplace_back(e.where, key, "unknown key" + (near.empty() ? std::string() : " (did you mean '" + near + "'?)"));
      continue;
    }
    const bool is_flag = opt->get_expected_min() == 0;
    if (is_flag) {
      const std::string& v = e.values.front();
      if (e.is_list || (v != "true" && v != "false")) {
        errors.emplace_back(e.value_where, key, "expected true or false");
        continue;
      }
      if (v == "true") args.push_back(flag_of(key));
      continue;
    }
    for (std::string v : e.values) {
      // Paths in a spec are relative to the spec, as a reader of the repository expects.
      if (normal == "model_config" || normal == "safetensors") v = spec_path(path, v, e.value_where, key, errors);
      args.push_back(flag_of(key));
      args.push_back(v);
    }
  }
  if (!errors.empty()) throw InputErrors(std::move(errors));
  std::reverse(args.begin(), args.end());  // CLI11 consumes a reversed vector
  try {
    parser.app.parse(args);
  } catch (const CLI::ParseError& e) {
    // Name the key whose value CLI11 refused; its message names the flag.
    const std::string what = e.what();
    for (const auto& entry : x.doc.entries)
      if (what.find(flag_of(entry.key)) != std::string::npos)
        throw InputError(entry.value_where, entry.key, what);
    throw InputError(SourceLocation{path, 1, 1}, "", what);
  }
  x.workload = parser.workload;
  x.run = parser.run;
  x.filter = parser.filter;
  return x;
}

namespace {

// Re-raises a flag error at the spec line that set the flag.
[[noreturn]] void rethrow_at_spec(const Experiment& x, const InputError& e) {
  const std::string& field = e.field();
  if (field.rfind("--", 0) == 0 || (e.where().path.empty() && !field.empty())) {
    std::string key = key_of(field);
    std::replace(key.begin(), key.end(), '-', '_');
    for (const auto& entry : x.doc.entries) {
      std::string k = entry.key;
      std::replace(k.begin(), k.end(), '-', '_');
      if (k == key) throw InputError(entry.value_where, entry.key, e.problem());
    }
    throw InputError(SourceLocation{x.doc.path, 1, 1}, key, e.problem());
  }
  throw e;
}

}  // namespace

PricedExperiment price_experiment(const Context& ctx, const Experiment& x, const std::string& currency) {
  PricedExperiment out;
  ExperimentCheck& c = out.check;
  c.name = x.name;
  c.owner = x.owner;
  c.team = x.team;
  c.approved_by = x.approved_by;
  c.status = x.status;
  c.where = SourceLocation{x.doc.path, 1, 1};
  for (const auto& e : x.doc.entries)
    if (rules_cite_key(e.key)) c.lines[e.key] = e.where;  // the lines a rule may point at
  Context spec = ctx;  // the spec's own profile, if it names one; the same catalogs
  if (!x.profile.empty()) spec.options.profile = x.profile;
  try {
    const ResolvedModel rm = resolve_model(spec, x.workload.model);
    out.model = rm.arch.id;
    const ParamCounts pc = count_params(rm.arch);
    const Workload w = build_workload(spec, x.workload, rm.arch);
    RunFlags rf = x.run;
    rf.currency = currency;
    RunSettings run = build_run_settings(spec, rf, w);
    run.spec.gpus_fixed = x.workload.gpus_given;  // as estimate, compare and plan price it
    if (!run.has_work()) {
      c.unpriced_reason = "no run size (tokens, steps or dataset_tokens)";
      return out;
    }
    if (!x.max_cost.empty()) {
      auto m = parse_money(x.max_cost);
      if (!m || !(m.value->amount > 0)) bad_flag("--max-cost", m ? "must be positive" : m.error);
      auto v = run.fx.convert(m.value->amount, m.value->currency.empty() ? currency : m.value->currency, currency);
      if (!v) bad_flag("--max-cost", "no exchange rate to " + currency);
      c.max_cost = *v;
    }
    c.deadline_seconds = run.spec.bill.deadline_seconds;
    OfferSet set = evaluate_offers(spec.catalog(), rm.arch, pc, w, run, build_offer_filter(x.filter, spec.catalog()));
    rank_offers(set.priced, false);
    const PricedOffer* chosen = best_offer(set.priced);
    if (!chosen) {
      c.unpriced_reason = set.excluded.empty() ? "no offer matches its constraints"
                                               : "no offer can run it (" + io::exclusion_text(set.excluded.front().eval, *set.excluded.front().gpu,
                                                                                          run.spec.bill.pricing) + ")";
      return out;
    }
    const PricedOffer& best = *chosen;
    out.best = best;
    out.price_warnings = io::price_warning_texts(price_warnings(std::vector<const Provider*>{best.provider}, run));
    c.priced = true;
    c.cost = best.total.value_or(0);
    c.gpu_hours = best.eval.cost ? best.eval.cost->gpu_hours : 0;
    c.wall_seconds = best.eval.cost ? best.eval.cost->wall_seconds : 0;
    c.offer = best.offer->key();
    c.spot = run.spec.bill.pricing == Pricing::spot;
    if (best.eval.cost && best.eval.cost->spot && best.eval.cost->spot->checkpoint_interval_seconds > 0)
      c.checkpoint_interval_seconds = best.eval.cost->spot->checkpoint_interval_seconds;
    if (run.spec.bill.checkpoint_every_seconds) c.checkpoint_interval_seconds = run.spec.bill.checkpoint_every_seconds;
    out.per_gpu_bytes = best.eval.per_gpu_bytes;
    out.step_seconds = best.eval.time.step_seconds;
  } catch (const InputError& e) {
    rethrow_at_spec(x, e);
  }
  return out;
}

}  // namespace gpuplan::cli
