// The rent side's choices (rent_choice.hpp), each against a hand computation in the comment
// above its check.
#include <catch2/catch.hpp>

#include "gpuplan/rent_choice.hpp"

using namespace gpuplan;

namespace {

Provider provider(const std::string& id) {
  Provider p;
  p.id = id;
  p.currency = "USD";
  return p;
}

Offer shape(const std::string& id, int gpus, std::optional<double> on_demand, std::optional<double> spot = std::nullopt) {
  Offer o;
  o.id = id;
  o.gpus = gpus;
  o.per_gpu_hour[static_cast<int>(Pricing::on_demand)] = on_demand;
  o.per_gpu_hour[static_cast<int>(Pricing::spot)] = spot;
  return o;
}

Gpu gpu(const std::string& id, double memory_gib, double bf16, double fp16 = 0) {
  Gpu g;
  g.id = id;
  g.memory_bytes = static_cast<std::uint64_t>(memory_gib * (1ull << 30));
  g.dense_tflops[static_cast<int>(PeakPrecision::bf16)] = bf16;
  g.dense_tflops[static_cast<int>(PeakPrecision::fp16)] = fp16;
  return g;
}

std::vector<std::string> ids(const std::vector<RentOffer>& v) {
  std::vector<std::string> out;
  for (const RentOffer& r : v) out.push_back(r.offer->id);
  return out;
}

}  // namespace

TEST_CASE("cheapest_shapes keeps, per width, the offer whose whole instances cost least") {
  const Provider p = provider("cloud");
  // Per GPU-hour: one GPU at 2.00; eight at 1.50 (12.00 an instance); four at 1.90 (7.60).
  const Offer one = shape("x1", 1, 2.00), eight = shape("x8", 8, 1.50), four = shape("x4", 4, 1.90);
  const std::vector<RentOffer> all{{&eight, &p, 1}, {&one, &p, 1}, {&four, &p, 1}};
  // Widths 1..3: one-GPU shapes cost 2w <= 6.00, under 7.60 and 12.00. Width 4: 8.00 vs 7.60
  // (x4) vs 12.00. Widths 5..8: 10, 12, 14, 16 vs 15.20 (two x4) vs 12.00 (x8): x8 from 6 on
  // (at 6, 12.00 = 12.00: the first listed, x8, wins ties).
  CHECK(ids(cheapest_shapes(all, Pricing::on_demand, 3, RunInputs{})) == std::vector<std::string>{"x1"});
  CHECK(ids(cheapest_shapes(all, Pricing::on_demand, 4, RunInputs{})) == std::vector<std::string>{"x1", "x4"});
  CHECK(ids(cheapest_shapes(all, Pricing::on_demand, 8, RunInputs{})) == std::vector<std::string>{"x8", "x1", "x4"});
  // Width 5 alone would take x1 (10.00 < 12.00), so at fleet 5 x8 is not kept.
  CHECK(ids(cheapest_shapes(all, Pricing::on_demand, 5, RunInputs{})) == std::vector<std::string>{"x1", "x4"});
}

TEST_CASE("cheapest_shapes bills tax and currency as price_run does, and skips offers without the price") {
  Provider taxed = provider("taxed");
  taxed.tax_rate = 0.25;
  taxed.tax_basis = TaxBasis::exclusive;
  const Provider plain = provider("plain");
  const Offer a = shape("a", 1, 1.00, 0.30), b = shape("b", 1, 1.10);
  RunInputs bill;
  bill.tax_basis = TaxBasis::inclusive;  // count tax: a bills 1.00 x 1.25 = 1.25 against b's 1.10
  CHECK(ids(cheapest_shapes({{&a, &taxed, 1}, {&b, &plain, 1}}, Pricing::on_demand, 1, bill)) == std::vector<std::string>{"b"});
  bill.tax_basis = TaxBasis::exclusive;  // leave it out: 1.00 < 1.10
  CHECK(ids(cheapest_shapes({{&a, &taxed, 1}, {&b, &plain, 1}}, Pricing::on_demand, 1, bill)) == std::vector<std::string>{"a"});
  // A sheet in another currency at 1.2 to the caller's: 1.00 x 1.2 = 1.20 > 1.10.
  CHECK(ids(cheapest_shapes({{&a, &plain, 1.2}, {&b, &plain, 1}}, Pricing::on_demand, 1, bill)) == std::vector<std::string>{"b"});
  // Only a has a spot price; nothing has a reserved one.
  CHECK(ids(cheapest_shapes({{&a, &plain, 1}, {&b, &plain, 1}}, Pricing::spot, 4, bill)) == std::vector<std::string>{"a"});
  CHECK(cheapest_shapes({{&a, &plain, 1}, {&b, &plain, 1}}, Pricing::reserved_1y, 4, bill).empty());
}

TEST_CASE("cheapest_shapes checks widths above 64 at the whole fleet only") {
  const Provider p = provider("cloud");
  // x64 at 1.00 a GPU (64.00 an instance), x1 at 1.05. Up to 60 GPUs x1 is cheaper (63.00 at 60);
  // from 61 (64.05) x64. A fleet of 100: 100 x1 = 105.00 against two x64 = 128.00, so x1 wins
  // there, while widths 61..64 still keep x64.
  const Offer big = shape("x64", 64, 1.00), one = shape("x1", 1, 1.05);
  CHECK(ids(cheapest_shapes({{&big, &p, 1}, {&one, &p, 1}}, Pricing::on_demand, 100, RunInputs{})) ==
        std::vector<std::string>{"x64", "x1"});
  CHECK(ids(cheapest_shapes({{&big, &p, 1}, {&one, &p, 1}}, Pricing::on_demand, 60, RunInputs{})) ==
        std::vector<std::string>{"x1"});
}

TEST_CASE("the stand-in GPU is the owned one when rentable, else the nearest by memory and speed") {
  Catalog c;
  c.gpus = {gpu("owned", 24, 165), gpu("near", 24, 120), gpu("far", 80, 990), gpu("fp16only", 16, 0, 65)};
  const Gpu& owned = c.gpus[0];
  CHECK(stand_in_gpu(c, owned, {"owned", "near"})->id == "owned");
  // near: |ln(24/24)| + |ln(120/165)| = 0.318; far: |ln(80/24)| + |ln(990/165)| = 1.204 + 1.792.
  CHECK(stand_in_gpu(c, owned, {"near", "far"})->id == "near");
  // fp16only: |ln(16/24)| + |ln(65/165)| = 0.405 + 0.932 = 1.337 < far's 2.996.
  CHECK(stand_in_gpu(c, owned, {"far", "fp16only"})->id == "fp16only");
  CHECK(stand_in_gpu(c, owned, {}) == nullptr);
  CHECK(stand_in_gpu(c, owned, {"unknown-id"}) == nullptr);
  const Gpu no_speed = gpu("mystery", 24, 0);
  CHECK(stand_in_gpu(c, no_speed, {"near"}) == nullptr);
}

TEST_CASE("rented hours scale by the owned GPU's speed over the rented one's") {
  const Gpu owned = gpu("owned", 24, 165), fast = gpu("fast", 80, 990), fp16 = gpu("fp16", 16, 0, 65), none = gpu("none", 8, 0);
  CHECK(rent_speed_tflops(fp16) == 65);  // no bf16: fp16's
  CHECK(rent_hours_scale(owned, fast) == Approx(165.0 / 990.0));  // six times faster: a sixth of the hours
  CHECK(rent_hours_scale(owned, fp16) == Approx(165.0 / 65.0));
  CHECK(rent_hours_scale(owned, none) == 1.0);  // unknown speed: hour for hour
  CHECK(rent_hours_scale(owned, owned) == 1.0);
}
