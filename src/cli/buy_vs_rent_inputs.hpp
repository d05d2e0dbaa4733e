#pragma once
// `buy-vs-rent`'s flags, checked and turned into the library's TcoInputs: the GPU and its
// price, demand (flags or a profile file), the offer to rent (given, the cheapest of the same
// GPU, or the nearest equivalent), ownership terms with their defaults, and money in one currency.
#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "io/usage/demand_file.hpp"
#include "cli/ownership_flags.hpp"
#include "cli/run_flags.hpp"
#include "gpuplan/catalog.hpp"
#include "gpuplan/tco.hpp"
#include "gpuplan/tco_jobs.hpp"
#include "io/render/purchase_report.hpp"
#include "io/render/setup_notes.hpp"

namespace gpuplan::cli {

struct BuyVsRentFlags {
  std::string gpu, gpu_hours, gpu_hours_week, utilisation, uncertainty, demand, offer, count, checkpoint_time = "0s";
  // The purchase, the horizon and the running costs (shared with the --owned offer of estimate,
  // compare and plan); the buyer's country decides what is owed, never the display currency.
  OwnershipFlags own;
  // Where renting may happen: --provider, --region, --country, the offer filters of compare.
  OfferFlags place;
  RunFlags run;  // --pricing, --currency, --fx, --tax, --preemptions-per-hour, --restart-time
  // `demand`, a job log the caller (replay) has already read and summarised: used instead of
  // reading the file again. The caller replays its own jobs (BuyVsRentSetup::jobs stays empty).
  const DemandSummary* demand_log = nullptr;
  // Values a calling command (advise) already holds as numbers, each standing in for its flag:
  // taken as they are, never printed into flag text and parsed back.
  struct Known {
    std::optional<double> gpu_hours_per_week;  // --gpu-hours-per-week
    std::optional<double> utilization;         // --utilization, as a share
    std::optional<double> uncertainty;         // --uncertainty, as a share
    std::optional<int> count;                  // --count
  } known;
};

void add_buy_vs_rent_options(CLI::App& cmd, BuyVsRentFlags& f);

struct BuyVsRentSetup {
  const Gpu* gpu = nullptr;          // owned
  const Gpu* rented_gpu = nullptr;   // == gpu unless no offer rents it
  TcoInputs in;
  RunSettings run;                   // currency, fx, bill terms
  std::string demand_source;         // "gpu_hours_per_month" | "utilization" | "file" | "jobs"
  std::optional<io::DemandProfile> profile;
  // --demand is a job log: its summary and jobs, and the decision is the job-level replay
  // (analyse_buy_vs_rent); otherwise GPU-hours are treated as divisible.
  std::optional<DemandSummary> log;
  std::vector<ReplayJob> jobs;
  double hours_per_month = 0;        // expected demand
  bool count_given = false;
  std::vector<io::DefaultUsed> defaults;  // each default used (io/render/ownership_words.hpp words them)
  std::vector<io::SetupNote> demand_notes;  // what the reader must know about the demand (printed first)
  std::vector<io::SetupNote> notes;         // what the reader must know about the other inputs (setup_note_text words both)
  bool ops_counted = false;
  io::PurchaseReport purchase;        // the buyer's country, hardware taxes and duty, warnings
  RentTerms spot;                     // the same GPU on spot, for comparison (no offers: none listed)
  std::vector<std::string> price_warnings;  // stale or mixed-tax sheets the rent side priced from
  // Reserved commitments: the offers each term is checked on (the --offer's own, else every
  // offer of the rented GPU with that term).
  std::vector<std::pair<Pricing, std::vector<RentOffer>>> commitments;
};

BuyVsRentSetup build_buy_vs_rent(const Context& ctx, const BuyVsRentFlags& f);

// The ownership and rent terms as replay prices fleets (the log's months when there is one).
FleetCostTerms fleet_cost_terms(const BuyVsRentSetup& s);

// The decision buy-vs-rent and advise show: with a job log, the jobs replayed on every fleet a
// buyer can build (analyse_tco_jobs); else the divisible-hours analysis (analyse_tco).
struct BuyVsRentAnalysis {
  TcoAnalysis a;
  std::optional<JobTcoAnalysis> jobs;
};
BuyVsRentAnalysis analyse_buy_vs_rent(const BuyVsRentSetup& s);

}  // namespace gpuplan::cli
