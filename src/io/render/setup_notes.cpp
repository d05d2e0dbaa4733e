#include "io/render/setup_notes.hpp"

#include "gpuplan/units.hpp"
#include "io/render/format.hpp"

namespace gpuplan::io {
namespace {

std::string text(const DemandFromLog& n) {
  return "demand is the " + std::to_string(n.jobs) + " jobs in " + n.file + " over " + num(n.days, 1) + " days (" + num(n.months, 2) +
         " months of 730 h): each is replayed whole, on all its GPUs at once; a job that does not fit on the owned GPUs rents at once (replay " +
         n.file + " --burst-after explores waiting instead)";
}
std::string text(const DemandFromJobs& n) {
  return "demand is the GPU-hours per day of " + std::to_string(n.jobs) + " jobs in " + n.file +
         " (gpuplan demand shows them); within a day the jobs peaked at " + std::to_string(n.peak_gpus) +
         " GPUs busy, which a daily profile averages out";
}
std::string text(const PeakOverCount& n) {
  return "demand peaks at " + num(n.peak_gpus, 1) + " GPUs busy at once: BUY owns --count " + std::to_string(n.count) + " and rents the overflow";
}
std::string text(const RentedInstead& n) {
  return "no loaded offer rents " + n.gpu + ": renting " + n.rented_gpu + " instead (nearest by memory and bf16 TFLOPS)";
}
std::string text(const RentedHoursScaled& n) {
  return "rented hours are the owned GPU-hours x " + num(n.scale, 3) + " (bf16 TFLOPS " + num(n.owned_tflops, 1) + " owned / " +
         num(n.rented_tflops, 1) + " rented)";
}
std::string text(const RentedLessMemory& n) {
  return n.rented_gpu + " has less memory (" + format_gib(n.rented_memory_bytes) + ") than " + n.gpu + " (" + format_gib(n.memory_bytes) +
         "): check the job fits";
}
std::string text(const SpotRateUnstated&) { return "no spot offer used states a preemption rate: spot assumes none (set --preemptions-per-hour)"; }
std::string text(const RentCountryNotBuyer& n) {
  return "--country keeps renting to offers in that country (as in compare); the buyer, whose country sets the tax owed, is --buyer-country (here " +
         n.buyer_country + ")";
}
std::string text(const OwnershipFact& n) { return ownership_note_text(n); }

}  // namespace

std::string setup_note_text(const SetupNote& n) {
  return std::visit([](const auto& x) { return text(x); }, n);
}

}  // namespace gpuplan::io
