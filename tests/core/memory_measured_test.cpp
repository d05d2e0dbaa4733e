// The memory model against published measured peaks. The cases are run records in
// data/measured/memory.jsonl (the same file estimate's default error bars and `calibrate`'s
// leave-one-out table read); sources are in each record. The tolerances are the claims printed
// in README's "estimate vs measured" table: change both or neither.
#include <catch2/catch.hpp>

#include <cstdio>
#include <map>
#include <string>

#include "cli/run_inputs.hpp"
#include "gpuplan/calibrate.hpp"
#include "gpuplan/units.hpp"

using namespace gpuplan;

namespace {

// ±10% unless listed: torchtune's runs had torch.compile on, which gpuplan does not model;
// where it moves the peak the case sits in the wider band and the README says so.
const std::map<std::string, double> kWideBand = {
    {"torchtune: 3B full, AdamW, AC, chunked CE, compile", 0.25},
    {"torchtune: 8B LoRA r8, AC, compile", 0.25},
    {"torchtune: 8B QLoRA r8, AC, compile", 0.25},
    // Runs 12% low: FSDP's gathered root unit (embeddings and lm_head) and offload's pinned
    // staging buffers are not modelled.
    {"torchtune: 70B full, 8x FSDP + CPU offload, AC", 0.25},
    {"torchtune: 405B QLoRA r16, 8x FSDP, AC", 0.25},
};

double tolerance(const std::string& id) {
  const auto it = kWideBand.find(id);
  return it == kWideBand.end() ? 0.10 : it->second;
}

}  // namespace

TEST_CASE("shipped memory cases: BERT-large on a V100 and torchtune's Llama peaks", "[memory][measured]") {
  const auto runs = cli::shipped_memory_cases(cli::Context{});
  REQUIRE(runs.size() == 18);
  int device = 0, allocated = 0;
  for (const MeasuredRun& r : runs) {
    const RunEstimate e = estimate_run(r, Profile{});
    REQUIRE(e.memory_error());
    device += e.memory == MemoryMeasure::device;
    allocated += e.memory == MemoryMeasure::allocated;
    INFO(r.id << ": estimate " << e.memory_estimate / kGiB << " GiB, measured " << e.memory_measured / kGiB << " GiB");
    std::printf("measured-case %-52s estimate %6.2f GiB  measured %6.2f GiB  error %+5.1f%%  (band ±%.0f%%)\n", r.id.c_str(),
                e.memory_estimate / kGiB, e.memory_measured / kGiB, 100 * *e.memory_error(), 100 * tolerance(r.id));
    CHECK(e.memory_estimate == Approx(e.memory_measured).epsilon(tolerance(r.id)));
  }
  CHECK(device == 9);      // BERT: nvidia-smi, context included
  CHECK(allocated == 9);   // torchtune: max_memory_allocated
}
