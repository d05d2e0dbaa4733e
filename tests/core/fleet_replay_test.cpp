// Fleet replay against a four-job log simulated by hand (the schedule of each case is worked
// out in its comment), its costs to the cent, and properties over generated logs.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <queue>
#include <random>
#include <set>
#include <tuple>

#include "gpuplan/fleet_replay.hpp"

using namespace gpuplan;

namespace {

constexpr double kH = 3600;
constexpr double kCent = 0.005;

ReplayJob rj(const char* team, double arrival_h, double hours, int gpus, bool checkpoints = false) {
  ReplayJob j;
  j.team = team;
  j.arrival = arrival_h * kH;
  j.duration = hours * kH;
  j.gpus = gpus;
  j.checkpoints = checkpoints;
  return j;
}

// A (team a) and B (team b) arrive at 0 and run 2 h and 3 h on one GPU each; at 1 h C (team a,
// 2 GPUs, checkpoints) and D (team b, 1 GPU) arrive, 1 h each.
std::vector<ReplayJob> four() {
  return {rj("a", 0, 2, 1), rj("b", 0, 3, 1), rj("a", 1, 1, 2, true), rj("b", 1, 1, 1)};
}

double wait_h(const ReplayResult& r, std::size_t i) { return r.jobs[i].queue_seconds / kH; }

}  // namespace

TEST_CASE("two owned GPUs, no burst: strict order, no backfill", "[fleet_replay]") {
  // 0: A and B start. 1: C queues ahead of D (same priority, C listed first) and needs 2 GPUs.
  // 2: A ends, 1 free: C still blocks D. 3: B ends, C runs 3-4. 4: D runs 4-5.
  const ReplayResult r = replay_fleet(four(), FleetPolicy{2, std::nullopt, {}});
  CHECK(wait_h(r, 0) == 0);
  CHECK(wait_h(r, 1) == 0);
  CHECK(wait_h(r, 2) == Approx(2));
  CHECK(wait_h(r, 3) == Approx(3));
  // Busy 2 + 3 + 2 + 1 = 8 GPU-h over 0-5 h on 2 GPUs: 80%.
  CHECK(r.owned_busy_gpu_hours == Approx(8));
  CHECK(r.utilisation == Approx(0.8));
  CHECK(r.spot_gpu_hours == 0);
  CHECK(r.on_demand_gpu_hours == 0);
  // Waits 0, 0, 2, 3: p50 at rank 1.5 = 1; p95 at rank 2.85 = 2 + 0.85 = 2.85.
  CHECK(r.all.p50_hours == Approx(1));
  CHECK(r.all.p95_hours == Approx(2.85));
  CHECK(r.all.max_hours == Approx(3));
  REQUIRE(r.teams.size() == 2);
  CHECK(r.teams[0].team == "a");
  CHECK(r.teams[0].p95_hours == Approx(1.9));  // 0 and 2
  CHECK(r.teams[1].p95_hours == Approx(2.85));  // 0 and 3
}

TEST_CASE("priorities, quotas and the burst rule on the four jobs", "[fleet_replay]") {
  SECTION("team b first: D runs 2-3 on A's GPU, C 3-4") {
    auto jobs = four();
    jobs[1].priority = jobs[3].priority = 10;
    const ReplayResult r = replay_fleet(jobs, FleetPolicy{2, std::nullopt, {}});
    CHECK(wait_h(r, 2) == Approx(2));
    CHECK(wait_h(r, 3) == Approx(1));
  }
  SECTION("burst after 1.5 h: C to spot (checkpoints), D on-demand, both at 2.5 h") {
    const ReplayResult r = replay_fleet(four(), FleetPolicy{2, 1.5 * kH, {}});
    CHECK(r.jobs[2].where == Placement::spot);
    CHECK(r.jobs[3].where == Placement::on_demand);
    CHECK(wait_h(r, 2) == Approx(1.5));
    CHECK(wait_h(r, 3) == Approx(1.5));
    // Owned busy 5 GPU-h; the window ends when the burst jobs do, 3.5 h: 5 / 7.
    CHECK(r.owned_busy_gpu_hours == Approx(5));
    CHECK(r.utilisation == Approx(5.0 / 7.0));
    CHECK(r.spot_gpu_hours == Approx(2));
    CHECK(r.on_demand_gpu_hours == Approx(1));
    CHECK(r.all.burst == 2);
  }
  SECTION("burst after 0: whatever cannot start on arrival goes at once") {
    const ReplayResult r = replay_fleet(four(), FleetPolicy{2, 0.0, {}});
    CHECK(r.jobs[2].where == Placement::spot);
    CHECK(r.jobs[3].where == Placement::on_demand);
    CHECK(r.all.max_hours == 0);
  }
  SECTION("quota a=1: C never fits; unserved without burst, to the cloud at once with it") {
    const ReplayResult none = replay_fleet(four(), FleetPolicy{2, std::nullopt, {{"a", 1}}});
    CHECK(none.jobs[2].where == Placement::unserved);
    CHECK(std::isinf(none.all.p95_hours));
    CHECK(none.all.unserved == 1);
    // D: waits for A's GPU at 2 h.
    CHECK(wait_h(none, 3) == Approx(1));
    const ReplayResult burst = replay_fleet(four(), FleetPolicy{2, 4 * kH, {{"a", 1}}});
    CHECK(burst.jobs[2].where == Placement::spot);
    CHECK(wait_h(burst, 2) == 0);
  }
  SECTION("a quota holds a team back without blocking the others") {
    // Quota a=1 with A running: A2 (team a, 1 GPU, arrives 0.5 h) waits for A; D (team b) does not wait for A2.
    std::vector<ReplayJob> jobs = {rj("a", 0, 2, 1), rj("a", 0.5, 1, 1), rj("b", 1, 1, 1)};
    const ReplayResult r = replay_fleet(jobs, FleetPolicy{3, std::nullopt, {{"a", 1}}});
    CHECK(wait_h(r, 1) == Approx(1.5));
    CHECK(wait_h(r, 2) == 0);
  }
}

TEST_CASE("fleet cost: owned from option_cost, burst from the price sheet", "[fleet_replay]") {
  Provider p;
  p.id = "cloud";
  p.currency = "USD";
  p.billing_increment_seconds = 1;
  Offer o;
  o.id = "x1";
  o.provider = "cloud";
  o.gpus = 1;
  o.per_gpu_hour[static_cast<int>(Pricing::on_demand)] = 2.00;
  o.per_gpu_hour[static_cast<int>(Pricing::spot)] = 0.80;
  FleetCostTerms t;
  t.owned.gpu_price = 1600;
  t.owned.rest_of_machine_per_build = 1400;
  t.owned.gpus_per_build = 4;
  t.owned.tdp_watts = 450;
  t.owned.power_price_per_kwh = 0.15;
  t.owned.maintenance_per_year = 0.08;
  t.owned.failures_per_gpu_year = 0.05;
  t.owned.resale_kept_per_year = 0.8;
  t.on_demand.offers = {RentOffer{&o, &p, 1.0}};
  t.spot = t.on_demand;
  t.spot.pricing = Pricing::spot;
  t.horizon_months = 36;
  const auto jobs = four();
  const FleetPolicy pol{2, 1.5 * kH, {}};
  const ReplayResult r = replay_fleet(jobs, pol);
  const FleetMonth m = fleet_month(r, jobs, cloud_prices(jobs, t), pol, t);
  // Window 3.5 h = 3.5/730 months. C on spot: 2 GPU-h x 0.80 = 1.60; D on-demand: 1 x 2.00.
  CHECK(m.spot == Approx(1.60 * 730 / 3.5).margin(kCent));       // 333.71
  CHECK(m.on_demand == Approx(2.00 * 730 / 3.5).margin(kCent));  // 417.14
  CHECK(m.spot_billed_gpu_hours == Approx(2 * 730 / 3.5));
  // Owned: 3200 + 1400 = 4600, residual 4600 x 0.8^3 = 2355.20: capital 62.36; maintenance 30.67;
  // failures 0.05 x 2 x 1600 / 12 = 13.33; power 5 GPU-h x 730/3.5 x 0.45 kW x 0.15 = 70.39.
  CHECK(m.owned.capital == Approx(62.36).margin(kCent));
  CHECK(m.owned.power == Approx(70.39).margin(kCent));
  CHECK(m.owned.rent == 0);
  CHECK(m.owned.total == Approx(176.75).margin(kCent));
  CHECK(m.total == Approx(176.75 + 333.71 + 417.14).margin(0.02));
  SECTION("no spot offer: the checkpointing job bursts on-demand and is counted") {
    t.spot.offers.clear();
    const FleetMonth n = fleet_month(r, jobs, cloud_prices(jobs, t), pol, t);
    CHECK(n.spot == 0);
    CHECK(n.spot_fallbacks == 1);
    CHECK(n.on_demand == Approx(6.00 * 730 / 3.5).margin(kCent));
  }
  SECTION("the sweep picks the cheapest fleet under the p95 target") {
    // p95 under 2 h: N=2 without burst fails (2.85 h); N=2 with W=1.5 h passes; N=0 bursts all.
    const FleetSweep s = sweep_fleet(jobs, {0, 2}, {std::nullopt, 1.5 * kH}, {}, t, 2.0);
    REQUIRE(s.options.size() == 4);
    CHECK_FALSE(s.options[0].meets_target);  // N=0, never burst: nothing runs
    CHECK(s.options[1].meets_target);        // N=0, all to the cloud at once
    CHECK_FALSE(s.options[2].meets_target);
    CHECK(s.options[3].meets_target);
    REQUIRE(s.cheapest >= 0);
    double best = 1e300;
    for (const auto& x : s.options)
      if (x.meets_target) best = std::min(best, x.month.total);
    CHECK(s.options[static_cast<std::size_t>(s.cheapest)].month.total == best);
  }
}

TEST_CASE("replay properties over generated logs", "[fleet_replay]") {
  std::uint64_t seed = 12345;
  auto next = [&] {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>(seed >> 11) / 9007199254740992.0;
  };
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<ReplayJob> jobs;
    double total = 0;
    for (int i = 0; i < 60; ++i) {
      ReplayJob j = rj(next() < 0.5 ? "a" : "b", next() * 48, 0.1 + next() * 6, 1 + static_cast<int>(next() * 4), next() < 0.5);
      total += j.gpus * j.duration / kH;
      jobs.push_back(j);
    }
    // One priority, no quota, no burst: a job starts no later on a larger fleet (each start is the
    // first time enough GPUs are free after the previous start, and every earlier job ends no
    // later), so no percentile rises.
    std::vector<double> prev_wait(jobs.size(), std::numeric_limits<double>::infinity());
    double prev_p95 = std::numeric_limits<double>::infinity();
    for (int n = 4; n <= 32; n += 4) {
      const ReplayResult r = replay_fleet(jobs, FleetPolicy{n, std::nullopt, {}});
      CHECK(r.all.p95_hours <= prev_p95 + 1e-9);
      for (std::size_t i = 0; i < jobs.size(); ++i) CHECK(r.jobs[i].queue_seconds <= prev_wait[i] + 1e-6);
      // W = never: nothing bursts, everything runs on the owned fleet.
      CHECK(r.spot_gpu_hours + r.on_demand_gpu_hours == 0);
      CHECK(r.owned_busy_gpu_hours == Approx(total));
      CHECK(r.utilisation <= 1 + 1e-9);
      prev_p95 = r.all.p95_hours;
      for (std::size_t i = 0; i < jobs.size(); ++i) prev_wait[i] = r.jobs[i].queue_seconds;
      // With a burst rule, nobody waits past W and every GPU-hour is served somewhere.
      const ReplayResult b = replay_fleet(jobs, FleetPolicy{n, 0.5 * kH, {}});
      CHECK(b.all.max_hours <= 0.5 + 1e-9);
      CHECK(b.owned_busy_gpu_hours + b.spot_gpu_hours + b.on_demand_gpu_hours == Approx(total));
      for (std::size_t i = 0; i < jobs.size(); ++i)
        if (b.jobs[i].where == Placement::spot) CHECK(jobs[i].checkpoints);
    }
  }
}

namespace {

// The queue as first written: one ordered set, rescanned from its start at every event. Kept as
// the reference for the per-team buckets replay_fleet uses (same outcomes, job for job).
std::vector<JobOutcome> rescanning_replay(const std::vector<ReplayJob>& jobs, const FleetPolicy& p) {
  const double inf = std::numeric_limits<double>::infinity();
  using TI = std::pair<double, std::size_t>;
  std::priority_queue<TI, std::vector<TI>, std::greater<TI>> running, deadlines;
  std::set<std::tuple<int, double, std::size_t>> queue;
  std::map<std::string, int> used;
  std::vector<JobOutcome> out(jobs.size());
  int free = p.owned_gpus;
  auto quota = [&](const std::string& team) {
    const auto it = p.quota.find(team);
    return it == p.quota.end() ? p.owned_gpus : std::min(p.owned_gpus, it->second);
  };
  auto key = [&](std::size_t i) { return std::make_tuple(-jobs[i].priority, jobs[i].arrival, i); };
  auto cloud = [&](std::size_t i, double t) {
    out[i] = JobOutcome{jobs[i].checkpoints ? Placement::spot : Placement::on_demand, t, t - jobs[i].arrival};
  };
  std::vector<std::size_t> order(jobs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return jobs[a].arrival < jobs[b].arrival; });
  std::size_t k = 0;
  while (k < order.size() || !queue.empty()) {
    while (!deadlines.empty() && !queue.count(key(deadlines.top().second))) deadlines.pop();
    double t = k < order.size() ? jobs[order[k]].arrival : inf;
    if (!running.empty()) t = std::min(t, running.top().first);
    if (!deadlines.empty()) t = std::min(t, deadlines.top().first);
    if (std::isinf(t)) break;
    for (; !running.empty() && running.top().first <= t; running.pop())
      free += jobs[running.top().second].gpus, used[jobs[running.top().second].team] -= jobs[running.top().second].gpus;
    for (; k < order.size() && jobs[order[k]].arrival <= t; ++k) {
      const std::size_t i = order[k];
      if (jobs[i].gpus > quota(jobs[i].team)) {
        if (p.burst_after) cloud(i, t);
        else out[i] = JobOutcome{Placement::unserved, inf, inf};
        continue;
      }
      queue.insert(key(i));
      if (p.burst_after) deadlines.push({jobs[i].arrival + *p.burst_after, i});
    }
    bool any;
    do {
      for (auto it = queue.begin(); it != queue.end();) {
        const std::size_t i = std::get<2>(*it);
        if (used[jobs[i].team] + jobs[i].gpus > quota(jobs[i].team)) { ++it; continue; }
        if (jobs[i].gpus > free) break;
        free -= jobs[i].gpus;
        used[jobs[i].team] += jobs[i].gpus;
        out[i] = JobOutcome{Placement::owned, t, t - jobs[i].arrival};
        running.push({t + jobs[i].duration, i});
        it = queue.erase(it);
      }
      any = false;
      for (; !deadlines.empty() && deadlines.top().first <= t; deadlines.pop()) {
        const std::size_t i = deadlines.top().second;
        if (!queue.count(key(i))) continue;
        queue.erase(key(i));
        cloud(i, t);
        any = true;
      }
    } while (any);
  }
  return out;
}

}  // namespace

TEST_CASE("the per-team queue starts the jobs the rescanned queue started, job for job", "[fleet_replay][queue]") {
  std::mt19937 rng(31);
  std::uniform_int_distribution<int> team(0, 3), width(0, 3), pri(0, 2), when(0, 40), len(1, 30), coin(0, 1);
  const char* teams[] = {"a", "b", "c", "(none)"};
  Provider cloud;  // a sweep prices its bursts: one on-demand offer of one GPU
  cloud.id = "cloud";
  cloud.currency = "USD";
  Offer x1;
  x1.id = "x1";
  x1.provider = "cloud";
  x1.per_gpu_hour[static_cast<int>(Pricing::on_demand)] = 2.00;
  FleetCostTerms terms;
  terms.on_demand.offers = {RentOffer{&x1, &cloud, 1.0}};
  for (int round = 0; round < 300; ++round) {
    std::vector<ReplayJob> jobs;
    for (int i = 0; i < 1 + round % 70; ++i) {
      ReplayJob j;
      j.team = teams[team(rng)];
      j.arrival = when(rng) * 600.0;
      j.duration = len(rng) * 600.0;
      j.gpus = 1 << width(rng);
      j.priority = pri(rng) == 0 ? 5 : 0;
      j.checkpoints = coin(rng);
      jobs.push_back(j);
    }
    FleetPolicy p;
    p.owned_gpus = 1 + round % 12;
    if (round % 3) p.burst_after = (round % 5) * 900.0;
    if (round % 2) p.quota = {{"a", 1 + round % 4}, {"b", 2 + round % 5}};
    const auto want = rescanning_replay(jobs, p);
    const ReplayResult r = replay_fleet(jobs, p);
    const auto& got = r.jobs;
    REQUIRE(got.size() == want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      REQUIRE(got[i].where == want[i].where);
      REQUIRE(got[i].start == want[i].start);
      REQUIRE(got[i].queue_seconds == want[i].queue_seconds);
    }
    // A sweep replays with one shared index of the jobs: the same figures as a lone replay.
    const FleetSweep s = sweep_fleet(jobs, {p.owned_gpus}, {p.burst_after}, p.quota, terms, 1.0);
    REQUIRE(s.options.size() == 1);
    const ReplayResult& o = s.options[0].replay;
    CHECK(o.owned_busy_gpu_hours == r.owned_busy_gpu_hours);
    CHECK(o.utilisation == r.utilisation);
    CHECK(o.all.p95_hours == r.all.p95_hours);
    REQUIRE(o.teams.size() == r.teams.size());
    for (std::size_t k = 0; k < o.teams.size(); ++k) {
      CHECK(o.teams[k].team == r.teams[k].team);
      CHECK(o.teams[k].jobs == r.teams[k].jobs);
      CHECK(o.teams[k].p50_hours == r.teams[k].p50_hours);
      CHECK(o.teams[k].max_hours == r.teams[k].max_hours);
    }
  }
}

TEST_CASE("a sweep of many fleets gives each fleet's figures, in order, as replaying it alone does", "[fleet_replay][sweep]") {
  // The sweep spreads its fleets over threads; each option must still be its own fleet's replay
  // and money, at its place in the (owned, wait) order, whichever thread ran it.
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> team(0, 2), width(0, 3), when(0, 400), len(1, 40), coin(0, 1);
  const char* teams[] = {"a", "b", "c"};
  std::vector<ReplayJob> jobs;
  for (int i = 0; i < 300; ++i) {
    ReplayJob j;
    j.team = teams[team(rng)];
    j.arrival = when(rng) * 600.0;
    j.duration = len(rng) * 600.0;
    j.gpus = 1 << width(rng);
    j.checkpoints = coin(rng);
    jobs.push_back(j);
  }
  Provider cloud;
  cloud.id = "cloud";
  cloud.currency = "USD";
  Offer x1;
  x1.id = "x1";
  x1.provider = "cloud";
  x1.per_gpu_hour[static_cast<int>(Pricing::on_demand)] = 2.00;
  FleetCostTerms terms;
  terms.on_demand.offers = {RentOffer{&x1, &cloud, 1.0}};
  std::vector<int> owned;
  for (int n = 0; n <= 40; n += 2) owned.push_back(n);
  const std::vector<std::optional<double>> waits = {0.0, 1800.0, std::nullopt};
  const std::map<std::string, int> quota = {{"b", 6}};
  const FleetSweep s = sweep_fleet(jobs, owned, waits, quota, terms, 2.0);
  REQUIRE(s.options.size() == owned.size() * waits.size());
  const std::vector<CloudPrice> prices = cloud_prices(jobs, terms);
  int cheapest = -1;
  for (std::size_t k = 0; k < s.options.size(); ++k) {
    const FleetOption& o = s.options[k];
    const FleetPolicy p{owned[k / waits.size()], waits[k % waits.size()], quota};
    REQUIRE(o.policy.owned_gpus == p.owned_gpus);
    REQUIRE(o.policy.burst_after == p.burst_after);
    const ReplayResult r = replay_fleet(jobs, p);
    const FleetMonth m = fleet_month(r, jobs, prices, p, terms);
    CHECK(o.replay.jobs.empty());  // dropped once priced
    CHECK(o.replay.owned_busy_gpu_hours == r.owned_busy_gpu_hours);
    CHECK(o.replay.window_end == r.window_end);
    CHECK(o.replay.all.p50_hours == r.all.p50_hours);
    CHECK(o.replay.all.p95_hours == r.all.p95_hours);
    CHECK(o.replay.all.burst == r.all.burst);
    REQUIRE(o.replay.teams.size() == r.teams.size());
    for (std::size_t t = 0; t < r.teams.size(); ++t) CHECK(o.replay.teams[t].p95_hours == r.teams[t].p95_hours);
    CHECK(o.month.total == m.total);
    CHECK(o.month.on_demand == m.on_demand);
    CHECK(o.meets_target == (r.all.p95_hours <= 2.0));
    if (o.meets_target && (cheapest < 0 || m.total < s.options[static_cast<std::size_t>(cheapest)].month.total)) cheapest = static_cast<int>(k);
  }
  CHECK(s.cheapest == cheapest);
  CHECK(s.cheapest >= 0);
}
