// The owner's inputs in words, one fact per code: each default with its value, unit and flag,
// each note, and each US figure that stands in for the buyer country's own; money grouped as
// the caller asks (the JSON always with kJsonMoney).
#include <catch2/catch.hpp>

#include "io/render/ownership_words.hpp"

using namespace gpuplan::io;

namespace {

const MoneyStyle automatic{DigitGrouping::automatic};
const MoneyStyle none{DigitGrouping::none};

DefaultUsed used(OwnershipDefault what, double value, const std::string& unit, const std::string& flag) {
  return DefaultUsed{what, value, unit, flag, "", false, 0};
}

}  // namespace

TEST_CASE("each default used is worded with its value, unit and flag", "[render][ownership]") {
  using D = OwnershipDefault;
  DefaultUsed list{D::gpu_list_price, 132717, "INR", "--gpu-price", "rtx-4090", true, 0};
  CHECK(default_text(list, automatic) == "rtx-4090 at its US catalog list price 1,32,717 INR (--gpu-price)");
  list.us_price = false;
  CHECK(default_text(list, none) == "rtx-4090 at its catalog list price 132717 INR (--gpu-price)");
  CHECK(default_text(DefaultUsed{D::rest_of_machine_rack, 25000, "USD", "--rest-of-machine", "", false, 8}, automatic) ==
        "rest of machine 25,000 USD per 8-GPU build: network and cabling only (12.5% of the GPUs), no server host (--rest-of-machine)");
  CHECK(default_text(DefaultUsed{D::rest_of_machine_desk, 1200, "USD", "--rest-of-machine", "", false, 4}, automatic) ==
        "rest of machine 1,200 USD per 4-GPU build (--rest-of-machine)");
  CHECK(default_text(used(D::power_price, 0.16, "USD", "--power-price"), automatic) == "power 0.160 USD/kWh (--power-price)");
  CHECK(default_text(used(D::load_factor, 0.7, "ratio", "--load-factor"), automatic) == "load factor 0.70 x TDP (--load-factor)");
  CHECK(default_text(used(D::idle_power, 0.1, "share", "--idle-power"), automatic) == "idle draw 10% of TDP (--idle-power)");
  CHECK(default_text(used(D::pue, 1.1, "ratio", "--pue"), automatic) == "PUE 1.10 (--pue)");
  CHECK(default_text(used(D::maintenance, 0.05, "share", "--maintenance"), automatic) == "maintenance 5%/year (--maintenance)");
  CHECK(default_text(used(D::failure_rate, 0.0225, "share", "--failure-rate"), automatic) == "failures 2.25%/GPU-year (--failure-rate)");
  CHECK(default_text(used(D::resale, 0.825, "share", "--resale"), automatic) == "resale keeps 82.5%/year (--resale)");
  CHECK(default_text(used(D::financing, 0, "share", "--financing"), automatic) == "bought outright (--financing)");
  CHECK(default_text(used(D::colo, 16600, "INR", "--colo"), automatic) == "colocation 16,600 INR/kW/month (--colo)");
}

TEST_CASE("the defaults line lists every default after its lead, comma-separated", "[render][ownership]") {
  const std::vector<DefaultUsed> d = {used(OwnershipDefault::pue, 1.1, "ratio", "--pue"), used(OwnershipDefault::colo, 1234, "USD", "--colo")};
  CHECK(defaults_line("defaults used: ", d, automatic) == "defaults used: PUE 1.10 (--pue), colocation 1,234 USD/kW/month (--colo)");
  CHECK(defaults_line("defaults used: ", d, none) == "defaults used: PUE 1.10 (--pue), colocation 1234 USD/kW/month (--colo)");
  CHECK(default_texts(d, kJsonMoney) == std::vector<std::string>{"PUE 1.10 (--pue)", "colocation 1,234 USD/kW/month (--colo)"});
}

TEST_CASE("each ownership note is worded by its code", "[render][ownership]") {
  CHECK(ownership_note_text({OwnershipNote::rack_rest_network_only, ""}) ==
        "the data-centre rest-of-machine default covers network and cabling only; add the server host with --rest-of-machine "
        "(the cited 8xH100 node is 300-350k USD all-in)");
  CHECK(ownership_note_text({OwnershipNote::input_tax_credit, ""}) ==
        "--input-tax-credit: GST/IGST on hardware and rent comes back as credit; customs duty does not");
  CHECK(ownership_note_text({OwnershipNote::power_tariff, "the tariff leaves out fixed charges"}) == "the tariff leaves out fixed charges");
  CHECK(ownership_note_text({OwnershipNote::engineer_time_not_counted, ""}) ==
        "engineer time is not counted (no published figure): add it with --ops-hours-per-month and --engineer-rate");
}

TEST_CASE("each stand-in figure names the country, the US figure and the flag to pass", "[render][ownership]") {
  StandIn gpu{StandInFigure::gpu_price, "DE", "rtx-4090", 1599, "USD", 1470.6, "EUR"};
  CHECK(stand_in_text(gpu, automatic) == "no DE street price of rtx-4090 was found in a public source: it is priced at its US list price "
                                         "(1,599 USD = 1,471 EUR); pass --gpu-price with a local quote");
  CHECK(stand_in_text(gpu, none).find("(1599 USD = 1471 EUR)") != std::string::npos);
  CHECK(stand_in_text({StandInFigure::desk_build, "DE", "", 1200, "USD", 1100, "EUR"}, automatic) ==
        "no DE price of the rest of a desk-side build was found: it is the US figure (1,200 USD) converted; pass --rest-of-machine");
  CHECK(stand_in_text({StandInFigure::power_price, "DE", "", 0.16, "USD", 0.15, "EUR"}, automatic) ==
        "no DE power tariff is sourced: power is the US figure (0.160 USD/kWh) converted; pass --power-price");
  CHECK(stand_in_text({StandInFigure::colo, "IN", "", 200, "USD", 16600, "INR"}, automatic) ==
        "no IN colocation fee was found: it is the US figure (200 USD/kW/month) converted; pass --colo");
  CHECK(stand_in_texts({}, automatic).empty());
}
