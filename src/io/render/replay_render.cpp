#include "io/render/replay_render.hpp"

#include <fmt/format.h>

#include <cmath>

#include "gpuplan/tco_jobs.hpp"
#include "io/render/tco_render.hpp"

namespace gpuplan::io {
namespace {

using nlohmann::json;

std::string hours(double h) { return std::isinf(h) ? "never runs" : num(h, 2) + " h"; }
json finite(double v) { return std::isinf(v) ? json(nullptr) : json(v); }

json queue_json(const QueueStats& q) {
  json j = {{"jobs", q.jobs}, {"burst_jobs", q.burst}, {"unserved_jobs", q.unserved}, {"queue_p50_hours", finite(q.p50_hours)},
            {"queue_p95_hours", finite(q.p95_hours)}, {"queue_max_hours", finite(q.max_hours)}};
  if (!q.team.empty()) j["team"] = q.team;
  return j;
}

json offer_name(const std::vector<std::string>& names, int i) {
  return i >= 0 && static_cast<std::size_t>(i) < names.size() ? json(names[static_cast<std::size_t>(i)]) : json(nullptr);
}

json option_json(const FleetOption& o, const ReplayContext& c) {
  const FleetMonth& m = o.month;
  json teams = json::array();
  for (const auto& t : o.replay.teams) teams.push_back(queue_json(t));
  return {{"owned_gpus", o.policy.owned_gpus},
          {"verdict", to_string(verdict_of(o))},
          {"burst_on_demand_offer", offer_name(c.on_demand_offers, m.on_demand_offer)},
          {"burst_spot_offer", offer_name(c.spot_offers, m.spot_offer)},
          {"burst_after_seconds", o.policy.burst_after ? json(*o.policy.burst_after) : json(nullptr)},
          {"meets_target", o.meets_target},
          {"queue", queue_json(o.replay.all)},
          {"teams", teams},
          {"owned_utilization", o.replay.utilisation},
          {"owned_busy_gpu_hours", o.replay.owned_busy_gpu_hours},
          {"burst_spot_gpu_hours", o.replay.spot_gpu_hours},
          {"burst_on_demand_gpu_hours", o.replay.on_demand_gpu_hours},
          {"window_hours", (o.replay.window_end - o.replay.window_start) / 3600},
          {"per_month",
           {{"months_replayed", m.months},
            {"owned", m.owned.total},
            {"owned_capital", m.owned.capital},
            {"owned_running", m.owned.running},
            {"spot", m.spot},
            {"on_demand", m.on_demand},
            {"spot_billed_gpu_hours", m.spot_billed_gpu_hours},
            {"on_demand_billed_gpu_hours", m.on_demand_billed_gpu_hours},
            {"total", m.total}}},
          {"spot_fallbacks", m.spot_fallbacks}};
}

}  // namespace

std::string burst_text(const std::optional<double>& s) {
  if (!s) return "never";
  if (*s == 0) return "0s";
  if (std::fmod(*s, 3600) == 0) return num(*s / 3600, 0) + "h";
  if (std::fmod(*s, 60) == 0 && *s < 3600) return num(*s / 60, 0) + "m";
  return num(*s / 3600, 2) + "h";
}

json replay_json(const FleetSweep& s, const ReplayContext& c) {
  json options = json::array();
  for (const auto& o : s.options) options.push_back(option_json(o, c));
  return {{"file", c.file},
          {"log_format", c.log_format},
          {"jobs", c.jobs},
          {"gpu", c.gpu},
          {"currency", c.currency},
          {"max_p95_queue_hours", c.max_p95_queue_hours},
          {"cheapest", s.cheapest >= 0 ? option_json(s.options[static_cast<std::size_t>(s.cheapest)], c) : json(nullptr)},
          {"options", options}};
}

std::vector<Table> replay_tables(const FleetSweep& s, const ReplayContext& c, MoneyStyle style) {
  Table t;
  t.title = "Fleet replay of " + std::to_string(c.jobs) + " jobs on " + c.gpu + " (target: p95 queue <= " +
            num(c.max_p95_queue_hours, 2) + " h; money per month)";
  t.columns = {"owned", "burst after", "p50 queue", "p95 queue", "burst jobs", "owned use", "owned", "spot", "on-demand", "total", ""};
  t.align = {Align::right, Align::right, Align::right, Align::right, Align::right, Align::right,
             Align::right, Align::right, Align::right, Align::right, Align::left};
  t.droppable = {2, 4, 8, 7};  // p50, burst jobs, on-demand, spot: total and p95 carry the decision
  t.csv_columns = {"owned_gpus", "burst_after_seconds", "queue_p50_hours", "queue_p95_hours", "burst_jobs", "owned_utilization",
                   "owned_per_month", "spot_per_month", "on_demand_per_month", "total_per_month", "meets_target"};
  for (std::size_t i = 0; i < s.options.size(); ++i) {
    const FleetOption& o = s.options[i];
    const FleetMonth& m = o.month;
    const QueueStats& q = o.replay.all;
    std::string mark = static_cast<int>(i) == s.cheapest ? std::string("<- cheapest: ") + to_string(verdict_of(o)) : o.meets_target ? "" : "misses target";
    const json burst = offer_name(c.on_demand_offers, m.on_demand_offer), burst_spot = offer_name(c.spot_offers, m.spot_offer);
    if (static_cast<int>(i) == s.cheapest && !burst.is_null()) mark += ", bursts on " + burst.get<std::string>();
    if (static_cast<int>(i) == s.cheapest && !burst_spot.is_null()) mark += (burst.is_null() ? ", bursts on " : " and ") + burst_spot.get<std::string>() + " spot";
    if (q.unserved) mark += " (" + std::to_string(q.unserved) + " job(s) never fit)";
    t.rows.push_back({std::to_string(o.policy.owned_gpus), burst_text(o.policy.burst_after), hours(q.p50_hours), hours(q.p95_hours),
                      std::to_string(q.burst), num(100 * o.replay.utilisation, 1) + "%", money_text(m.owned.total, c.currency, 0, style),
                      money_text(m.spot, c.currency, 0, style), money_text(m.on_demand, c.currency, 0, style),
                      money_text(m.total, c.currency, 0, style), mark});
    t.csv_rows.push_back({std::to_string(o.policy.owned_gpus), o.policy.burst_after ? num(*o.policy.burst_after, 0) : "",
                          std::isinf(q.p50_hours) ? "" : num(q.p50_hours, 4), std::isinf(q.p95_hours) ? "" : num(q.p95_hours, 4),
                          std::to_string(q.burst), num(o.replay.utilisation, 4), num(m.owned.total, 2), num(m.spot, 2),
                          num(m.on_demand, 2), num(m.total, 2), o.meets_target ? "true" : "false"});
  }
  std::vector<Table> out{t};
  if (s.cheapest < 0) return out;
  const FleetOption& best = s.options[static_cast<std::size_t>(s.cheapest)];
  Table teams;
  teams.title = "Queue by team on the cheapest fleet (" + std::to_string(best.policy.owned_gpus) + " owned, burst after " +
                burst_text(best.policy.burst_after) + ")";
  teams.columns = {"team", "jobs", "burst", "p50 queue", "p95 queue", "max queue"};
  teams.align = {Align::left, Align::right, Align::right, Align::right, Align::right, Align::right};
  for (const auto& q : best.replay.teams)
    teams.rows.push_back({q.team, std::to_string(q.jobs), std::to_string(q.burst), hours(q.p50_hours), hours(q.p95_hours), hours(q.max_hours)});
  out.push_back(teams);
  return out;
}

std::vector<std::string> replay_notes(const ReplayNotes& n, MoneyStyle style) {
  std::vector<std::string> out = {
      "jobs enter the queue at their submit time (the measured start when the log has none) and run as long as they did; "
      "the queue starts jobs strictly by priority then arrival (no backfill), passing over a job its team's quota holds",
      n.checkpointing ? "burst jobs of the --checkpointing-teams teams/partitions run on spot, the rest on-demand (a job must checkpoint before it goes on spot)"
                      : "no team or partition is marked --checkpointing-teams: every burst job runs on-demand (spot only for jobs that can restart from a checkpoint)",
      "money per month is over the log's " + num(n.days, 1) + " days, first job start to last end (" + num(n.months, 2) + " months of 730 h): " +
          num(n.gpu_hours_per_month, 1) + " GPU-h a month, as demand and buy-vs-rent count it"};
  if (!n.no_spot_gpu.empty()) out.push_back("no loaded offer rents " + n.no_spot_gpu + " on spot: checkpointing jobs burst on-demand too");
  for (const auto& x : n.inputs) out.push_back(setup_note_text(x));
  if (!n.defaults.empty()) out.push_back(defaults_line("defaults used (override with the flag; sources in README \"Buy or rent\"): ", n.defaults, style));
  if (!n.unmet_target.empty())
    out.push_back("no fleet replayed keeps p95 queue time under " + n.unmet_target + ": add owned GPUs or a shorter --burst-after");
  return out;
}

}  // namespace gpuplan::io
