#include "gpuplan/rent_choice.hpp"

#include <algorithm>
#include <cmath>

namespace gpuplan {

double rent_speed_tflops(const Gpu& g) {
  for (PeakPrecision p : {PeakPrecision::bf16, PeakPrecision::fp16, PeakPrecision::fp32})
    if (g.tflops(p) > 0) return g.tflops(p);
  return 0;
}

double rent_hours_scale(const Gpu& owned, const Gpu& rented) {
  const double o = rent_speed_tflops(owned), r = rent_speed_tflops(rented);
  return o > 0 && r > 0 ? o / r : 1.0;
}

const Gpu* stand_in_gpu(const Catalog& c, const Gpu& owned, const std::set<std::string>& rentable) {
  if (rentable.count(owned.id)) return &owned;
  const double speed = rent_speed_tflops(owned);
  if (speed <= 0 || owned.memory_bytes == 0) return nullptr;
  const Gpu* out = nullptr;
  double best = 1e300;
  for (const auto& g : c.gpus) {
    if (!rentable.count(g.id) || rent_speed_tflops(g) <= 0 || g.memory_bytes == 0) continue;
    // Equal weight to memory (does the job fit) and speed (how many hours it takes), in ratios.
    const double dist = std::fabs(std::log(static_cast<double>(g.memory_bytes) / static_cast<double>(owned.memory_bytes))) +
                        std::fabs(std::log(rent_speed_tflops(g) / speed));
    if (dist < best) best = dist, out = &g;
  }
  return out;
}

namespace {

// The widths a period can need: each of 1..64 GPUs, and the whole fleet above that.
std::vector<int> shape_widths(int fleet) {
  std::vector<int> w;
  for (int i = 1; i <= std::min(fleet, 64); ++i) w.push_back(i);
  if (fleet > 64) w.push_back(fleet);
  return w;
}

}  // namespace

std::vector<RentOffer> cheapest_shapes(const std::vector<RentOffer>& all, Pricing pricing, int fleet, const RunInputs& bill) {
  std::vector<bool> keep(all.size(), false);
  for (int w : shape_widths(fleet)) {
    int best = -1;
    double best_cost = 0;
    for (std::size_t i = 0; i < all.size(); ++i) {
      const Offer& o = *all[i].offer;
      const auto price = o.price(pricing);
      if (!price) continue;
      const int per = std::max(1, o.gpus);
      const TaxTerms tax = tax_terms(*all[i].provider, bill);  // the rule price_run bills by
      const double cost = ((w + per - 1) / per) * per * *price * tax.pre_tax * (1 + tax.rate) * all[i].currency_rate;
      if (best < 0 || cost < best_cost) best = static_cast<int>(i), best_cost = cost;
    }
    if (best >= 0) keep[static_cast<std::size_t>(best)] = true;
  }
  std::vector<RentOffer> out;
  for (std::size_t i = 0; i < all.size(); ++i)
    if (keep[i]) out.push_back(all[i]);
  return out;
}

}  // namespace gpuplan
