// rank_offers' sort-based Pareto sweep and collapse_regions' hashed grouping against the
// definitions they replace (the O(n^2) forms, kept here as the reference), on random rows with
// many ties: equal costs, equal times, equal rates, repeated offers.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <limits>
#include <random>

#include "gpuplan/offer_rows.hpp"
#include "gpuplan/offer_search.hpp"

using namespace gpuplan;

namespace {

// The definition: no other offer is at least as cheap and as fast, and better in one.
void brute_force_pareto(std::vector<PricedOffer>& offers) {
  for (auto& a : offers)
    a.pareto = std::none_of(offers.begin(), offers.end(), [&](const PricedOffer& b) {
      return b.sort_cost() <= a.sort_cost() && b.sort_time() <= a.sort_time() &&
             (b.sort_cost() < a.sort_cost() || b.sort_time() < a.sort_time());
    });
}

// The linear search collapse_regions did before it hashed.
void reference_collapse(std::vector<PricedOffer>& offers) {
  auto base = [](const Offer& o) { return o.id.substr(0, o.id.find('@')); };
  std::vector<PricedOffer> kept;
  for (auto& p : offers) {
    auto same = std::find_if(kept.begin(), kept.end(), [&](const PricedOffer& k) {
      return k.provider == p.provider && base(*k.offer) == base(*p.offer) && k.offer->id != p.offer->id &&
             k.rate_per_hour == p.rate_per_hour && k.eval.workload.gpus == p.eval.workload.gpus;
    });
    if (same != kept.end() && p.offer->id.find('@') != std::string::npos) {
      ++same->same_price_regions;
      continue;
    }
    kept.push_back(p);
  }
  offers = kept;
}

struct Fixture {
  std::deque<Provider> providers;
  std::deque<Offer> offers;
};

// n rows over a small grid of costs, times and rates, so ties are common. `per_step` tags each
// row with its position so orders can be compared row for row.
std::vector<PricedOffer> random_rows(std::mt19937& rng, Fixture& fx, int n, bool with_total, bool with_nan) {
  for (int i = 0; i < 3; ++i) fx.providers.push_back(Provider{}), fx.providers.back().id = "p" + std::to_string(i);
  const char* ids[] = {"a", "a@r1", "a@r2", "a@r3", "b@r1", "b@r2", "b", "c@r1@z"};
  for (const auto& p : fx.providers)
    for (const char* id : ids) fx.offers.push_back(Offer{}), fx.offers.back().id = id, fx.offers.back().provider = p.id;
  std::uniform_int_distribution<int> grid(0, 5), pick(0, static_cast<int>(fx.offers.size()) - 1), gpus(0, 1), nan(0, 40);
  std::vector<PricedOffer> rows;
  for (int i = 0; i < n; ++i) {
    PricedOffer r;
    const Offer& o = fx.offers[static_cast<std::size_t>(pick(rng))];
    r.offer = &o;
    r.provider = &*std::find_if(fx.providers.begin(), fx.providers.end(), [&](const Provider& p) { return p.id == o.provider; });
    const double cost = grid(rng) * 0.5, time = grid(rng) * 100.0;
    if (with_total) {
      r.total = cost;
      r.eval.cost = RunCost{};
      r.eval.cost->wall_seconds = time;
    } else {
      r.per_million_tokens = cost;
      r.eval.time.step_seconds = time;
    }
    r.rate_per_hour = grid(rng) < 3 ? 1.0 : (grid(rng) == 0 ? -0.0 : 0.0);
    r.eval.workload.gpus = gpus(rng) ? 8 : 1;
    if (with_nan && nan(rng) == 0) (with_total ? *r.total : r.per_million_tokens) = std::nan("");
    if (with_nan && nan(rng) == 0) r.rate_per_hour = std::nan("");
    r.per_step = i;
    rows.push_back(r);
  }
  return rows;
}

std::vector<double> tags(const std::vector<PricedOffer>& rows) {
  std::vector<double> out;
  for (const auto& r : rows) out.push_back(r.per_step);
  return out;
}

}  // namespace

TEST_CASE("the Pareto sweep marks the same front as the definition, ties included", "[offer_search][pareto]") {
  std::mt19937 rng(31);
  for (int round = 0; round < 300; ++round) {
    Fixture fx;
    const bool by_time = round % 2, with_total = round % 3 != 0;
    auto rows = random_rows(rng, fx, 1 + round % 60, with_total, false);
    auto want = rows;
    std::stable_sort(want.begin(), want.end(), [&](const PricedOffer& a, const PricedOffer& b) {
      return by_time ? a.sort_time() < b.sort_time() : a.sort_cost() < b.sort_cost();
    });
    brute_force_pareto(want);
    rank_offers(rows, by_time);
    REQUIRE(tags(rows) == tags(want));
    for (std::size_t i = 0; i < rows.size(); ++i) REQUIRE(rows[i].pareto == want[i].pareto);
  }
}

TEST_CASE("the Pareto sweep treats NaN as the definition does (never dominated, never dominating)", "[offer_search][pareto]") {
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    Fixture fx;
    auto rows = random_rows(rng, fx, 1 + round % 40, round % 2, true);
    auto want = rows;
    brute_force_pareto(want);
    mark_pareto_front(rows);
    for (std::size_t i = 0; i < rows.size(); ++i) REQUIRE(rows[i].pareto == want[i].pareto);
  }
}

TEST_CASE("hashed region folding keeps the rows and counts the linear search did", "[offer_search][regions]") {
  std::mt19937 rng(3);
  for (int round = 0; round < 300; ++round) {
    Fixture fx;
    auto rows = random_rows(rng, fx, 1 + round % 80, true, round % 4 == 0);
    auto want = rows;
    reference_collapse(want);
    collapse_regions(rows);
    REQUIRE(tags(rows) == tags(want));
    for (std::size_t i = 0; i < rows.size(); ++i) REQUIRE(rows[i].same_price_regions == want[i].same_price_regions);
  }
}

namespace {

std::vector<OfferRow> compact(const std::vector<PricedOffer>& rows) {
  std::vector<OfferRow> out;
  for (const auto& r : rows) out.push_back(row_of(r));
  return out;
}

}  // namespace

TEST_CASE("compact rows rank, mark and fold as the full rows do", "[offer_search][rows]") {
  std::mt19937 rng(11);
  for (int round = 0; round < 300; ++round) {
    Fixture fx;
    const bool by_time = round % 2;
    auto full = random_rows(rng, fx, 1 + round % 70, round % 3 != 0, round % 5 == 0);
    for (auto& r : full) r.meets_budget = r.per_step < 20;  // a verdict to carry
    auto rows = compact(full);
    rank_offers(full, by_time);
    collapse_regions(full);
    rank_offers(rows, by_time);
    collapse_regions(rows);
    REQUIRE(rows.size() == full.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
      INFO("round " << round << " row " << i);
      REQUIRE(rows[i].offer == full[i].offer);
      REQUIRE(rows[i].provider == full[i].provider);
      REQUIRE(rows[i].pareto == full[i].pareto);
      REQUIRE(rows[i].same_price_regions == full[i].same_price_regions);
      REQUIRE(rows[i].meets_limits == full[i].meets_limits());
      // The same coordinates, NaN included (compared by bits).
      const double cost = full[i].sort_cost(), time = full[i].sort_time();
      REQUIRE(std::memcmp(&rows[i].cost, &cost, sizeof cost) == 0);
      REQUIRE(std::memcmp(&rows[i].time, &time, sizeof time) == 0);
      REQUIRE(std::memcmp(&rows[i].rate_per_hour, &full[i].rate_per_hour, sizeof time) == 0);
    }
  }
}
