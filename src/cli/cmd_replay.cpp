// gpuplan replay: replay a scheduler log's jobs against candidate fleets (N owned GPUs, a queue
// with priorities and per-team quotas, burst to the cloud after a wait W) and find the cheapest
// fleet whose p95 queue time meets a target. The replay and its money are src/core/fleet_replay.cpp
// (owned cost from tco's option_cost, burst cost from the price sheets through price_run); the
// ownership and rent terms are buy-vs-rent's own flags and defaults (buy_vs_rent_inputs.cpp).
#include <algorithm>
#include <cmath>
#include <memory>
#include <set>

#include "cli/buy_vs_rent_inputs.hpp"
#include "cli/commands.hpp"
#include "cli/common.hpp"
#include "cli/format_values.hpp"
#include "gpuplan/fleet_replay.hpp"
#include "gpuplan/units.hpp"
#include "io/render/purchase_report.hpp"
#include "io/render/replay_render.hpp"
#include "io/usage/job_log.hpp"

namespace gpuplan::cli {
namespace {

constexpr int kMaxOwned = 1024;
constexpr std::size_t kMaxOptions = 400;

struct ReplayFlags {
  BuyVsRentFlags costs;  // --gpu and the ownership / rent terms
  std::string file, owned, burst_after = "0,30m,2h,never", max_p95;
  std::vector<std::string> quotas, priorities, checkpointing;
};

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char ch : text) {
    if (ch == sep) out.push_back(cur), cur.clear();
    else if (ch != ' ') cur += ch;
  }
  out.push_back(cur);
  return out;
}

int owned_value(const std::string& text) {
  auto v = parse_int(text, 0, kMaxOwned);
  if (!v) bad_flag("--owned", v.error);
  return static_cast<int>(*v.value);
}

// "8:64:8" (from:to:step), "0,8,16" or "16".
std::vector<int> owned_list(const std::string& text, int peak, int gpus_per_build) {
  std::vector<int> out;
  if (text.empty()) return buildable_fleets(peak, gpus_per_build);  // the fleets buy-vs-rent weighs

  const auto range = split(text, ':');
  if (range.size() == 3) {
    const int from = owned_value(range[0]), to = owned_value(range[1]), step = owned_value(range[2]);
    if (step < 1 || to < from) bad_flag("--owned", "expected FROM:TO:STEP with FROM <= TO and STEP >= 1, got \"" + text + "\"");
    for (int n = from; n <= to; n += step) out.push_back(n);
  } else if (range.size() == 1) {
    for (const auto& x : split(text, ',')) out.push_back(owned_value(x));
  } else {
    bad_flag("--owned", "expected FROM:TO:STEP (e.g. 8:64:8) or a list (e.g. 0,8,16), got \"" + text + "\"");
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// "0,30m,2h,never": waits before a job bursts; "never" keeps it in the queue.
std::vector<std::optional<double>> burst_list(const std::string& text) {
  std::vector<std::optional<double>> out;
  for (const auto& x : split(text, ',')) {
    if (x == "never" || x == "inf") {
      out.push_back(std::nullopt);
      continue;
    }
    if (x == "0") {  // burst at once needs no unit
      out.push_back(0.0);
      continue;
    }
    auto s = parse_seconds(x);
    if (!s) bad_flag("--burst-after", s.error + " (or \"never\")");
    if (*s.value < 0) bad_flag("--burst-after", "must not be negative, got \"" + x + "\"");
    out.push_back(*s.value);
  }
  return out;
}

// Team and partition names in the log, for checking the keys of --quota/--priority/--checkpointing-teams.
std::set<std::string> names_in(const std::vector<Job>& jobs) {
  std::set<std::string> out;
  for (const Job& j : jobs) {
    out.insert(j.team.empty() ? "(none)" : j.team);
    if (!j.partition.empty()) out.insert(j.partition);
  }
  return out;
}

void check_key(const std::string& flag, const std::string& key, const std::set<std::string>& names, const std::string& file) {
  if (names.count(key)) return;
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  bad_flag(flag, "no job in " + file + " has team or partition \"" + key + "\" (there: " + list + ")");
}

// KEY=N pairs of --quota and --priority.
std::map<std::string, int> key_values(const std::string& flag, const std::vector<std::string>& items, int min, int max,
                                      const std::set<std::string>& names, const std::string& file) {
  std::map<std::string, int> out;
  for (const auto& item : items) {
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0) bad_flag(flag, "expected NAME=N, e.g. research=16, got \"" + item + "\"");
    const std::string key = item.substr(0, eq);
    check_key(flag, key, names, file);
    auto v = parse_int(item.substr(eq + 1), min, max);
    if (!v) bad_flag(flag, v.error);
    out[key] = static_cast<int>(*v.value);
  }
  return out;
}

// "provider/offer (region)" for each offer a burst can rent on.
std::vector<std::string> offer_names(const RentTerms& r) {
  std::vector<std::string> out;
  for (const auto& o : r.offers) out.push_back(o.offer->key() + (o.offer->region.empty() ? "" : " (" + o.offer->region + ")"));
  return out;
}

int run_replay(const Context& ctx, ReplayFlags f) {
  const io::JobLog log = io::load_job_log(f.file);
  const DemandSummary d = summarise_demand(log.jobs);
  if (d.jobs == 0) throw InputError(SourceLocation{f.file, 0, 0}, "", "no job that used a GPU and ran (check AllocTRES/gpus)");
  auto target = parse_seconds(f.max_p95);
  if (!target) bad_flag("--max-p95-queue", target.error);
  const std::set<std::string> names = names_in(log.jobs);
  ReplayMapping map;
  map.priority = key_values("--priority", f.priorities, -1000000, 1000000, names, f.file);
  for (const auto& item : f.checkpointing)
    for (const auto& key : split(item, ',')) {
      if (key != "all") check_key("--checkpointing-teams", key, names, f.file);
      map.checkpointing.insert(key);
    }
  const auto quota = key_values("--quota", f.quotas, 0, kMaxOwned, names, f.file);
  const std::vector<ReplayJob> jobs = replay_jobs(log.jobs, map);
  int widest = 1;
  for (const auto& j : jobs) widest = std::max(widest, j.gpus);
  // Rent terms priced for the widest job (offers of every width up to it), demand from the log.
  f.costs.demand = f.file;
  f.costs.demand_log = &d;  // the log is read and summarised once (a second read re-parsed it whole)
  f.costs.count = std::to_string(std::min(widest, kMaxOwned));
  const BuyVsRentSetup s = build_buy_vs_rent(ctx, f.costs);
  const std::vector<int> owned = owned_list(f.owned, d.peak_gpus, s.in.owned.gpus_per_build);
  const auto waits = burst_list(f.burst_after);
  if (owned.size() * waits.size() > kMaxOptions)
    bad_flag("--owned", std::to_string(owned.size() * waits.size()) + " fleets to replay; at most " + std::to_string(kMaxOptions));
  const FleetSweep sweep = sweep_fleet(jobs, owned, waits, quota, fleet_cost_terms(s), *target.value / 3600);
  io::ReplayContext c{f.file, log.format, s.gpu->id, s.run.currency, *target.value / 3600, static_cast<int>(jobs.size()),
                      offer_names(s.in.rent), offer_names(s.spot)};
  Report r;
  if (ctx.json_output()) {  // only the format asked is built
    r.json = io::replay_json(sweep, c);
    r.json["purchase"] = io::purchase_json(s.purchase);  // the owned fleet's price, duty and tax, as buy-vs-rent shows them
    r.json["warnings"] = s.price_warnings;
  } else {
    r.tables = io::replay_tables(sweep, c, ctx.money_style());
  }
  for (const auto& w : s.price_warnings) ctx.warn(w);
  const bool no_spot = s.spot.offers.empty() && !map.checkpointing.empty();
  r.notes = io::replay_notes({!map.checkpointing.empty(), d.span_hours / 24, d.months, d.gpu_hours_per_month, no_spot ? s.rented_gpu->id : "",
                              s.notes,  // not s.demand_notes: the profile notes are buy-vs-rent's, not the replay's
                              s.defaults, sweep.cheapest < 0 ? f.max_p95 : ""},
                             ctx.money_style());
  ctx.print_report(std::move(r));
  return sweep.cheapest < 0 ? 1 : 0;
}

}  // namespace

void setup_replay(CLI::App& app, Context& ctx) {
  auto f = std::make_shared<ReplayFlags>();
  auto* cmd = app.add_subcommand("replay", "Replay a scheduler log against owned fleets with cloud burst: queue times and cost per month");
  cmd->footer(R"(Examples:
  gpuplan replay jobs.txt --gpu a100-80gb --gpu-price 15000 --owned 8:64:8 --burst-after 0,30m,2h,never --max-p95-queue 4h
  gpuplan replay jobs.csv --gpu h100-sxm --gpu-price 25000 --quota nlp=4 --priority vision=10 --checkpointing-teams nlp --max-p95-queue 1h

Exit status: 0 when some fleet meets --max-p95-queue, 1 when none does, 2 on bad input.
With --burst-after 0 and the default --owned, the cheapest fleet is buy-vs-rent --demand FILE's verdict.
The ownership flags (--gpu-price, --power-price, --horizon ...) are buy-vs-rent's, with its defaults.)");
  cmd->add_option("file", f->file, "sacct --parsable2 output or a CSV of jobs (as gpuplan demand reads)")->required();
  cmd->add_option("--owned", f->owned, "Owned GPU counts of --gpu to try: FROM:TO:STEP or a list, e.g. 0,8,16 (default: 0, then whole builds of --gpus-per-build up to the log's peak; estimate, compare and plan take --owned GPU[xN] instead)");
  cmd->add_option("--burst-after", f->burst_after, "Waits after which a queued job bursts to the cloud, e.g. 0,30m,2h,never")
      ->capture_default_str();
  cmd->add_option("--max-p95-queue", f->max_p95, "Target: p95 queue time over all jobs, e.g. 4h")->required();
  cmd->add_option("--quota", f->quotas, "Most owned GPUs a team holds at once, TEAM=N (repeatable)");
  cmd->add_option("--priority", f->priorities, "Queue priority of a team or partition, NAME=N, higher first (repeatable)");
  cmd->add_option("--checkpointing-teams", f->checkpointing, "Teams or partitions whose jobs checkpoint and may burst on spot, or all");
  add_buy_vs_rent_options(*cmd, f->costs);
  // Demand comes from the log, and burst jobs rent on-demand or (checkpointing) spot.
  for (const char* name : {"--count", "--gpu-hours-per-month", "--gpu-hours-per-week", "--utilization", "--utilisation", "--demand",
                           "--uncertainty", "--pricing"})
    remove_option(*cmd, name);
  add_common_options(*cmd, ctx, kCatalogs);
  on_parsed(*cmd, ctx, [&ctx, f] { return run_replay(ctx, *f); });
}

}  // namespace gpuplan::cli
