// parse_flat_yaml reads plain `key: value` files without yaml-cpp: on every generated document
// the fast reader accepts, it must agree with yaml-cpp entry for entry, positions included.
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "io/text/flat_yaml.hpp"

using namespace gpuplan;

namespace {

const std::vector<std::string> kKeys = {"name", "method", "lora_rank", "micro-batch", "teams.nlp", "a1", "null", "Null",
                                        "true", "x_y-z", "-dash", "max_cost", "<<"};
const std::vector<std::string> kSeps = {": ", ":  ", ":\t", ":", " : ", ": \t"};
const std::vector<std::string> kValues = {"llama-3.1-8b", "4000 INR", "true", "~", "null", "NULL", "a: b", "a #c", "x#y",
                                          ".5", "-3", "3d", "200M", "'q'", "\"dq\"", "[a, b]", "a,b", "(x)",
                                          "http://x", "a  b", "trailing  ", "\xc3\xa9t\xc3\xa9", "10:30", "yes", "0.25",
                                          "/abs/path.json", "rel/path.json", "_x", "a:", "|", ">", "&a x", "*a", "!!str x",
                                          "@x", "%x", "", "x\r", "1e3", "a=b", "50%", "x +y"};

std::string line(std::mt19937& rng) {
  auto pick = [&](const std::vector<std::string>& v) { return v[rng() % v.size()]; };
  switch (rng() % 10) {
    case 0: return "# a comment";
    case 1: return "";
    case 2: return "  - " + pick(kValues);
    case 3: return pick(kKeys) + pick(kSeps) + pick(kValues) + "  # why";
    default: return pick(kKeys) + pick(kSeps) + pick(kValues);
  }
}

}  // namespace

TEST_CASE("the fast flat-YAML reader agrees with yaml-cpp wherever it answers", "[flat_yaml]") {
  std::mt19937 rng(18);
  int answered = 0;
  for (int doc = 0; doc < 20000; ++doc) {
    std::string text;
    const int lines = 1 + static_cast<int>(rng() % 6);
    for (int i = 0; i < lines; ++i) text += line(rng) + "\n";
    if (rng() % 5 == 0) text.pop_back();  // no final newline
    const auto fast = io::parse_simple_flat_yaml(text, "f.yaml");
    if (!fast) continue;
    ++answered;
    INFO(text);
    io::FlatDocument full;
    REQUIRE_NOTHROW(full = io::parse_flat_yaml_full(text, "f.yaml", "spec"));
    REQUIRE(fast->entries.size() == full.entries.size());
    for (std::size_t i = 0; i < full.entries.size(); ++i) {
      const io::FlatEntry &a = fast->entries[i], &b = full.entries[i];
      CHECK(a.key == b.key);
      CHECK(a.values == b.values);
      CHECK(a.is_list == b.is_list);
      CHECK(a.where.line == b.where.line);
      CHECK(a.where.column == b.where.column);
      CHECK(a.value_where.line == b.value_where.line);
      CHECK(a.value_where.column == b.value_where.column);
    }
  }
  CHECK(answered > 200);  // the fast path is taken, not only refused
}

TEST_CASE("a spec the fast reader takes reads as yaml-cpp reads it", "[flat_yaml]") {
  const std::string text = "# QLoRA\nname: llama8b-qlora\nowner: asha\nmodel: llama-3.1-8b  # base\nmax_cost: 4000 INR\n";
  const auto fast = io::parse_simple_flat_yaml(text, "s.yaml");
  REQUIRE(fast);
  REQUIRE(fast->entries.size() == 4);
  CHECK(fast->entries[2].values.front() == "llama-3.1-8b");
  CHECK(fast->entries[3].values.front() == "4000 INR");
  CHECK(fast->entries[3].value_where.column == 11);
  CHECK_FALSE(io::parse_simple_flat_yaml("a: 1\na: 2\n", "s.yaml"));  // repeats go to the full reader's error
  CHECK_FALSE(io::parse_simple_flat_yaml("teams:\n  nlp: 300\n", "s.yaml"));
  CHECK_THROWS_AS(io::parse_flat_yaml("a: 1\na: 2\n", "s.yaml", "spec"), InputErrors);
}
