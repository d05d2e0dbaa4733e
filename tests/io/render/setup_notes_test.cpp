// buy-vs-rent's setup notes (and so replay's and advise's), one per kind, word for word; and the
// notes under buy-vs-rent's and replay's tables, in order, on fixed facts.
#include <catch2/catch.hpp>

#include "io/render/replay_render.hpp"
#include "io/render/setup_notes.hpp"
#include "io/render/tco_render.hpp"

using namespace gpuplan::io;

namespace {
const MoneyStyle automatic{DigitGrouping::automatic};
const std::string kDefaultsLead = "defaults used (override with the flag; sources in README \"Buy or rent\"): ";
}  // namespace

TEST_CASE("each setup note is worded from its numbers", "[render][setup]") {
  CHECK(setup_note_text(DemandFromLog{"jobs.csv", 12, 30.04, 0.98765}) ==
        "demand is the 12 jobs in jobs.csv over 30.0 days (0.99 months of 730 h): each is replayed whole, on all its GPUs at once; a job that "
        "does not fit on the owned GPUs rents at once (replay jobs.csv --burst-after explores waiting instead)");
  CHECK(setup_note_text(DemandFromJobs{"usage.csv", 40, 6}) ==
        "demand is the GPU-hours per day of 40 jobs in usage.csv (gpuplan demand shows them); within a day the jobs peaked at 6 GPUs busy, "
        "which a daily profile averages out");
  CHECK(setup_note_text(PeakOverCount{2.56, 1}) == "demand peaks at 2.6 GPUs busy at once: BUY owns --count 1 and rents the overflow");
  CHECK(setup_note_text(RentedInstead{"rtx-5090", "rtx-4090"}) ==
        "no loaded offer rents rtx-5090: renting rtx-4090 instead (nearest by memory and bf16 TFLOPS)");
  CHECK(setup_note_text(RentedHoursScaled{1.25, 209.5, 165.2}) ==
        "rented hours are the owned GPU-hours x 1.250 (bf16 TFLOPS 209.5 owned / 165.2 rented)");
  CHECK(setup_note_text(RentedLessMemory{"rtx-5090", "rtx-4090", 32.0 * (1 << 30), 24.0 * (1 << 30)}) ==
        "rtx-4090 has less memory (24.0 GiB) than rtx-5090 (32.0 GiB): check the job fits");
  CHECK(setup_note_text(SpotRateUnstated{}) == "no spot offer used states a preemption rate: spot assumes none (set --preemptions-per-hour)");
  CHECK(setup_note_text(RentCountryNotBuyer{"US"}) ==
        "--country keeps renting to offers in that country (as in compare); the buyer, whose country sets the tax owed, is --buyer-country (here US)");
  CHECK(setup_note_text(OwnershipFact{OwnershipNote::input_tax_credit, ""}) ==
        "--input-tax-credit: GST/IGST on hardware and rent comes back as credit; customs duty does not");
}

TEST_CASE("buy-vs-rent's notes: warnings, demand, inputs, model, sources, defaults, rates", "[render][setup]") {
  TcoNotes n;
  n.country = "DE";
  n.stand_ins = {{StandInFigure::power_price, "DE", "", 0.16, "USD", 0.15, "EUR"}};
  n.demand = {PeakOverCount{2.5, 2}};
  n.inputs = {SpotRateUnstated{}};
  n.sources = {"power: a tariff"};
  n.defaults = {{OwnershipDefault::pue, 1.1, "ratio", "--pue", "", false, 0}};
  n.fx_as_of = "2026-11-01";
  const auto out = tco_notes(n, automatic);
  REQUIRE(out.size() == 8);
  CHECK(out[0] == "warning: no DE power tariff is sourced: power is the US figure (0.160 USD/kWh) converted; pass --power-price");
  CHECK(out[1] == "(!) = no figure for DE was found: a US one converted at the exchange rate stands in");
  CHECK(out[2] == "demand peaks at 2.5 GPUs busy at once: BUY owns --count 2 and rents the overflow");
  CHECK(out[3] == "no spot offer used states a preemption rate: spot assumes none (set --preemptions-per-hour)");
  CHECK(out[4] == "divisible-hours model: demand is GPU-hours that can be spread over any of the GPUs; give a job log as --demand "
                  "to replay the jobs whole (as replay and advise do)");
  CHECK(out[5] == "source of the DE default power: a tariff");
  CHECK(out[6] == kDefaultsLead + "PUE 1.10 (--pue)");
  CHECK(out[7] == "exchange rates as of 2026-11-01");
  TcoNotes bare;
  bare.divisible = false;
  CHECK(tco_notes(bare, automatic).empty());
}

TEST_CASE("replay's notes: the queue, the burst terms, the month, then inputs, defaults and an unmet target", "[render][setup]") {
  ReplayNotes n{false, 30.04, 0.98765, 123.45, "", {}, {}, ""};
  auto out = replay_notes(n, automatic);
  REQUIRE(out.size() == 3);
  CHECK(out[0] == "jobs enter the queue at their submit time (the measured start when the log has none) and run as long as they did; "
                  "the queue starts jobs strictly by priority then arrival (no backfill), passing over a job its team's quota holds");
  CHECK(out[1] == "no team or partition is marked --checkpointing-teams: every burst job runs on-demand (spot only for jobs that can restart "
                  "from a checkpoint)");
  CHECK(out[2] == "money per month is over the log's 30.0 days, first job start to last end (0.99 months of 730 h): 123.5 GPU-h a month, "
                  "as demand and buy-vs-rent count it");
  n = ReplayNotes{true, 1, 1, 1, "a100-80gb-sxm", {SpotRateUnstated{}}, {{OwnershipDefault::financing, 0, "share", "--financing", "", false, 0}}, "4h"};
  out = replay_notes(n, automatic);
  REQUIRE(out.size() == 7);
  CHECK(out[1] == "burst jobs of the --checkpointing-teams teams/partitions run on spot, the rest on-demand (a job must checkpoint before it "
                  "goes on spot)");
  CHECK(out[3] == "no loaded offer rents a100-80gb-sxm on spot: checkpointing jobs burst on-demand too");
  CHECK(out[4] == "no spot offer used states a preemption rate: spot assumes none (set --preemptions-per-hour)");
  CHECK(out[5] == kDefaultsLead + "bought outright (--financing)");
  CHECK(out[6] == "no fleet replayed keeps p95 queue time under 4h: add owned GPUs or a shorter --burst-after");
}
