// gpuplan: the command table, parsing, and the mapping from outcomes to exit codes
// (0 success, 1 a check answered "no", 2 bad usage or bad input).
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>

#include "cli/app.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "gpuplan/error.hpp"

namespace {

constexpr const char* kFooter = R"(Examples:
  gpuplan estimate --model llama-3.1-8b --method qlora --gpu rtx-4090
  gpuplan compare --model llama-3.1-8b --method lora --tokens 1B --currency INR
  gpuplan plan --model llama-3.1-8b --tokens 1B --deadline 3d --budget 200
  gpuplan serve --model llama-3.1-8b --requests-per-second 5 --tpot 50ms
  gpuplan buy-vs-rent --gpu rtx-4090 --gpu-hours-per-month 300
  gpuplan demand jobs.txt    (sacct --parsable2 output or a CSV of jobs)
  gpuplan check experiments/ --budget budget.yaml --format github
  gpuplan report --ledger spend.db --budget budget.yaml --html spend.html
  gpuplan calibrate runs.jsonl --out profile.yaml
  gpuplan gpus list --format json
  gpuplan catalog validate my-prices.yaml

Exit codes: 0 success; 1 a check or gate failed; 2 bad usage or bad input.
Environment: GPUPLAN_DATA_DIR reads catalogs from that directory instead of the built-in data;
NO_COLOR disables colour.)";

void print_error(const char* what) { std::fprintf(stderr, "gpuplan: error: %s\n", what); }

}  // namespace

namespace gpuplan::cli {

int run(int argc, char** argv) {
  // One process may run several invocations (tests, the CLI fuzz target): start clean.
  globals() = GlobalOptions{};
  exit_code() = 0;
  CLI::App app{"gpuplan: GPU budget planner. Will this job fit, how long will it take, what will it cost."};
  app.footer(kFooter);
  app.set_version_flag("--version", std::string("gpuplan ") + GPUPLAN_VERSION);
  app.require_subcommand(1);
  gpuplan::cli::register_commands(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);  // prints CLI11's message
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
  return gpuplan::cli::exit_code();
}

}  // namespace gpuplan::cli
