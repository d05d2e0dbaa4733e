#pragma once
// Buy or rent's rent side, chosen from the loaded offers: the GPU rented when the one to buy
// is not offered (the nearest by memory and speed), how its hours compare with the owned
// GPU's, and which instance shapes a period of work could rent on. Pure: the CLI reads the
// flags, finds the offers its filters allow, and says in words what was chosen.
#include <set>
#include <string>
#include <vector>

#include "gpuplan/catalog.hpp"
#include "gpuplan/cost.hpp"
#include "gpuplan/tco.hpp"

namespace gpuplan {

// The speed buy-vs-rent compares GPUs by: dense bf16 TFLOPS, else fp16, else fp32 (0: none known).
double rent_speed_tflops(const Gpu& g);

// Rented GPU-hours per owned GPU-hour when `rented` does the owned GPU's work: the owned GPU's
// speed over the rented one's (a faster rented GPU needs fewer hours); 1 when either is unknown.
double rent_hours_scale(const Gpu& owned, const Gpu& rented);

// The GPU to rent for `owned` among the catalog's GPUs whose ids are in `rentable`: `owned`
// itself when it is there, else the one nearest in |log memory ratio| + |log speed ratio|.
// nullptr when none is (or `owned`'s speed is unknown).
const Gpu* stand_in_gpu(const Catalog& c, const Gpu& owned, const std::set<std::string>& rentable);

// Of `all`, the offers that are the cheapest per hour for some width 1..fleet (whole
// instances, tax and currency as price_run bills them; widths above 64 are checked at `fleet`
// only): the only ones a period of rented work could run on. Offers without a `pricing` price
// are never kept; the kept ones stay in `all`'s order.
std::vector<RentOffer> cheapest_shapes(const std::vector<RentOffer>& all, Pricing pricing, int fleet, const RunInputs& bill);

}  // namespace gpuplan
