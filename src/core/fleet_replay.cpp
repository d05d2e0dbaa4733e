#include "gpuplan/fleet_replay.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <functional>
#include <future>
#include <limits>
#include <map>
#include <queue>
#include <set>
#include <string>
#include <system_error>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "gpuplan/tco_defaults.hpp"

namespace gpuplan {
namespace {

constexpr double kHour = 3600;
constexpr double kInf = std::numeric_limits<double>::infinity();

using TimeIndex = std::pair<double, std::size_t>;
using MinHeap = std::priority_queue<TimeIndex, std::vector<TimeIndex>, std::greater<TimeIndex>>;

// What every replay of one job list shares, worked out once per sweep rather than per fleet:
// the jobs in arrival order as compact records (a replay walks them in that order; reaching
// each through the input order cost a cache miss per field on a year of jobs), each job's team
// and queue bucket, and each team's jobs.
struct QueuedJob {
  double arrival = 0, duration = 0;
  int gpus = 0, priority = 0;
  int team = 0, bucket = 0;  // team id (ids in name order); (team, GPUs, priority) bucket
  bool checkpoints = false;
};
struct JobIndex {
  std::vector<std::size_t> order;               // position in arrival order -> job (ties in input order)
  std::vector<QueuedJob> queue;                 // by position
  std::vector<std::string> teams;               // team id -> name
  std::vector<std::vector<std::size_t>> members;  // team id -> its jobs, in input order
  std::size_t buckets = 0;
};

JobIndex index_jobs(const std::vector<ReplayJob>& jobs) {
  JobIndex x;
  std::unordered_map<std::string, int> first_seen;
  std::vector<int> seen_of(jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const auto [it, added] = first_seen.try_emplace(jobs[i].team, static_cast<int>(x.teams.size()));
    if (added) x.teams.push_back(jobs[i].team);
    seen_of[i] = it->second;
  }
  std::vector<std::size_t> names(x.teams.size());
  for (std::size_t k = 0; k < names.size(); ++k) names[k] = k;
  std::sort(names.begin(), names.end(), [&](std::size_t a, std::size_t b) { return x.teams[a] < x.teams[b]; });
  std::vector<int> by_name(x.teams.size());  // first-seen id -> name-order id
  std::vector<std::string> sorted(x.teams.size());
  for (std::size_t k = 0; k < names.size(); ++k) by_name[names[k]] = static_cast<int>(k), sorted[k] = x.teams[names[k]];
  x.teams = std::move(sorted);
  x.members.resize(x.teams.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) x.members[static_cast<std::size_t>(by_name[static_cast<std::size_t>(seen_of[i])])].push_back(i);
  x.order.resize(jobs.size());
  for (std::size_t i = 0; i < x.order.size(); ++i) x.order[i] = i;
  std::stable_sort(x.order.begin(), x.order.end(), [&](std::size_t a, std::size_t b) { return jobs[a].arrival < jobs[b].arrival; });
  std::map<std::tuple<int, int, int>, int> bucket_ids;
  x.queue.reserve(jobs.size());
  for (std::size_t i : x.order) {
    const ReplayJob& j = jobs[i];
    QueuedJob q{j.arrival, j.duration, j.gpus, j.priority, by_name[static_cast<std::size_t>(seen_of[i])], 0, j.checkpoints};
    q.bucket = bucket_ids.try_emplace({q.team, q.gpus, q.priority}, static_cast<int>(bucket_ids.size())).first->second;
    x.queue.push_back(q);
  }
  x.buckets = bucket_ids.size();
  return x;
}

// One replay's state: free GPUs, what each team holds, the queue, jobs running (by end) and
// burst deadlines (in arrival order, so a FIFO; stale once the job has left the queue). Jobs are
// named by their position in arrival order, which orders ties as the input order does. The
// queue is kept per (team, GPU count, priority) bucket: jobs arrive in start order within a
// bucket, so each bucket is a FIFO (a job that burst is skipped when it reaches the front), with
// the buckets' first jobs in one small ordered set. The first job the quotas let start is the
// first head whose team has room, so an event looks at one head per held bucket rather than at
// every held job (a rescan made replay quadratic), and no tree holds the whole queue.
class Replay {
 public:
  Replay(const JobIndex& x, const FleetPolicy& p) : q_(x.queue), p_(p), free_(p.owned_gpus), buckets_(x.buckets) {
    out_.resize(q_.size());
    queued_.assign(q_.size(), 0);
    for (const std::string& team : x.teams) quota_.push_back(quota(team));
    used_.assign(quota_.size(), 0);
    if (p.burst_after) deadlines_.reserve(q_.size());
  }

  // Outcomes by position in arrival order.
  std::vector<JobOutcome> run() {
    std::size_t k = 0;
    while (k < q_.size() || !heads_.empty()) {
      const double t = next_time(k < q_.size() ? q_[k].arrival : kInf);
      if (std::isinf(t)) break;  // cannot happen (an idle fleet starts the head job); never spin
      while (!running_.empty() && running_.top().first <= t) finish(running_.top().second), running_.pop();
      for (; k < q_.size() && q_[k].arrival <= t; ++k) arrive(k, t);
      do schedule(t);
      while (burst_expired(t));
    }
    return std::move(out_);
  }

 private:
  // (-priority, position): start order. Positions are in (arrival, input) order, so this is the
  // queue's (-priority, arrival, input order) without comparing doubles.
  using Key = std::pair<int, std::size_t>;
  struct Bucket {
    std::vector<std::size_t> jobs;  // in start order; those before `front` have left
    std::size_t front = 0;          // the first job still queued, or jobs.size()
  };

  const std::vector<QueuedJob>& q_;
  const FleetPolicy& p_;
  int free_;
  std::vector<int> quota_, used_;  // per team id
  std::vector<Bucket> buckets_;
  std::vector<Key> heads_;  // each non-empty bucket's first job, sorted (a few dozen: a vector beats a tree)
  std::vector<char> queued_;
  MinHeap running_;
  std::vector<TimeIndex> deadlines_;  // by time (arrivals come in order, W is one constant)
  std::size_t next_deadline_ = 0;
  std::vector<JobOutcome> out_;

  int quota(const std::string& team) const {
    const auto it = p_.quota.find(team);
    return it == p_.quota.end() ? p_.owned_gpus : std::min(p_.owned_gpus, it->second);
  }
  Key key(std::size_t i) const { return {-q_[i].priority, i}; }
  std::size_t team(std::size_t i) const { return static_cast<std::size_t>(q_[i].team); }
  Bucket& bucket(std::size_t i) { return buckets_[static_cast<std::size_t>(q_[i].bucket)]; }
  void enqueue(std::size_t i) {  // i comes after every job queued in its bucket
    Bucket& b = bucket(i);
    if (b.front == b.jobs.size()) {
      b.jobs.clear(), b.front = 0;  // reuse the storage of jobs that left
      add_head(key(i));
    }
    b.jobs.push_back(i);
    queued_[i] = 1;
  }
  void dequeue(std::size_t i) {
    queued_[i] = 0;
    Bucket& b = bucket(i);
    if (b.jobs[b.front] != i) return;  // skipped when it reaches the front
    heads_.erase(std::lower_bound(heads_.begin(), heads_.end(), key(i)));
    while (b.front < b.jobs.size() && !queued_[b.jobs[b.front]]) ++b.front;
    if (b.front < b.jobs.size()) add_head(key(b.jobs[b.front]));
  }
  void add_head(const Key& k) { heads_.insert(std::upper_bound(heads_.begin(), heads_.end(), k), k); }
  // The earliest of the next arrival, the next end and the next live deadline.
  double next_time(double arrival) {
    while (next_deadline_ < deadlines_.size() && !queued(deadlines_[next_deadline_].second)) ++next_deadline_;
    double t = arrival;
    if (!running_.empty()) t = std::min(t, running_.top().first);
    if (next_deadline_ < deadlines_.size()) t = std::min(t, deadlines_[next_deadline_].first);
    return t;
  }
  bool queued(std::size_t i) const { return queued_[i] != 0; }
  void finish(std::size_t i) {
    free_ += q_[i].gpus;
    used_[team(i)] -= q_[i].gpus;
  }
  void send_to_cloud(std::size_t i, double t) {
    out_[i] = JobOutcome{q_[i].checkpoints ? Placement::spot : Placement::on_demand, t, t - q_[i].arrival};
  }
  void arrive(std::size_t i, double t) {
    const QueuedJob& j = q_[i];
    if (j.gpus > quota_[team(i)]) {  // never fits on the owned fleet
      if (p_.burst_after) send_to_cloud(i, t);
      else out_[i] = JobOutcome{Placement::unserved, kInf, kInf};
      return;
    }
    enqueue(i);
    if (p_.burst_after) deadlines_.push_back({j.arrival + *p_.burst_after, i});
  }
  // Start queued jobs in order until one does not fit; a job its quota holds back is passed over.
  // A start only raises what its team holds, so a bucket passed over stays held for this call.
  void schedule(double t) {
    for (std::size_t h = 0; h < heads_.size();) {
      const std::size_t i = heads_[h].second;
      const QueuedJob& j = q_[i];
      if (used_[team(i)] + j.gpus > quota_[team(i)]) {
        ++h;
        continue;
      }
      if (j.gpus > free_) break;
      free_ -= j.gpus;
      used_[team(i)] += j.gpus;
      out_[i] = JobOutcome{Placement::owned, t, t - j.arrival};
      running_.push({t + j.duration, i});
      const Key started = key(i);
      dequeue(i);
      h = static_cast<std::size_t>(std::upper_bound(heads_.begin(), heads_.end(), started) - heads_.begin());
    }
  }
  // Sends every queued job whose wait reached W to the cloud; true when any left (the queue may
  // now start jobs it held behind them).
  bool burst_expired(double t) {
    bool any = false;
    for (; next_deadline_ < deadlines_.size() && deadlines_[next_deadline_].first <= t; ++next_deadline_) {
      const std::size_t i = deadlines_[next_deadline_].second;
      if (!queued(i)) continue;
      dequeue(i);
      send_to_cloud(i, t);
      any = true;
    }
    return any;
  }
};

// sample_quantile(v, 0.5) and sample_quantile(v, 0.95), reordering v: the second selection runs
// only over what the first left below the 95th percentile, where the median's order statistics
// are (a sweep takes both for every team of every fleet).
std::pair<double, double> median_and_p95(std::vector<double>& v) {
  if (v.empty()) return {0, 0};
  const auto at = [&](std::size_t k) { return v.begin() + static_cast<std::ptrdiff_t>(k); };
  const auto mix = [](double a, double b, double f) { return std::isinf(b) ? b : a + (b - a) * f; };
  const double pos95 = 0.95 * static_cast<double>(v.size() - 1), pos50 = 0.5 * static_cast<double>(v.size() - 1);
  const auto lo95 = static_cast<std::size_t>(std::floor(pos95)), lo50 = static_cast<std::size_t>(std::floor(pos50));
  std::nth_element(v.begin(), at(lo95), v.end());
  const double a95 = v[lo95];
  const bool on95 = pos95 == static_cast<double>(lo95), on50 = pos50 == static_cast<double>(lo50);
  const double b95 = on95 && on50 ? a95 : lo95 + 1 < v.size() ? *std::min_element(at(lo95 + 1), v.end()) : a95;
  const double p95 = on95 ? a95 : mix(a95, b95, pos95 - static_cast<double>(lo95));
  if (lo50 == lo95) return {on50 ? a95 : mix(a95, b95, pos50 - static_cast<double>(lo50)), p95};
  std::nth_element(v.begin(), at(lo50), at(lo95));  // [0, lo95) holds the lo95 smallest values
  const double a50 = v[lo50];
  if (on50) return {a50, p95};
  const double b50 = lo50 + 1 < lo95 ? *std::min_element(at(lo50 + 1), at(lo95)) : a95;
  return {mix(a50, b50, pos50 - static_cast<double>(lo50)), p95};
}

// Queue statistics of the jobs `idx` (all jobs when null); `waits` is scratch space.
QueueStats stats_of(const std::string& team, const std::vector<std::size_t>* idx, const std::vector<JobOutcome>& out,
                    std::vector<double>& waits) {
  QueueStats s;
  s.team = team;
  waits.clear();
  const std::size_t n = idx ? idx->size() : out.size();
  for (std::size_t k = 0; k < n; ++k) {
    const JobOutcome& o = out[idx ? (*idx)[k] : k];
    ++s.jobs;
    s.burst += o.where == Placement::spot || o.where == Placement::on_demand;
    s.unserved += o.where == Placement::unserved;
    waits.push_back(o.queue_seconds / kHour);
  }
  s.max_hours = waits.empty() ? 0 : *std::max_element(waits.begin(), waits.end());
  std::tie(s.p50_hours, s.p95_hours) = median_and_p95(waits);
  return s;
}

ReplayResult replay_indexed(const std::vector<ReplayJob>& jobs, const JobIndex& x, const FleetPolicy& policy) {
  ReplayResult r;
  const std::vector<JobOutcome> by_position = Replay(x, policy).run();
  r.jobs.resize(jobs.size());
  for (std::size_t k = 0; k < by_position.size(); ++k) r.jobs[x.order[k]] = by_position[k];
  if (jobs.empty()) return r;
  r.window_start = kInf;
  r.window_end = -kInf;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const ReplayJob& j = jobs[i];
    const JobOutcome& o = r.jobs[i];
    r.window_start = std::min(r.window_start, j.arrival);
    if (o.where != Placement::unserved) r.window_end = std::max(r.window_end, o.start + j.duration);
    const double gpu_hours = j.gpus * j.duration / kHour;
    if (o.where == Placement::owned) r.owned_busy_gpu_hours += gpu_hours;
    if (o.where == Placement::spot) r.spot_gpu_hours += gpu_hours;
    if (o.where == Placement::on_demand) r.on_demand_gpu_hours += gpu_hours;
  }
  if (r.window_end < r.window_start) r.window_end = r.window_start;
  const double window_hours = (r.window_end - r.window_start) / kHour;
  r.utilisation = policy.owned_gpus > 0 && window_hours > 0 ? r.owned_busy_gpu_hours / (policy.owned_gpus * window_hours) : 0;
  std::vector<double> waits;
  waits.reserve(jobs.size());
  r.all = stats_of("", nullptr, r.jobs, waits);
  for (std::size_t k = 0; k < x.teams.size(); ++k) r.teams.push_back(stats_of(x.teams[k], &x.members[k], r.jobs, waits));
  return r;
}

// Calls work(k) for every k < n, spread over the machine's cores: each thread takes the next
// index until none is left. `work` must touch only what index k owns (results go into a
// pre-sized vector by index, so the outcome does not depend on which thread ran what). The
// first exception any call throws reaches the caller once every thread has stopped.
void for_each_index(std::size_t n, const std::function<void(std::size_t)>& work) {
  const std::size_t threads = std::min<std::size_t>(n, std::max(1U, std::thread::hardware_concurrency()));
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  auto drain = [&] {
    for (std::size_t k; !failed.load() && (k = next.fetch_add(1)) < n;) {
      try {
        work(k);
      } catch (...) {
        failed = true;
        throw;
      }
    }
  };
  std::vector<std::future<void>> helpers;
  for (std::size_t t = 1; t < threads; ++t) {
    try {
      helpers.push_back(std::async(std::launch::async, drain));
    } catch (const std::system_error&) {
      break;  // no more threads to be had (a container's limit): the ones started, and this one, do the rest
    }
  }
  std::exception_ptr error;
  try {
    drain();
  } catch (...) {
    error = std::current_exception();
  }
  for (auto& h : helpers) {
    try {
      h.get();
    } catch (...) {
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
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
  return replay_indexed(jobs, index_jobs(jobs), policy);
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
  const JobIndex x = index_jobs(jobs);  // one arrival order and team index for every fleet
  s.options.resize(owned.size() * burst_after.size());
  for (std::size_t k = 0; k < s.options.size(); ++k)
    s.options[k].policy = FleetPolicy{owned[k / burst_after.size()], burst_after[k % burst_after.size()], quota};
  // The fleets are independent: each replays the shared, read-only index into its own option.
  for_each_index(s.options.size(), [&](std::size_t k) {
    FleetOption& o = s.options[k];
    o.replay = replay_indexed(jobs, x, o.policy);
    o.month = fleet_month(o.replay, jobs, prices, o.policy, terms);
    o.meets_target = o.replay.all.p95_hours <= max_p95_queue_hours;
    // Priced: the per-job outcomes are dropped (a sweep of 256 fleets over a year of jobs
    // would otherwise hold 256 copies of the log's schedule).
    std::vector<JobOutcome>().swap(o.replay.jobs);
  });
  for (std::size_t i = 0; i < s.options.size(); ++i)
    if (s.options[i].meets_target && (s.cheapest < 0 || s.options[i].month.total < s.options[s.cheapest].month.total))
      s.cheapest = static_cast<int>(i);
  return s;
}

}  // namespace gpuplan
