#include "cli/common.hpp"

#include "io/render/format.hpp"
#include "io/text/files.hpp"
#include "io/usage/ledger.hpp"

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <unistd.h>

#include "gpuplan/error.hpp"
#include "io/catalogs/price_cache.hpp"
#include "io/catalogs/profile_yaml.hpp"
#include "io/catalogs/shipped_data.hpp"

namespace gpuplan::cli {

struct Context::Loaded {
  std::unique_ptr<const Catalog> catalog;
  std::map<std::string, Profile> profiles;  // by path
  std::optional<std::vector<LedgerRecord>> stdin_ledger;
};

Context::Context() : loaded_(std::make_shared<Loaded>()) {}

Format Context::format() const { return io::format_from_string(options.format).value_or(Format::table); }

CLI::Validator existing_file_or_stdin() {
  return CLI::Validator(
      [](std::string& path) { return path == "-" ? std::string() : CLI::ExistingFile(path); }, "FILE", "FILE or - (stdin)");
}

CLI::App& option_section(CLI::App& cmd, const std::string& title) {
  CLI::App& section = *cmd.add_option_group(title);
  section.set_help_flag();  // the command's own -h serves; a section copies it otherwise
  return section;
}

namespace {
// Each list of options, the command's own and each section's, as "\nTitle:\n" and its lines:
// one blank line between lists. (CLI11's own make_groups adds a second blank line after a list
// unless it is the last group of the command, hidden groups included.)
class SectionFormatter : public CLI::Formatter {
 public:
  std::string make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const override {
    if (mode == CLI::AppFormatMode::Sub) return make_expanded(app);
    return make_description(app) + make_usage(app, std::move(name)) + make_positionals(app) + option_lists(app, mode) +
           make_subcommands(app, mode) + "\n" + make_footer(app);
  }
  std::string make_expanded(const CLI::App* sub) const override {
    if (!sub->get_name().empty()) return CLI::Formatter::make_expanded(sub);
    std::vector<const CLI::Option*> opts;
    for (const CLI::Option* o : sub->get_options({}))
      if (!o->get_group().empty()) opts.push_back(o);
    return opts.empty() ? std::string() : make_group(sub->get_group(), false, opts);
  }

 private:
  // CLI11's make_groups, which is not virtual, without its extra blank line.
  std::string option_lists(const CLI::App* app, CLI::AppFormatMode mode) const {
    std::string out;
    for (const std::string& group : app->get_groups()) {
      if (group.empty()) continue;  // hidden options (old spellings)
      const auto opts = app->get_options([&](const CLI::Option* o) {
        return o->get_group() == group && o->nonpositional() &&
               (mode != CLI::AppFormatMode::Sub || (o != app->get_help_ptr() && o != app->get_help_all_ptr()));
      });
      if (!opts.empty()) out += make_group(group, false, opts);
    }
    return out;
  }
};
}  // namespace

std::shared_ptr<CLI::Formatter> help_formatter() { return std::make_shared<SectionFormatter>(); }

std::vector<const CLI::Option*> all_options(const CLI::App& cmd) {
  std::vector<const CLI::Option*> out = cmd.get_options();
  for (const CLI::App* s : cmd.get_subcommands({}))
    if (s->get_name().empty()) {
      const auto inner = all_options(*s);
      out.insert(out.end(), inner.begin(), inner.end());
    }
  return out;
}

std::vector<const CLI::App*> named_subcommands(const CLI::App& cmd) {
  std::vector<const CLI::App*> out;
  for (const CLI::App* s : cmd.get_subcommands({}))
    if (!s->get_name().empty()) out.push_back(s);
  return out;
}

void remove_option(CLI::App& cmd, const std::string& name) {
  CLI::Option* o = cmd.get_option_no_throw(name);
  if (o == nullptr || cmd.remove_option(o)) return;
  for (CLI::App* s : cmd.get_subcommands({}))
    if (s->get_name().empty() && s->remove_option(o)) return;
}

void on_parsed(CLI::App& cmd, Context& ctx, std::function<int()> fn) {
  cmd.callback([&ctx, fn = std::move(fn)] { ctx.command = fn; });
}

void add_common_options(CLI::App& cmd, Context& ctx, unsigned uses) {
  CLI::App& app = option_section(cmd, "Output");
  auto& g = ctx.options;
  const bool github = (uses & kGithub) != 0;
  std::vector<std::string> formats;
  for (const auto& f : io::kFormats)
    if (github || !f.gates_only) formats.push_back(f.name);
  std::string help = "Output format: ";
  for (std::size_t i = 0; i < formats.size(); ++i) help += (i ? " | " : "") + formats[i];
  app.add_option("--format", g.format, help + (github ? " (github: workflow annotations)" : ""))
      ->check(CLI::IsMember(formats))
      ->capture_default_str();
  if (uses & kCatalogs) {
    app.add_option("--catalog", g.catalogs, "Extra catalog: YAML, or a SkyPilot vms.csv price sheet (repeatable; later files override by id)")
        ->check(existing_file_or_stdin());
    app.add_flag("--offline", g.offline, "Price with the shipped sheets only, not those `gpuplan prices update` cached");
  }
  if (uses & kProfile)
    app.add_option("--profile", g.profile, "Calibration profile from `gpuplan calibrate`: the team's fitted constants")
        ->check(CLI::ExistingFile);
  app.add_flag("-q,--quiet", g.quiet, "Suppress warnings on stderr");
  app.add_flag("--no-color", g.no_color, "Never colour the table output");
  app.add_flag("--wide", g.wide, "Print whole table cells (default: long names are cut to fit 100 columns)");
  // Display only: kept in ctx.options, so every money figure a command words is grouped alike
  // (Context::money_style).
  app.add_option_function<std::string>(
         "--grouping", [&g](const std::string& v) { g.grouping = *io::digit_grouping_from_string(v); },
         "Digit grouping of money in tables and notes: auto (Indian 10,84,428 for INR, else 1,084,428) | intl | indian | none")
      ->check(CLI::IsMember({"auto", "intl", "indian", "none"}));
}

namespace {
// no-color.org: NO_COLOR counts only when non-empty; a dumb terminal takes no escapes.
bool use_color(const Context& ctx) {
  const char* no_color = std::getenv("NO_COLOR");
  const char* term = std::getenv("TERM");
  if (no_color != nullptr && *no_color != '\0') return false;
  if (term != nullptr && std::string(term) == "dumb") return false;
  return ctx.format() == Format::table && !ctx.options.no_color && ::isatty(STDOUT_FILENO) != 0;
}

// A fresh random token per report: no input can guess it and end github's pause early
// (GitHub's documented use of stop-commands).
std::string stop_token() {
  std::random_device rd;
  char token[40];
  std::snprintf(token, sizeof token, "%08x%08x%08x%08x", rd(), rd(), rd(), rd());
  return token;
}

// Prints `r` in the format asked, with `body` (r's JSON, or a copy of it) moved into the document.
void print(const Context& ctx, const Report& r, nlohmann::json&& body) {
  io::RenderOptions o;
  o.color = use_color(ctx);
  // 100 columns: a terminal beside an editor, a CI log, a PR comment; --wide for the rest.
  o.width = ctx.options.wide ? 0 : 100;
  if (ctx.format() == Format::github) o.stop_token = stop_token();
  const std::string out = io::render_report(r, std::move(body), ctx.format(), o);
  std::fwrite(out.data(), 1, out.size(), stdout);
}

}  // namespace

void Context::print_report(const Report& r) const { print(*this, r, json_output() ? nlohmann::json(r.json) : nlohmann::json()); }

void Context::print_report(Report&& r) const {
  nlohmann::json body = std::move(r.json);
  print(*this, r, std::move(body));
}

const Catalog& Context::catalog() const {
  if (!loaded_->catalog) {
    std::vector<std::string> notices;
    const std::string cache = options.offline ? std::string() : io::price_cache_dir();
    loaded_->catalog = std::make_unique<const Catalog>(io::load_catalogs_with_cache(options.catalogs, cache, &notices, nullptr));
    for (const auto& n : notices) warn(n);
  }
  return *loaded_->catalog;
}

const Profile* Context::profile() const {
  const std::string& path = options.profile;
  if (path.empty()) return nullptr;
  auto it = loaded_->profiles.find(path);
  if (it == loaded_->profiles.end()) it = loaded_->profiles.emplace(path, io::read_profile(path)).first;
  return &it->second;
}

const std::vector<LedgerRecord>& Context::stdin_ledger() const {
  if (!loaded_->stdin_ledger) {
    io::LedgerLoad load = io::parse_ledger(io::read_file("-"), "-");
    for (const auto& w : load.warnings) warn(w);
    loaded_->stdin_ledger = std::move(load.records);
  }
  return *loaded_->stdin_ledger;
}

std::string today_utc() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

void Context::warn(const std::string& message) const {
  if (!options.quiet) std::fprintf(stderr, "gpuplan: warning: %s\n", message.c_str());
}

void bad_flag(const std::string& flag, const std::string& problem) {
  throw InputError(SourceLocation{}, flag, problem);
}

}  // namespace gpuplan::cli
