#pragma once
// Each command lives in its own cmd_*.cpp with a setup function that adds it to the app.
#include <CLI/CLI.hpp>

namespace gpuplan::cli {

void setup_gpus(CLI::App& app);
void setup_models(CLI::App& app);
void setup_providers(CLI::App& app);
void setup_catalog(CLI::App& app);
void setup_estimate(CLI::App& app);
void setup_compare(CLI::App& app);
void setup_serve(CLI::App& app);
void setup_buy_vs_rent(CLI::App& app);
void setup_demand(CLI::App& app);
void setup_replay(CLI::App& app);
void setup_advise(CLI::App& app);
void setup_check(CLI::App& app);
void setup_ledger(CLI::App& app);
void setup_plan(CLI::App& app);
void setup_report(CLI::App& app);
void setup_calibrate(CLI::App& app);
void setup_prices(CLI::App& app);
void setup_cli_docs(CLI::App& app);  // hidden: completions and man page

inline void register_commands(CLI::App& app) {
  using Setup = void (*)(CLI::App&);
  static constexpr Setup kCommands[] = {setup_estimate, setup_compare, setup_serve, setup_buy_vs_rent, setup_demand,
                                        setup_replay, setup_advise,
                                        setup_check, setup_ledger, setup_report, setup_plan, setup_calibrate,
                                        setup_gpus, setup_models, setup_providers, setup_catalog, setup_prices,
                                        setup_cli_docs};
  for (Setup s : kCommands) s(app);
}

}  // namespace gpuplan::cli
