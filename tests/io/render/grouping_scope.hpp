#pragma once
// Money in tables is grouped by a process-wide setting (io::digit_grouping, set by --grouping):
// a renderer test that checks grouped money fixes it for its scope and restores it after.
#include "io/render/format.hpp"

namespace gpuplan::testing {

struct GroupingScope {
  io::DigitGrouping saved = io::digit_grouping();
  explicit GroupingScope(io::DigitGrouping g = io::DigitGrouping::automatic) { io::digit_grouping() = g; }
  ~GroupingScope() { io::digit_grouping() = saved; }
  GroupingScope(const GroupingScope&) = delete;
  GroupingScope& operator=(const GroupingScope&) = delete;
};

}  // namespace gpuplan::testing
