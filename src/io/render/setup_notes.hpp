#pragma once
// What the reader must know about buy-vs-rent's inputs (and so replay's and advise's), as facts:
// each kind of note is a type holding its numbers, read by src/cli/buy_vs_rent_inputs.cpp;
// setup_note_text chooses the words every format prints.
#include <string>
#include <variant>

#include "io/render/ownership_words.hpp"

namespace gpuplan::io {

// --demand is a job log: each job is replayed whole.
struct DemandFromLog {
  std::string file;
  int jobs = 0;
  double days = 0, months = 0;  // first start to last end; months of 730 h
};
// --demand is a daily profile summed from jobs: within a day they peaked higher.
struct DemandFromJobs {
  std::string file;
  int jobs = 0, peak_gpus = 0;
};
// Demand peaks above --count: the overflow rents.
struct PeakOverCount {
  double peak_gpus = 0;
  int count = 0;
};
// No offer rents the owned GPU: the nearest one stands in.
struct RentedInstead {
  std::string gpu, rented_gpu;
};
// Renting another GPU: its hours scale by the bf16 speed ratio.
struct RentedHoursScaled {
  double scale = 1, owned_tflops = 0, rented_tflops = 0;
};
// The rented stand-in has less memory than the owned GPU.
struct RentedLessMemory {
  std::string gpu, rented_gpu;
  double memory_bytes = 0, rented_memory_bytes = 0;
};
// No spot offer used states a preemption rate.
struct SpotRateUnstated {};
// --country filters where renting happens; the buyer is --buyer-country.
struct RentCountryNotBuyer {
  std::string buyer_country;
};

using SetupNote = std::variant<DemandFromLog, DemandFromJobs, PeakOverCount, RentedInstead, RentedHoursScaled, RentedLessMemory, SpotRateUnstated,
                               RentCountryNotBuyer, OwnershipFact>;

std::string setup_note_text(const SetupNote& n);

}  // namespace gpuplan::io
