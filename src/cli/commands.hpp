#pragma once
// Each command lives in its own cmd_*.cpp with a setup function that adds it to the app.
#include <CLI/CLI.hpp>

#include <cstddef>
#include <iterator>

namespace gpuplan::cli {

class Context;  // cli/common.hpp: what one invocation shares; setups bind their flags to it

void setup_gpus(CLI::App& app, Context& ctx);
void setup_models(CLI::App& app, Context& ctx);
void setup_providers(CLI::App& app, Context& ctx);
void setup_catalog(CLI::App& app, Context& ctx);
void setup_estimate(CLI::App& app, Context& ctx);
void setup_compare(CLI::App& app, Context& ctx);
void setup_serve(CLI::App& app, Context& ctx);
void setup_buy_vs_rent(CLI::App& app, Context& ctx);
void setup_demand(CLI::App& app, Context& ctx);
void setup_replay(CLI::App& app, Context& ctx);
void setup_advise(CLI::App& app, Context& ctx);
void setup_check(CLI::App& app, Context& ctx);
void setup_ledger(CLI::App& app, Context& ctx);
void setup_plan(CLI::App& app, Context& ctx);
void setup_report(CLI::App& app, Context& ctx);
void setup_calibrate(CLI::App& app, Context& ctx);
void setup_prices(CLI::App& app, Context& ctx);
void setup_cli_docs(CLI::App& app, Context& ctx);  // hidden: completions and man page

// The one command table (ninja's kTools shape): each top-level command word and the setup that
// adds it. A run whose first argument is a word marked `alone` registers only that setup
// (building every command's options costs more than most commands' work); the rest, and runs
// that name no command, get the whole table. The completions, man and flags generators walk the
// whole app, so they are never alone. A setup listed under several words runs once.
struct CommandEntry {
  const char* name;
  void (*setup)(CLI::App&, Context&);
  bool alone;
};
inline constexpr CommandEntry kCommands[] = {
    {"estimate", setup_estimate, true},   {"compare", setup_compare, true},     {"serve", setup_serve, true},
    {"buy-vs-rent", setup_buy_vs_rent, true}, {"demand", setup_demand, true},   {"replay", setup_replay, true},
    {"advise", setup_advise, true},       {"check", setup_check, true},         {"diff", setup_check, true},
    {"schema", setup_check, true},        {"ledger", setup_ledger, true},       {"report", setup_report, true},
    {"plan", setup_plan, true},           {"calibrate", setup_calibrate, true}, {"gpus", setup_gpus, true},
    {"models", setup_models, true},       {"providers", setup_providers, true}, {"catalog", setup_catalog, true},
    {"prices", setup_prices, true},       {"completions", setup_cli_docs, false}, {"man", setup_cli_docs, false},
    {"flags", setup_cli_docs, false},
};

inline void register_commands(CLI::App& app, Context& ctx) {
  for (std::size_t i = 0; i < std::size(kCommands); ++i) {
    bool seen = false;
    for (std::size_t j = 0; j < i; ++j) seen = seen || kCommands[j].setup == kCommands[i].setup;
    if (!seen) kCommands[i].setup(app, ctx);
  }
}

}  // namespace gpuplan::cli
