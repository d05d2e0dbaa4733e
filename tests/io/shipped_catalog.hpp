#pragma once
// The shipped catalogs as the io tests read them (data/ on disk, once per process), and the
// lookups and summary the measured-accuracy tests share.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "io/catalogs/shipped_data.hpp"

namespace gpuplan::testing {

inline const Catalog& shipped() {
  static const Catalog c = io::load_data_dir(GPUPLAN_TEST_DATA_DIR);
  return c;
}

inline const ModelArch& shipped_model(const std::string& id) {
  const auto l = shipped().find_model(id);
  REQUIRE(l.found);
  return *l.found;
}

inline const Gpu& shipped_gpu(const std::string& id) {
  const auto l = shipped().find_gpu(id);
  REQUIRE(l.found);
  return *l.found;
}

// The median of a non-empty list (the measured tests' stated claim is a median error).
inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace gpuplan::testing
