// Flag names stay unique across a command. CLI11 checks a new option only against the options
// of the same section (cli/common.hpp, option_section), so a flag added to a section that
// another section of the same command also defines would parse into whichever CLI11 meets first.
#include <catch2/catch.hpp>

#include <CLI/CLI.hpp>

#include <map>
#include <string>

#include "cli/commands.hpp"
#include "cli/common.hpp"

namespace {

void check_unique(const CLI::App& cmd, const std::string& path, int& commands) {
  ++commands;
  std::map<std::string, int> seen;
  for (const CLI::Option* o : gpuplan::cli::all_options(cmd)) {
    for (const auto& n : o->get_lnames()) ++seen["--" + n];
    for (const auto& n : o->get_snames()) ++seen["-" + n];
  }
  for (const auto& [name, count] : seen) {
    INFO("gpuplan " << path << ": " << name);
    CHECK(count == 1);
  }
  for (const CLI::App* s : gpuplan::cli::named_subcommands(cmd)) check_unique(*s, path + " " + s->get_name(), commands);
}

}  // namespace

TEST_CASE("every command's flags are unique across its option sections", "[cli]") {
  CLI::App app{"gpuplan"};
  gpuplan::cli::Context ctx;
  gpuplan::cli::register_commands(app, ctx);
  int commands = 0;
  check_unique(app, "", commands);
  CHECK(commands > 20);
}

TEST_CASE("a command's sections are part of the command", "[cli]") {
  CLI::App app{"gpuplan"};
  gpuplan::cli::Context ctx;
  gpuplan::cli::register_commands(app, ctx);
  const CLI::App* estimate = app.get_subcommand("estimate");
  // estimate's workload, run, offer and output flags live in sections, reached through the command
  for (const char* flag : {"--model", "--tokens", "--provider", "--format", "--top"})
    CHECK(estimate->get_option_no_throw(flag) != nullptr);
  CHECK(gpuplan::cli::all_options(*estimate).size() > estimate->get_options().size());
  for (const CLI::App* s : gpuplan::cli::named_subcommands(*estimate)) CHECK(!s->get_name().empty());
}

TEST_CASE("the command table names every command the app registers, and nothing else", "[cli]") {
  CLI::App app{"gpuplan"};
  gpuplan::cli::Context ctx;
  gpuplan::cli::register_commands(app, ctx);
  std::map<std::string, int> registered;
  for (const CLI::App* s : gpuplan::cli::named_subcommands(app)) ++registered[s->get_name()];
  for (const auto& c : gpuplan::cli::kCommands) {
    INFO(c.name);
    CHECK(registered.count(c.name) == 1);
    // Alone, the entry's setup must register the word it is listed under.
    CLI::App one{"gpuplan"};
    c.setup(one, ctx);
    bool found = false;
    for (const CLI::App* s : gpuplan::cli::named_subcommands(one)) found = found || s->get_name() == c.name;
    CHECK(found);
  }
  for (const auto& [name, count] : registered) {
    INFO(name);
    bool listed = false;
    for (const auto& c : gpuplan::cli::kCommands) listed = listed || name == c.name;
    CHECK(listed);
    CHECK(count == 1);
  }
}
