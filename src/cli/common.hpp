#pragma once
// What every command shares: global flags, catalog loading, and printing a report in the
// chosen format. Commands build a Report (a JSON value plus tables); only this file prints.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gpuplan/budget.hpp"
#include "gpuplan/calibrate.hpp"
#include "gpuplan/catalog.hpp"
#include "io/render/money_style.hpp"
#include "io/render/render.hpp"
#include "io/render/report.hpp"

namespace gpuplan::cli {

// The report a command fills and the formats it prints in are io/render/report's.
using Format = io::Format;
using Report = io::Report;

struct GlobalOptions {
  std::string format = "table";
  std::vector<std::string> catalogs;
  bool quiet = false;
  bool no_color = false;
  bool wide = false;  // tables as wide as their content (default: cut to fit 100 columns)
  std::string profile;  // --profile FILE: calibrated constants (gpuplan calibrate)
  bool offline = false;  // --offline: the shipped sheets only, not the price cache (gpuplan prices update)
  io::DigitGrouping grouping = io::DigitGrouping::automatic;  // --grouping: display only (money_style)
};
// What a command reads beyond its own flags, so that it registers only the common flags it
// honours (an unused --profile or --catalog is refused, not ignored).
enum CommonUse : unsigned {
  kOutputOnly = 0,
  kCatalogs = 1u << 0,  // --catalog: it looks up GPUs, models, offers or exchange rates
  kProfile = 1u << 1,   // --profile: it estimates memory or speed with fitted constants
  kGithub = 1u << 2,    // --format github: it gates CI (workflow annotations)
};

class Context;

// Adds --format, -q, --no-color and --wide to a (sub)command, and --catalog, --profile and
// --format github as `uses` says, bound to ctx.options.
void add_common_options(CLI::App& app, Context& ctx, unsigned uses);

// Makes `fn` what run() calls once `cmd`'s arguments are parsed; it returns the exit code
// (0 success, 1 a valid question answered "no", 2 bad input).
void on_parsed(CLI::App& cmd, Context& ctx, std::function<int()> fn);

// A titled section of a command's options (its --help prints them under the title). Beside
// readable help, sections keep start-up fast: CLI11 compares each new option's names with every
// earlier option of the same (sub)command, copying both name lists each time, and estimate's
// ~85 options made that check cost more than the estimate. A section's options are compared
// only with each other; tests/cli/flag_names_test checks names stay unique across a command.
CLI::App& option_section(CLI::App& cmd, const std::string& title);

// Help that prints each section as "Title:" and its options, like CLI11's own "Options:" list
// (CLI11's default nests them under "[Option Group: Title]"). Subcommands inherit it.
std::shared_ptr<CLI::Formatter> help_formatter();

// Every option of a command, its sections' included (CLI11's get_options sees only its own).
std::vector<const CLI::Option*> all_options(const CLI::App& cmd);

// A command's named subcommands: CLI11 lists its option sections among them, nameless.
std::vector<const CLI::App*> named_subcommands(const CLI::App& cmd);

// Removes the option called `name` from a command or whichever of its sections holds it.
void remove_option(CLI::App& cmd, const std::string& name);

// CLI::ExistingFile that also takes "-" (standard input).
CLI::Validator existing_file_or_stdin();

// One invocation's shared inputs, made by run() and passed down to every command: the common
// flags as parsed, the catalogs and calibration profile they name (each read on first use), and
// the command the arguments chose. Nothing here outlives the invocation. A copy shares what was
// loaded, so `Context c = ctx; c.options.profile = path;` prices with another profile and the
// same catalogs.
class Context {
 public:
  Context();

  GlobalOptions options;
  std::function<int()> command;  // set by the chosen command's callback (on_parsed); run() calls it

  Format format() const;
  // Whether the report prints as JSON. A command builds the JSON value only then, and its tables
  // and notes only otherwise: a table of a million offers never builds their JSON, nor the reverse.
  bool json_output() const { return format() == Format::json; }
  // How money is spelled for people in this invocation (--grouping): every renderer and note
  // that prints money takes it as an argument.
  io::MoneyStyle money_style() const { return io::MoneyStyle{options.grouping}; }

  // Shipped catalogs plus every --catalog file (and the price cache unless --offline).
  const Catalog& catalog() const;
  // The calibration profile of options.profile, read once per path; nullptr when none is given.
  // Where the constants structs are built, this is applied.
  const Profile* profile() const;
  // `--ledger -`: JSON Lines on standard input, read once (as every `-` input is) and kept, so a
  // command that asks twice (report: the period's records, then every month) gets the same
  // records rather than opening a file named "-".
  const std::vector<LedgerRecord>& stdin_ledger() const;

  void warn(const std::string& message) const;  // on stderr unless --quiet
  void print_report(const Report& r) const;
  void print_report(Report&& r) const;  // moves the JSON into the document printed instead of copying it

 private:
  struct Loaded;
  std::shared_ptr<Loaded> loaded_;
};

// Today's date in UTC, YYYY-MM-DD (the default --date of the budget commands).
std::string today_utc();

// A bad flag value: exit 2 with a message naming the flag.
[[noreturn]] void bad_flag(const std::string& flag, const std::string& problem);

}  // namespace gpuplan::cli
