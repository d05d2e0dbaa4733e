// read_flat_ledger_line reads the common ledger line without a JSON document: on every generated
// line it answers, the full parse (nlohmann, then parse_ledger_object) must give the same record
// with no problem, bit for bit; lines the full parse refuses it must never answer.
#include <catch2/catch.hpp>

#include <cstring>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "io/usage/ledger.hpp"
#include "io/usage/ledger_flat_line.hpp"

using namespace gpuplan;

namespace {

const std::vector<std::string> kKeys = {"date", "experiment", "team", "user", "provider", "currency", "id", "family", "cost",
                                        "gpu_hours", "tokens", "utilization", "samples", "requests", "restore_seconds",
                                        "metrics", "note", "Date", "", "cost "};
const std::vector<std::string> kValues = {
    "\"2026-12-01\"", "\"exp1\"", "\"\"", "\"USD\"", "\"caf\\u00e9\"", "\"caf\xc3\xa9\"", "\"\xff\"", "\"a\tb\"", "\"a\x7f\"",
    "0", "1", "12.5", "1e3", "1E+3", "2.5e-3", "1e-400", "1e400", "-0", "-0.0", "-1", "01", "1.", ".5", "1e", "0.1",
    "18446744073709551615", "18446744073709551616", "123456789012345678901234567890", "3.14159265358979323846",
    "9007199254740993", "0.30000000000000004", "true", "false", "null", "nul", "[1]", "{\"a\":1}", "\"1\"", "1x",
    "-true", "1.true", "-\"a\"", "-1e400", "1e-400"};
const std::vector<std::string> kSpace = {"", "", "", " ", "\t", "\r", "  "};

std::string field(std::mt19937& rng, const std::string& key, const std::string& value) {
  auto sp = [&] { return kSpace[rng() % kSpace.size()]; };
  return sp() + "\"" + key + "\"" + sp() + ":" + sp() + value + sp();
}

// A line close to what writers produce, with a few keys, values and spacings swapped at random.
std::string line(std::mt19937& rng) {
  std::vector<std::pair<std::string, std::string>> fields = {
      {"date", "\"2026-12-0" + std::to_string(1 + rng() % 9) + "\""}, {"experiment", "\"exp" + std::to_string(rng() % 50) + "\""},
      {"cost", std::to_string(rng() % 10000) + "." + std::to_string(rng() % 100)}, {"currency", "\"USD\""}};
  const int extra = static_cast<int>(rng() % 5);
  for (int i = 0; i < extra; ++i) fields.push_back({kKeys[rng() % kKeys.size()], kValues[rng() % kValues.size()]});
  const int swaps = static_cast<int>(rng() % 3);
  for (int i = 0; i < swaps; ++i) {
    auto& f = fields[rng() % fields.size()];
    (rng() % 2 ? f.first : f.second) = rng() % 2 ? kKeys[rng() % kKeys.size()] : kValues[rng() % kValues.size()];
  }
  std::shuffle(fields.begin(), fields.end(), rng);
  std::string out = kSpace[rng() % kSpace.size()] + "{";
  for (std::size_t i = 0; i < fields.size(); ++i) out += (i ? "," : "") + field(rng, fields[i].first, fields[i].second);
  out += "}";
  switch (rng() % 8) {
    case 0: out += " x"; break;
    case 1: out.pop_back(); break;
    case 2: out += "\r"; break;
    default: break;
  }
  return out;
}

bool same_number(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

bool same_number(const std::optional<double>& a, const std::optional<double>& b) {
  return a.has_value() == b.has_value() && (!a || same_number(*a, *b));
}

}  // namespace

TEST_CASE("the fast ledger line reader agrees with the full parse wherever it answers", "[ledger][io]") {
  std::mt19937 rng(31);
  const SourceLocation at{"l.jsonl", 3, 1};
  int answered = 0;
  for (int n = 0; n < 20000; ++n) {
    const std::string row = line(rng);
    INFO(row);
    const std::optional<LedgerRecord> fast = io::read_flat_ledger_line(row, at);
    const nlohmann::json j = nlohmann::json::parse(row, nullptr, false);
    if (!fast) continue;
    ++answered;
    REQUIRE_FALSE(j.is_discarded());
    std::vector<InputError> errors;
    const LedgerRecord full = io::parse_ledger_object(j, at, errors);
    REQUIRE(errors.empty());
    CHECK(fast->date == full.date);
    CHECK(fast->experiment == full.experiment);
    CHECK(fast->team == full.team);
    CHECK(fast->user == full.user);
    CHECK(fast->provider == full.provider);
    CHECK(fast->currency == full.currency);
    CHECK(fast->id == full.id);
    CHECK(fast->family == full.family);
    CHECK(fast->metrics.empty());
    CHECK(same_number(fast->cost, full.cost));
    CHECK(same_number(fast->gpu_hours, full.gpu_hours));
    CHECK(same_number(fast->tokens, full.tokens));
    CHECK(same_number(fast->utilization, full.utilization));
    CHECK(same_number(fast->samples, full.samples));
    CHECK(same_number(fast->requests, full.requests));
    CHECK(same_number(fast->restore_seconds, full.restore_seconds));
    CHECK(fast->where.path == at.path);
    CHECK(fast->where.line == at.line);
  }
  CHECK(answered > 1000);  // about one line in ten is plain enough: the reader must take those
}

TEST_CASE("the fast ledger line reader takes what gpuplan writes and leaves the rest", "[ledger][io]") {
  const SourceLocation at{"l.jsonl", 1, 1};
  LedgerRecord r;
  r.date = "2026-12-01";
  r.experiment = "sft-7b";
  r.team = "nlp";
  r.user = "asha";
  r.provider = "aws";
  r.cost = 1234.5678;
  r.currency = "EUR";
  r.gpu_hours = 96.25;
  r.tokens = 2e9;
  r.id = "0123abcd";
  r.family = "sft";
  r.utilization = 0.83;
  r.samples = 125000;
  const auto fast = io::read_flat_ledger_line(io::ledger_line(r), at);
  REQUIRE(fast);
  CHECK(io::ledger_line(*fast) == io::ledger_line(r));
  r.metrics.push_back({"eval_loss", 1.82, false});  // an array: the full parse's
  CHECK_FALSE(io::read_flat_ledger_line(io::ledger_line(r), at));
  CHECK_FALSE(io::read_flat_ledger_line(R"({"date":"2026-12-01","experiment":"a","currency":"USD"})", at));  // no cost
  CHECK_FALSE(io::read_flat_ledger_line(R"({"date":"2026-12-01","experiment":"a","cost":1,"cost":2,"currency":"USD"})", at));
}
