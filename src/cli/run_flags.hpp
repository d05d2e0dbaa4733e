#pragma once
// The run and bill flags `estimate`, `compare` and `plan` share: how much work, which pricing,
// tax, currency, spot terms, deadline and budget.
#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "cli/common.hpp"
#include "gpuplan/catalog.hpp"
#include "gpuplan/offer_search.hpp"

namespace gpuplan::cli {

struct RunFlags {
  std::string tokens, dataset_tokens, epochs, steps, mean_sample_tokens, packing = "on";
  int grad_accum = 1;
  std::string mfu, pricing = "on-demand", tax, currency = "USD", deadline, budget;
  std::string tax_basis = "inclusive";
  bool input_tax_credit = false;
  int stale_after = kStalePriceDays;
  std::vector<std::string> fx;
  std::string preemptions_per_hour, checkpoint_every, restart_time = "10m", idle = "0%", startup;
  std::string checkpoint_write_speed = "1GB", dataset_size = "0GB";
  int keep_checkpoints = 1, max_restarts = 100, nodes = 0;
  bool no_egress = false;
  std::string storage_bandwidth, cpu_cores, tokenize_rate;  // the input pipeline (input_pipeline.hpp)
  bool pretokenized = false;
  std::string node_shape, network;  // the user's own machines (node_flags.hpp)
};

void add_run_options(CLI::App& cmd, RunFlags& f);

// The bill's flags alone (pricing, tax and its basis, input-tax credit, staleness, currency,
// fx, and start-up when `startup`): what serve takes of the run flags, in the same words.
void add_bill_options(CLI::App& cmd, RunFlags& f, bool startup = true);

// The checked run: work, bill terms, currency (gpuplan::RunSettings), exchange rates from ctx's
// catalogs and time constants from its profile. Exits 2 naming the flag on a bad value.
RunSettings build_run_settings(const Context& ctx, const RunFlags& f, const Workload& w);

// The offer filters every pricing command takes, one definition for all of them.
struct OfferFlags {
  std::vector<std::string> providers, gpus, regions, countries, offers;
  int max_gpus = 0;
};
// `gpu_flag`: false when the command defines --gpu itself (estimate checks those GPUs).
void add_offer_filter_options(CLI::App& cmd, OfferFlags& f, bool gpu_flag = true);
// Resolves names against the catalog (did-you-mean on a typo); exits 2 on an unknown one.
OfferFilter build_offer_filter(const OfferFlags& f, const Catalog& c);

}  // namespace gpuplan::cli
