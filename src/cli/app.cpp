// gpuplan: the command table, parsing, and the mapping from outcomes to exit codes
// (0 success, 1 a check answered "no", 2 bad usage or bad input).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "cli/app.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "gpuplan/error.hpp"
#include "gpuplan/name_match.hpp"
#include "io/text/files.hpp"

namespace {

constexpr const char* kFooter = R"(Examples:
  gpuplan estimate --model llama-3.1-8b --method qlora --gpu rtx-4090
  gpuplan compare --model llama-3.1-8b --method lora --tokens 1B --currency INR
  gpuplan plan --model llama-3.1-8b --tokens 1B --deadline 3d --budget 200
  gpuplan serve --model llama-3.1-8b --requests-per-second 5 --tpot 50ms
  gpuplan buy-vs-rent --gpu rtx-4090 --gpu-hours-per-month 300
  gpuplan demand jobs.txt    # sacct --parsable2 output or a CSV of jobs
  gpuplan check experiments/ --policy budget.yaml --format github
  gpuplan report --ledger spend.db --policy budget.yaml --html spend.html
  gpuplan calibrate runs.jsonl --out profile.yaml
  gpuplan gpus list --format json
  gpuplan catalog validate my-prices.yaml

Exit codes: 0 success; 1 a check or gate failed; 2 bad usage or bad input.
Files: "-" reads standard input or writes standard output where a command takes a file.
Environment: GPUPLAN_DATA_DIR reads catalogs from that directory instead of the built-in data;
NO_COLOR (non-empty) or TERM=dumb disables colour.)";

void print_error(const char* what) { std::fprintf(stderr, "gpuplan: error: %s\n", what); }

// The (sub)command the arguments reached, for the suggestions below.
// `next` is the first argument past the command words.
CLI::App* reached(CLI::App& app, int argc, char** argv, int& next) {
  CLI::App* at = &app;
  for (next = 1; next < argc; ++next) {
    const std::string a = argv[next];
    if (a.rfind("-", 0) == 0) break;
    CLI::App* sub = nullptr;
    for (CLI::App* s : at->get_subcommands({}))
      if (s->check_name(a)) sub = s;
    if (!sub) break;
    at = sub;
  }
  return at;
}

// The closest flag within a third of its length (at least 2 edits: "--modle" -> "--model");
// long input is not compared at all, so a 100k-character flag costs nothing.
std::string suggest_flag(const std::string& typed, const std::vector<std::string>& flags) {
  if (typed.size() > 64) return "";
  const int limit = std::max<int>(2, static_cast<int>(typed.size()) / 3);
  std::string best;
  int best_d = limit + 1;
  for (const auto& f : flags) {
    const int d = gpuplan::edit_distance(typed, f, limit);
    if (d < best_d) best_d = d, best = f;
  }
  return best;
}

// CLI11's own parse errors, said the gpuplan way, with a "did you mean" where one is close.
void print_parse_error(CLI::App& app, const CLI::ParseError& e, int argc, char** argv) {
  int next = 1;
  CLI::App* at = reached(app, argc, argv, next);
  std::string what = e.what();
  std::vector<std::string> subs, flags;
  for (const CLI::App* s : gpuplan::cli::named_subcommands(*at))
    if (!s->get_group().empty()) subs.push_back(s->get_name());
  for (const CLI::Option* o : gpuplan::cli::all_options(*at))
    for (const auto& n : o->get_lnames()) flags.push_back("--" + n);
  if (!subs.empty() && next < argc && argv[next][0] != '-') {  // a word where a command belongs
    const std::string near = gpuplan::closest_name(argv[next], subs);
    what = "unknown command '" + std::string(argv[next]) + "'" + (near.empty() ? "" : " (did you mean '" + near + "'?)");
  } else if (!subs.empty() && next == argc && at != &app) {
    what = "'" + at->get_name() + "' needs a command: " + CLI::detail::join(subs, ", ");
  }
  const bool unknown_command = what.rfind("unknown command", 0) == 0;
  for (int i = next; i < argc && !unknown_command; ++i) {
    std::string a = argv[i];
    if (a.rfind("--", 0) != 0 || a == "--") continue;
    a = a.substr(0, a.find('='));
    if (std::find(flags.begin(), flags.end(), a) != flags.end() || a == "--help" || a == "--version") continue;
    const std::string near = suggest_flag(a, flags);
    what = "unknown option '" + a + "'" + (near.empty() ? "" : " (did you mean '" + near + "'?)");
    break;
  }
  print_error(what.c_str());
  const std::string path = at == &app ? std::string("gpuplan") : "gpuplan " + at->get_name();
  std::fprintf(stderr, "Run '%s --help' for usage.\n", path.c_str());
}

void register_for(CLI::App& app, gpuplan::cli::Context& ctx, int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--version") == 0) return;  // answered before any command
  if (argc > 1)
    for (const auto& c : gpuplan::cli::kCommands)
      if (c.alone && std::strcmp(argv[1], c.name) == 0) return c.setup(app, ctx);
  gpuplan::cli::register_commands(app, ctx);
}

// Output that could not be written (a full disk, a closed pipe) is a failure, not exit 0.
int finish_output(int code) {
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    std::fprintf(stderr, "gpuplan: error: writing standard output: %s\n", std::strerror(errno));
    return 2;
  }
  return code;
}

}  // namespace

namespace gpuplan::cli {

int run(int argc, char** argv) {
  io::track_inputs(false);  // forget the last run's inputs, then note this run's: no output
  io::track_inputs(true);   // file may replace one of them (io/text/files.hpp)
  // The App and the Context (the catalogs it loaded) are kept after the command, not destroyed:
  // freeing estimate's ~90 options costs a tenth of its run, and the OS takes the memory back at
  // exit at no cost. Each run frees the one before (tests and the CLI fuzz target call run() many
  // times), so every invocation starts from a fresh Context; the kept one stays reachable from
  // here, so leak checkers do not count it. Nothing reads it after run() returns.
  struct Invocation {
    CLI::App app{"gpuplan: GPU budget planner. Will this job fit, how long will it take, what will it cost."};
    Context ctx;
  };
  static Invocation* kept = nullptr;
  delete kept;
  kept = new Invocation;
  CLI::App& app = kept->app;
  Context& ctx = kept->ctx;
  app.footer(kFooter);
  app.formatter(gpuplan::cli::help_formatter());
  app.set_version_flag("--version", std::string("gpuplan ") + GPUPLAN_VERSION);
  app.require_subcommand(1);
  // An empty argument is refused before CLI11 sees it: where a positional could go, CLI11 2.1
  // takes "" for the name of a nameless option section and loops forever. No gpuplan flag takes
  // an empty value, and "" is usually a shell variable that was never set.
  for (int i = 1; i < argc; ++i)
    if (argv[i][0] == '\0') {
      const std::string what = "argument " + std::to_string(i) + " is empty (an unset shell variable?); give a value or leave it out";
      print_error(what.c_str());
      return 2;
    }
  register_for(app, ctx, argc, argv);
  int code = 0;
  try {
    app.parse(argc, argv);
    if (ctx.command) code = ctx.command();
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    print_parse_error(app, e, argc, argv);
    return 2;
  } catch (const gpuplan::InputErrors& e) {
    for (const auto& err : e.errors()) print_error(err.what());
    return 2;
  } catch (const gpuplan::InputError& e) {
    print_error(e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gpuplan: internal error: %s (please report this)\n", e.what());
    return 2;
  }
  return finish_output(code);
}

}  // namespace gpuplan::cli
