#pragma once
// `gpuplan replay`'s report: every candidate fleet of the sweep (owned GPUs x burst wait) with
// its queue times, owned utilisation, burst GPU-hours and money per month, and the queue per
// team of the cheapest fleet that meets the p95 target, as JSON and tables.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "gpuplan/fleet_replay.hpp"
#include "io/render/money_style.hpp"
#include "io/render/ownership_words.hpp"
#include "io/render/render.hpp"
#include "io/render/setup_notes.hpp"

namespace gpuplan::io {

struct ReplayContext {
  std::string file, log_format, gpu, currency;
  double max_p95_queue_hours = 0;
  int jobs = 0;
  // The offers bursts rent on, as "provider/offer (region)": FleetCostTerms' on_demand / spot offers.
  std::vector<std::string> on_demand_offers, spot_offers;
};

// "never" for no burst, else "0s", "30m", "2h", "1.5h".
std::string burst_text(const std::optional<double>& seconds);

// The notes under the sweep, as facts.
struct ReplayNotes {
  bool checkpointing = false;        // some team or partition is marked --checkpointing-teams
  double days = 0, months = 0;       // the log's span, first start to last end; months of 730 h
  double gpu_hours_per_month = 0;
  std::string no_spot_gpu;           // set: no loaded offer rents it on spot, and some jobs checkpoint
  std::vector<SetupNote> inputs;     // the ownership and rent setup's notes
  std::vector<DefaultUsed> defaults;
  std::string unmet_target;          // set: no fleet meets this --max-p95-queue (as given)
};
std::vector<std::string> replay_notes(const ReplayNotes& n, MoneyStyle style);

nlohmann::json replay_json(const FleetSweep& s, const ReplayContext& c);
// The sweep, then the chosen fleet's queue per team (when one meets the target).
std::vector<Table> replay_tables(const FleetSweep& s, const ReplayContext& c, MoneyStyle style);

}  // namespace gpuplan::io
