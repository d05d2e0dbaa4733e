// One job, one set of numbers: for random jobs over the shipped catalogs, the configuration
// `plan` chooses costs and takes exactly what the offer search behind estimate, compare and
// check reports for that configuration (same engine, same conversion, bit for bit).
#include <catch2/catch.hpp>

#include <random>

#include "gpuplan/offer_search.hpp"
#include "gpuplan/plan.hpp"
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
