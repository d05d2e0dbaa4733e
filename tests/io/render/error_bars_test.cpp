// estimate's error bars on fixed bands: the basis named, each likely range computed from the
// estimate (measured = estimate / (1 + error)), and nothing said of a band with no estimate.
#include <catch2/catch.hpp>

#include "io/render/error_bars.hpp"

using namespace gpuplan;
using namespace gpuplan::io;

namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

ErrorBand band(double low, double high, int cases, int within) {
  ErrorBand b;
  b.low = low;
  b.high = high;
  b.cases = cases;
  b.within = within;
  b.coverage = 0.9;
  return b;
}

ErrorBars shipped() {
  ErrorBars b;
  b.memory = band(-0.1, 0.25, 18, 17);
  b.throughput = band(-0.2, 0.0, 9, 8);
  b.per_gpu_bytes = 20 * kGiB;
  b.tokens_per_second = 1000;
  return b;
}

}  // namespace

TEST_CASE("error bars: notes give the estimate, the band and the likely range", "[render][error_bars]") {
  CHECK(error_bars_notes(shipped()) ==
        std::vector<std::string>{"memory 20.0 GiB per GPU; 17 of 18 measured cases within -10.0%..+25.0% "
                                 "(shipped measured cases (data/measured/)): likely 16.0-22.2 GiB",
                                 "speed 1000 tokens/s; 8 of 9 measured cases within -20.0%..+0.0%: likely 1000-1250 tokens/s"});
}

TEST_CASE("error bars: JSON carries the basis, the bands and the likely ranges", "[render][error_bars]") {
  const nlohmann::json j = error_bars_json(shipped());
  CHECK(j["basis"] == "shipped measured cases (data/measured/)");
  CHECK(j["memory"]["cases"] == 18);
  CHECK(j["memory"]["likely_range_bytes"] == nlohmann::json::array({17179869184, 23860929422}));
  CHECK(j["throughput"]["likely_range_tokens_per_second"][0].get<double>() == Approx(1000));
  CHECK(j["throughput"]["likely_range_tokens_per_second"][1].get<double>() == Approx(1250));
}

TEST_CASE("error bars: a profile's basis, and no speed without a time or bands without cases", "[render][error_bars]") {
  ErrorBars b = shipped();
  b.basis = BandBasis::profile;
  b.profile = "team.yaml";
  b.profile_runs = 12;
  b.tokens_per_second.reset();
  CHECK(band_basis_text(b) == "profile team.yaml (12 runs, leave-one-out)");
  const auto notes = error_bars_notes(b);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].find("(profile team.yaml (12 runs, leave-one-out))") != std::string::npos);
  CHECK_FALSE(error_bars_json(b)["throughput"].contains("likely_range_tokens_per_second"));
  ErrorBars none;
  CHECK(error_bars_notes(none).empty());
  CHECK(error_bars_json(none)["memory"].is_null());
}
