// One job, one set of numbers: for random jobs over the shipped catalogs, the configuration
// `plan` chooses costs and takes exactly what the offer search behind estimate, compare and
// check reports for that configuration (same engine, same conversion, bit for bit).
#include <catch2/catch.hpp>

#include <random>

#include "gpuplan/offer_rows.hpp"
#include "gpuplan/offer_search.hpp"
#include "gpuplan/plan.hpp"
#include "io/render/exclusion_text.hpp"
#include "io/shipped_catalog.hpp"

using namespace gpuplan;
using testing::shipped;

namespace {

struct RandomJob {
  PlanInputs in;
  PlanSpace space;
  RunSettings settings;
};

template <class T>
const T& pick(std::mt19937& rng, const std::vector<T>& v) {
  return v[std::uniform_int_distribution<std::size_t>(0, v.size() - 1)(rng)];
}

RandomJob random_job(std::mt19937& rng) {
  const Catalog& c = shipped();
  RandomJob j;
  std::vector<const ModelArch*> small;
  for (const auto& m : c.models)
    if (count_params(m).total() < 40e9) small.push_back(&m);
  j.in.model = *pick(rng, small);
  j.in.params = count_params(j.in.model);
  j.in.base.seq_len = pick(rng, std::vector<std::int64_t>{512, 1024, 2048, 4096});
  j.in.tokens = std::uniform_real_distribution<double>(1e7, 5e9)(rng);
  j.in.global_batch = pick(rng, std::vector<std::int64_t>{0, 16, 64});
  j.in.run.dataset_gb = std::uniform_real_distribution<double>(0, 3000)(rng);
  if (rng() % 2) j.in.run.mfu = std::uniform_real_distribution<double>(0.1, 0.6)(rng);
  if (rng() % 3 == 0) j.in.run.bill.preemptions_per_hour = 0.05;
  j.in.run.padding_efficiency = rng() % 2 ? 1.0 : 0.7;
  j.settings.fx = c.fx;
  j.settings.currency = rng() % 4 == 0 ? "INR" : "USD";
  std::vector<const Provider*> providers;
  for (const auto& p : c.providers) providers.push_back(&p);
  for (int k = 0; k < 3; ++k) {
    const Provider& p = *pick(rng, providers);
    const Offer& o = p.offers[std::uniform_int_distribution<std::size_t>(0, p.offers.size() - 1)(rng)];
    j.in.offers.push_back({&o, &p, c.find_gpu(o.gpu).found, to_display(1.0, p.currency, j.settings, p.where)});
  }
  j.space.methods = {pick(rng, std::vector<Method>{Method::full, Method::lora, Method::qlora})};
  j.space.micro_batches = {1, 4};
  j.space.nodes = {1, 2};
  j.space.pricings = {Pricing::on_demand, Pricing::spot, Pricing::reserved_1y};
  return j;
}

}  // namespace

TEST_CASE("plan's chosen configuration is priced exactly as estimate, compare and check price it", "[engine][property]") {
  std::mt19937 rng(20261203);
  int checked = 0;
  for (int i = 0; i < 260 && checked < 200; ++i) {
    const RandomJob j = random_job(rng);
    const PlanResult r = search_plans(j.in, j.space, 3);
    if (r.best.empty()) continue;
    for (const Candidate& c : r.best) {
      const PlanOffer& po = j.in.offers[static_cast<std::size_t>(c.offer)];
      RunSettings run = j.settings;
      run.spec = candidate_run(j.in, j.space, c);
      OfferFilter only;
      only.offers = {po.offer->key()};
      // The offer search estimate/compare/check run, restricted to the plan's offer.
      const OfferSet set = evaluate_offers(shipped(), j.in.model, j.in.params, candidate_workload(j.in, j.space, c), run, only);
      INFO(j.in.model.id << " on " << po.offer->key() << " " << to_string(run.spec.bill.pricing) << " x" << c.gpus);
      REQUIRE(set.priced.size() == 1);
      const PricedOffer& p = set.priced.front();
      REQUIRE(p.total);
      CHECK(*p.total == c.cost);
      CHECK(p.eval.cost->wall_seconds == c.wall_seconds);
      CHECK(p.eval.cost->gpu_hours == c.gpu_hours);
      CHECK(p.eval.per_gpu_bytes == c.per_gpu_bytes);
      CHECK(p.eval.workload.gpus == c.gpus);
      CHECK_FALSE(p.eval.resharded);
    }
    ++checked;
  }
  CHECK(checked == 200);
}

TEST_CASE("compare's compact rows hold every offer evaluate_offers prices, and price_row rebuilds each bit for bit", "[engine][rows]") {
  std::mt19937 rng(31);
  for (int i = 0; i < 6; ++i) {
    const RandomJob j = random_job(rng);
    Workload w = j.in.base;
    w.method = j.space.methods.front();
    RunSettings run = j.settings;
    run.spec = j.in.run;
    run.spec.tokens = j.in.tokens;
    run.spec.bill.pricing = i % 2 ? Pricing::spot : Pricing::on_demand;
    if (i % 3 == 0) run.budget = 50;
    const OfferSet set = evaluate_offers(shipped(), j.in.model, j.in.params, w, run, {});
    const OfferRows rows = search_offers(shipped(), j.in.model, j.in.params, w, run, {});
    INFO(j.in.model.id << " " << to_string(w.method));
    REQUIRE(rows.priced.size() == set.priced.size());
    REQUIRE(rows.excluded.size() == set.excluded.size());
    for (std::size_t k = 0; k < set.priced.size(); ++k) {
      const PricedOffer& want = set.priced[k];
      const PricedOffer got = price_row(rows.priced[k], j.in.model, j.in.params, w, run);
      REQUIRE(got.offer == want.offer);
      CHECK(rows.priced[k].cost == want.sort_cost());
      CHECK(rows.priced[k].time == want.sort_time());
      CHECK(rows.priced[k].meets_limits == want.meets_limits());
      CHECK(got.rate_per_hour == want.rate_per_hour);
      CHECK(got.per_million_tokens == want.per_million_tokens);
      CHECK(got.total == want.total);
      CHECK(got.meets_budget == want.meets_budget);
      CHECK(got.eval.per_gpu_bytes == want.eval.per_gpu_bytes);
      CHECK(got.eval.time.step_seconds == want.eval.time.step_seconds);
      CHECK(got.eval.workload.gpus == want.eval.workload.gpus);
    }
    for (std::size_t k = 0; k < set.excluded.size(); ++k) {
      const PricedOffer got = price_row(rows.excluded[k], j.in.model, j.in.params, w, run);
      REQUIRE(got.offer == set.excluded[k].offer);
      CHECK(io::exclusion_text(got.eval, *got.gpu, run.spec.bill.pricing) ==
            io::exclusion_text(set.excluded[k].eval, *set.excluded[k].gpu, run.spec.bill.pricing));
    }
  }
}
