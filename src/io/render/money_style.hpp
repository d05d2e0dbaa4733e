#pragma once
// How one invocation spells money for people: the digit grouping --grouping picks. A value
// passed to every money formatter (io/render/format.hpp) and so to every renderer that prints
// money in tables and notes, never a setting of the process.
#include <optional>
#include <string>

namespace gpuplan::io {

// How the whole part of money is grouped: automatic is Indian (10,84,428) when the money is in
// INR and international (1,084,428) otherwise. JSON and CSV carry raw numbers, never grouped.
enum class DigitGrouping { automatic, intl, indian, none };
std::optional<DigitGrouping> digit_grouping_from_string(const std::string& s);  // auto | intl | indian | none

// The formatters take it with no default, so a renderer that forgets it does not compile, and
// two renders in one process can spell the same amount differently.
struct MoneyStyle {
  DigitGrouping grouping = DigitGrouping::automatic;
};

// Money inside JSON sentences (reasons, defaults, answers): --grouping is for people, so a JSON
// document is the same whatever it says (the flag walk checks this).
inline constexpr MoneyStyle kJsonMoney{DigitGrouping::automatic};

}  // namespace gpuplan::io
