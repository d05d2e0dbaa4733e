#include "gpuplan/fleet_replay.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <queue>
#include <tuple>
#include <utility>

#include "gpuplan/tco_defaults.hpp"

namespace gpuplan {
namespace {

constexpr double kHour = 3600;
constexpr double kInf = std::numeric_limits<double>::infinity();

using TimeIndex = std::pair<double, std::size_t>;
using MinHeap = std::priority_queue<TimeIndex, std::vector<TimeIndex>, std::greater<TimeIndex>>;

// One replay's state: free GPUs, what each team holds, the queue, jobs running (by end) and
// burst deadlines (by time; stale once the job has left the queue). The queue is kept per team
// and GPU count, each bucket in start order, with the buckets' first jobs in one ordered set: the
// first job the quotas let start is the first head whose bucket fits its team's room, so an event
// looks at one head per held bucket rather than at every held job (a rescan made replay quadratic).
class Replay {
 public:
  Replay(const std::vector<ReplayJob>& jobs, const FleetPolicy& p) : jobs_(jobs), p_(p), free_(p.owned_gpus) {
    out_.resize(jobs.size());
    queued_.assign(jobs.size(), 0);
    std::map<std::string, int> ids;
    for (const ReplayJob& j : jobs) {
      const auto [it, added] = ids.try_emplace(j.team, static_cast<int>(quota_.size()));
      if (added) quota_.push_back(quota(j.team));
      team_of_.push_back(it->second);
    }
    used_.assign(quota_.size(), 0);
  }

  std::vector<JobOutcome> run() {
    std::vector<std::size_t> order(jobs_.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return jobs_[a].arrival < jobs_[b].arrival; });
    std::size_t k = 0;
    while (k < order.size() || !heads_.empty()) {
      const double t = next_time(k < order.size() ? jobs_[order[k]].arrival : kInf);
      if (std::isinf(t)) break;  // cannot happen (an idle fleet starts the head job); never spin
      while (!running_.empty() && running_.top().first <= t) finish(running_.top().second), running_.pop();
      for (; k < order.size() && jobs_[order[k]].arrival <= t; ++k) arrive(order[k], t);
      do schedule(t);
      while (burst_expired(t));
    }
    return out_;
  }

 private:
  using Key = std::tuple<int, double, std::size_t>;  // (-priority, arrival, index): start order

  const std::vector<ReplayJob>& jobs_;
  const FleetPolicy& p_;
  int free_;
  std::vector<int> team_of_, quota_, used_;  // per job: its team's id; per team id
  std::map<std::pair<int, int>, std::set<Key>> buckets_;  // (team id, GPUs) -> queued jobs
  std::set<Key> heads_;                                   // each non-empty bucket's first job
  std::vector<char> queued_;
  MinHeap running_, deadlines_;
  std::vector<JobOutcome> out_;

  int quota(const std::string& team) const {
    const auto it = p_.quota.find(team);
    return it == p_.quota.end() ? p_.owned_gpus : std::min(p_.owned_gpus, it->second);
  }
  Key key(std::size_t i) const { return {-jobs_[i].priority, jobs_[i].arrival, i}; }
  std::set<Key>& bucket(std::size_t i) { return buckets_[{team_of_[i], jobs_[i].gpus}]; }
  void enqueue(std::size_t i) {
    std::set<Key>& b = bucket(i);
    if (!b.empty() && key(i) < *b.begin()) heads_.erase(*b.begin());
    b.insert(key(i));
    heads_.insert(*b.begin());
    queued_[i] = 1;
  }
  void dequeue(std::size_t i) {
    std::set<Key>& b = bucket(i);
    const bool head = *b.begin() == key(i);
    b.erase(key(i));
    if (head) {
      heads_.erase(key(i));
      if (!b.empty()) heads_.insert(*b.begin());
    }
    queued_[i] = 0;
  }
  // The earliest of the next arrival, the next end and the next live deadline.
  double next_time(double arrival) {
    while (!deadlines_.empty() && !queued(deadlines_.top().second)) deadlines_.pop();
    double t = arrival;
    if (!running_.empty()) t = std::min(t, running_.top().first);
    if (!deadlines_.empty()) t = std::min(t, deadlines_.top().first);
    return t;
  }
  bool queued(std::size_t i) const { return queued_[i] != 0; }
  void finish(std::size_t i) {
    free_ += jobs_[i].gpus;
    used_[static_cast<std::size_t>(team_of_[i])] -= jobs_[i].gpus;
  }
  void send_to_cloud(std::size_t i, double t) {
    const ReplayJob& j = jobs_[i];
    out_[i] = JobOutcome{j.checkpoints ? Placement::spot : Placement::on_demand, t, t - j.arrival};
  }
  void arrive(std::size_t i, double t) {
    const ReplayJob& j = jobs_[i];
    if (j.gpus > quota_[static_cast<std::size_t>(team_of_[i])]) {  // never fits on the owned fleet
      if (p_.burst_after) send_to_cloud(i, t);
      else out_[i] = JobOutcome{Placement::unserved, kInf, kInf};
      return;
    }
    enqueue(i);
    if (p_.burst_after) deadlines_.push({j.arrival + *p_.burst_after, i});
  }
  // Start queued jobs in order until one does not fit; a job its quota holds back is passed over.
  // A start only raises what its team holds, so a bucket passed over stays held for this call.
  void schedule(double t) {
    for (auto it = heads_.begin(); it != heads_.end();) {
      const std::size_t i = std::get<2>(*it);
      const ReplayJob& j = jobs_[i];
      const auto team = static_cast<std::size_t>(team_of_[i]);
      if (used_[team] + j.gpus > quota_[team]) {
        ++it;
        continue;
      }
      if (j.gpus > free_) break;
      free_ -= j.gpus;
      used_[team] += j.gpus;
      out_[i] = JobOutcome{Placement::owned, t, t - j.arrival};
      running_.push({t + j.duration, i});
      const Key started = key(i);
      dequeue(i);
      it = heads_.upper_bound(started);
    }
  }
  // Sends every queued job whose wait reached W to the cloud; true when any left (the queue may
  // now start jobs it held behind them).
  bool burst_expired(double t) {
    bool any = false;
    while (!deadlines_.empty() && deadlines_.top().first <= t) {
      const std::size_t i = deadlines_.top().second;
      deadlines_.pop();
      if (!queued(i)) continue;
      dequeue(i);
      send_to_cloud(i, t);
      any = true;
    }
    return any;
  }
};

QueueStats stats_of(const std::string& team, const std::vector<std::size_t>& idx, const std::vector<JobOutcome>& out) {
  QueueStats s;
  s.team = team;
  std::vector<double> waits;
  for (std::size_t i : idx) {
    ++s.jobs;
    s.burst += out[i].where == Placement::spot || out[i].where == Placement::on_demand;
    s.unserved += out[i].where == Placement::unserved;
    waits.push_back(out[i].queue_seconds / kHour);
  }
  s.p50_hours = sample_quantile(waits, 0.5);
  s.p95_hours = sample_quantile(waits, 0.95);
  s.max_hours = waits.empty() ? 0 : *std::max_element(waits.begin(), waits.end());
  return s;
}

}  // namespace

const char* to_string(Placement p) {
  switch (p) {
    case Placement::owned: return "owned";
    case Placement::spot: return "spot";
    case Placement::on_demand: return "on_demand";
    case Placement::unserved: return "unserved";
  }
  return "?";
}

std::vector<ReplayJob> replay_jobs(const std::vector<Job>& jobs, const ReplayMapping& m) {
  std::vector<ReplayJob> out;
  for (const Job& j : jobs) {
    if (j.gpus <= 0 || !(j.end >= j.start)) continue;
    ReplayJob r;
    r.team = j.team.empty() ? "(none)" : j.team;
    r.arrival = j.submit && *j.submit <= j.start ? *j.submit : j.start;
    r.duration = j.end - j.start;
    r.gpus = j.gpus;
    auto pri = m.priority.find(j.team);
    if (pri == m.priority.end()) pri = m.priority.find(j.partition);
    if (pri != m.priority.end()) r.priority = pri->second;
    r.checkpoints = m.checkpointing.count("all") || m.checkpointing.count(j.team) || m.checkpointing.count(j.partition);
    out.push_back(r);
  }
  return out;
}

ReplayResult replay_fleet(const std::vector<ReplayJob>& jobs, const FleetPolicy& policy) {
  ReplayResult r;
  r.jobs = Replay(jobs, policy).run();
  if (jobs.empty()) return r;
  r.window_start = kInf;
  r.window_end = -kInf;
  std::map<std::string, std::vector<std::size_t>> by_team;
  std::vector<std::size_t> all;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const ReplayJob& j = jobs[i];
    const JobOutcome& o = r.jobs[i];
    r.window_start = std::min(r.window_start, j.arrival);
    if (o.where != Placement::unserved) r.window_end = std::max(r.window_end, o.start + j.duration);
    const double gpu_hours = j.gpus * j.duration / kHour;
    if (o.where == Placement::owned) r.owned_busy_gpu_hours += gpu_hours;
    if (o.where == Placement::spot) r.spot_gpu_hours += gpu_hours;
    if (o.where == Placement::on_demand) r.on_demand_gpu_hours += gpu_hours;
    by_team[j.team].push_back(i);
    all.push_back(i);
  }
  if (r.window_end < r.window_start) r.window_end = r.window_start;
  const double window_hours = (r.window_end - r.window_start) / kHour;
  r.utilisation = policy.owned_gpus > 0 && window_hours > 0 ? r.owned_busy_gpu_hours / (policy.owned_gpus * window_hours) : 0;
  r.all = stats_of("", all, r.jobs);
  for (const auto& [team, idx] : by_team) r.teams.push_back(stats_of(team, idx, r.jobs));
  return r;
}

std::vector<CloudPrice> cloud_prices(const std::vector<ReplayJob>& jobs, const FleetCostTerms& t) {
  std::vector<CloudPrice> out;
  for (const ReplayJob& j : jobs) {
    CloudPrice c;
    const double hours = j.duration / kHour;
    const Demand d{{DemandPeriod{hours, j.gpus * hours, 1.0}}};
    const MonthlyCost od = option_cost(0, j.gpus, d, t.owned, t.on_demand, t.horizon_months);
    c.on_demand = od.rent;
    c.on_demand_billed_gpu_hours = od.rented_gpu_hours;
    c.on_demand_offer = od.rent_offer;
    if (!t.spot.offers.empty()) {
      const MonthlyCost sp = option_cost(0, j.gpus, d, t.owned, t.spot, t.horizon_months);
      c.spot_available = sp.feasible;
      c.spot = sp.rent;
      c.spot_billed_gpu_hours = sp.rented_gpu_hours;
      c.spot_offer = sp.rent_offer;
    }
    out.push_back(c);
  }
  return out;
}

FleetMonth fleet_month(const ReplayResult& r, const std::vector<ReplayJob>& jobs, const std::vector<CloudPrice>& prices,
                       const FleetPolicy& policy, const FleetCostTerms& t) {
  FleetMonth m;
  const double month = tco_defaults::kHoursPerMonth;
  // A window of zero length (only zero-length jobs) counts as an hour, so nothing divides by zero.
  m.months = t.months > 0 ? t.months : std::max(r.window_end - r.window_start, kHour) / kHour / month;
  const int n = policy.owned_gpus;
  // The owned GPUs priced by the same option_cost as buy-vs-rent, busy for the replayed hours
  // (capped at the fleet's hours so nothing is left over to rent).
  const double busy = std::min(r.owned_busy_gpu_hours / m.months, n * month);
  RentTerms none;
  none.pricing = Pricing::on_demand;
  m.owned = option_cost(n, n, steady_demand(busy), t.owned, none, t.horizon_months);
  std::vector<double> od_by_offer(t.on_demand.offers.size(), 0.0), spot_by_offer(t.spot.offers.size(), 0.0);
  auto add = [](std::vector<double>& by, int offer, double money) {
    if (offer >= 0 && static_cast<std::size_t>(offer) < by.size()) by[static_cast<std::size_t>(offer)] += money;
  };
  for (std::size_t i = 0; i < jobs.size() && i < prices.size(); ++i) {
    const Placement w = r.jobs[i].where;
    const CloudPrice& c = prices[i];
    if (w == Placement::spot && c.spot_available) {
      m.spot += c.spot;
      m.spot_billed_gpu_hours += c.spot_billed_gpu_hours;
      add(spot_by_offer, c.spot_offer, c.spot);
    } else if (w == Placement::spot || w == Placement::on_demand) {
      m.spot_fallbacks += w == Placement::spot;
      m.on_demand += c.on_demand;
      m.on_demand_billed_gpu_hours += c.on_demand_billed_gpu_hours;
      add(od_by_offer, c.on_demand_offer, c.on_demand);
    }
  }
  auto most = [](const std::vector<double>& by) {
    int best = -1;
    for (std::size_t i = 0; i < by.size(); ++i)
      if (by[i] > 0 && (best < 0 || by[i] > by[static_cast<std::size_t>(best)])) best = static_cast<int>(i);
    return best;
  };
  m.on_demand_offer = most(od_by_offer);
  m.spot_offer = most(spot_by_offer);
  m.spot /= m.months;
  m.on_demand /= m.months;
  m.spot_billed_gpu_hours /= m.months;
  m.on_demand_billed_gpu_hours /= m.months;
  m.total = m.owned.total + m.spot + m.on_demand;
  return m;
}

FleetSweep sweep_fleet(const std::vector<ReplayJob>& jobs, const std::vector<int>& owned,
                       const std::vector<std::optional<double>>& burst_after, const std::map<std::string, int>& quota,
                       const FleetCostTerms& terms, double max_p95_queue_hours) {
  FleetSweep s;
  const std::vector<CloudPrice> prices = cloud_prices(jobs, terms);
  for (int n : owned)
    for (const auto& w : burst_after) {
      FleetOption o;
      o.policy = FleetPolicy{n, w, quota};
      o.replay = replay_fleet(jobs, o.policy);
      o.month = fleet_month(o.replay, jobs, prices, o.policy, terms);
      o.meets_target = o.replay.all.p95_hours <= max_p95_queue_hours;
      s.options.push_back(std::move(o));
    }
  for (std::size_t i = 0; i < s.options.size(); ++i)
    if (s.options[i].meets_target && (s.cheapest < 0 || s.options[i].month.total < s.options[s.cheapest].month.total))
      s.cheapest = static_cast<int>(i);
  return s;
}

}  // namespace gpuplan
