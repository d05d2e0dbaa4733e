// The one record check every ledger store runs before a write and after a read (issue 30.1, 30.6).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "io/usage/ledger.hpp"
#include "io/usage/ledger_record_check.hpp"

using namespace gpuplan;

namespace {

LedgerRecord good() {
  LedgerRecord r;
  r.id = "run-1";
  r.date = "2026-12-01";
  r.experiment = "sft";
  r.team = "nlp";
  r.currency = "USD";
  r.cost = 12.5;
  return r;
}

std::vector<std::string> fields_refused(const LedgerRecord& r) {
  std::vector<InputError> errors;
  io::check_ledger_record(r, SourceLocation{"s.db", 7, 0}, errors);
  std::vector<std::string> out;
  for (const auto& e : errors) out.push_back(e.field());
  return out;
}

}  // namespace

TEST_CASE("ledger records: a good record passes, each bad field is named", "[ledger][io]") {
  CHECK(fields_refused(good()).empty());
  auto with = [](auto change) {
    LedgerRecord r = good();
    change(r);
    return fields_refused(r);
  };
  using V = std::vector<std::string>;
  CHECK(with([](LedgerRecord& r) { r.team = "caf\xe9"; }) == V{"team"});              // Latin-1, not UTF-8
  CHECK(with([](LedgerRecord& r) { r.team = "caf\xc3\xa9"; }).empty());               // UTF-8 é
  CHECK(with([](LedgerRecord& r) { r.user = "\xc0\xaf"; }) == V{"user"});             // overlong "/"
  CHECK(with([](LedgerRecord& r) { r.user = "\xed\xa0\x80"; }) == V{"user"});         // a surrogate
  CHECK(with([](LedgerRecord& r) { r.provider = "\xf4\x90\x80\x80"; }) == V{"provider"});  // above U+10FFFF
  CHECK(with([](LedgerRecord& r) { r.id = std::string("run\0A", 5); }) == V{"id"});
  CHECK(with([](LedgerRecord& r) { r.experiment = std::string("a\0b", 3); }) == V{"experiment"});
  CHECK(with([](LedgerRecord& r) { r.id = "a\tb"; }) == V{"id"});  // ids are printable
  CHECK(with([](LedgerRecord& r) { r.experiment = "a\tb"; }).empty());  // names: the renderers escape
  CHECK(with([](LedgerRecord& r) { r.id = std::string(257, 'x'); }) == V{"id"});
  CHECK(with([](LedgerRecord& r) { r.date = "0000-01-01"; }) == V{"date"});  // PostgreSQL has no year 0
  CHECK(with([](LedgerRecord& r) { r.date = "2026-12-99"; }) == V{"date"});
  CHECK(with([](LedgerRecord& r) { r.date = "2026-02-29"; }) == V{"date"});
  CHECK(with([](LedgerRecord& r) { r.date = "2028-02-29"; }).empty());
  CHECK(with([](LedgerRecord& r) { r.currency = "usd"; }) == V{"currency"});
  CHECK(with([](LedgerRecord& r) { r.cost = 1e308; }) == V{"cost"});  // summed, inf
  CHECK(with([](LedgerRecord& r) { r.cost = std::nan(""); }) == V{"cost"});
  CHECK(with([](LedgerRecord& r) { r.cost = -1; }) == V{"cost"});
  CHECK(with([](LedgerRecord& r) { r.gpu_hours = std::numeric_limits<double>::infinity(); }) == V{"gpu_hours"});
  CHECK(with([](LedgerRecord& r) { r.tokens = 1e17; }) == V{"tokens"});
}

TEST_CASE("ledger records: one that passes always serialises within the line limit", "[ledger][io]") {
  LedgerRecord r = good();
  r.experiment = std::string(40000, '"');  // escapes double it: over the 64 KiB line
  std::vector<InputError> errors;
  CHECK_THROWS_AS(io::check_ledger_record(r, {}, errors), InputError);
  r.experiment = std::string(30000, '"');
  io::check_ledger_record(r, {}, errors);
  CHECK(errors.empty());
  CHECK(io::ledger_line(r).size() <= io::kMaxLedgerLineBytes);
  CHECK_THROWS_AS(io::require_valid_records({good(), [] {
                                               LedgerRecord b = good();
                                               b.date = "2026-13-01";
                                               return b;
                                             }()}),
                  InputErrors);
}

TEST_CASE("ledger records: the check refuses exactly the records whose line is too long", "[ledger][io]") {
  // Control characters serialise as \u00XX, six bytes each: the sizes cross both the check's
  // bound (below which it does not serialise) and the line limit itself.
  int refusals = 0, passes = 0;
  for (std::size_t n = 10600; n <= 11000; n += 8) {
    LedgerRecord r = good();
    r.experiment = std::string(n, '\x01');
    std::vector<InputError> errors;
    bool refused = false, too_long = false;
    try {
      io::check_ledger_record(r, {}, errors);
    } catch (const InputError&) {
      refused = true;
    }
    try {
      (void)io::ledger_line(r);
    } catch (const InputError&) {
      too_long = true;
    }
    INFO(n);
    CHECK(errors.empty());
    CHECK(refused == too_long);
    (refused ? refusals : passes)++;
  }
  CHECK(refusals > 0);
  CHECK(passes > 0);
}

TEST_CASE("ledger records: the JSON Lines reader applies the same check", "[ledger][io]") {
  const std::string base = R"({"date":"2026-12-01","experiment":"a","cost":1,"currency":"USD")";
  CHECK(io::parse_ledger(base + ",\"id\":\"caf\\u00e9\"}\n", "s.jsonl").records.at(0).id == "caf\xc3\xa9");
  for (const std::string bad : {R"(,"id":"run\u0000A"})", R"(,"date":"0000-01-01"})", R"(,"cost":1e308})"}) {
    std::string line = base;
    if (bad.find("date") != std::string::npos) line.replace(line.find("2026-12-01"), 10, "0000-01-01");
    if (bad.find("cost") != std::string::npos) line.replace(line.find("\"cost\":1"), 8, "\"cost\":1e308");
    if (bad.find("id") != std::string::npos) line += bad;
    else line += "}";
    INFO(line);
    CHECK_THROWS_AS(io::parse_ledger(line + "\n", "s.jsonl"), InputErrors);
  }
}

TEST_CASE("ledger records: measured outcomes are checked and survive a JSON Lines round trip", "[ledger][io]") {
  LedgerRecord r = good();
  r.family = "sft";
  r.metrics = {{"eval_loss", 1.82, false}, {"reward", -0.5, true}};
  r.utilization = 0.63;
  r.samples = 1.2e6;
  r.requests = 25e4;
  r.restore_seconds = 95;
  CHECK(fields_refused(r).empty());
  const auto back = io::parse_ledger(io::ledger_line(r) + "\n", "x.jsonl").records.at(0);
  REQUIRE(back.metrics.size() == 2);
  CHECK(back.metrics[1].name == "reward");
  CHECK(back.metrics[1].value == -0.5);
  CHECK(back.metrics[1].higher_is_better);
  CHECK(*back.utilization == 0.63);
  CHECK(back.samples == 1.2e6);
  CHECK(back.requests == 25e4);
  CHECK(*back.restore_seconds == 95);
  CHECK(back.family == "sft");
  auto refused = [&](auto change) {
    LedgerRecord x = r;
    change(x);
    return fields_refused(x);
  };
  using V = std::vector<std::string>;
  CHECK(refused([](LedgerRecord& x) { x.metrics.push_back({"eval_loss", 2, false}); }) == V{"metrics"});  // twice
  CHECK(refused([](LedgerRecord& x) { x.metrics[0].value = std::nan(""); }) == V{"metrics"});
  CHECK(refused([](LedgerRecord& x) { x.metrics[0].value = 1e300; }) == V{"metrics"});
  CHECK(refused([](LedgerRecord& x) { x.metrics[0].name = ""; }) == V{"metrics"});
  CHECK(refused([](LedgerRecord& x) { x.metrics[0].name = std::string(65, 'a'); }) == V{"metrics"});
  CHECK(refused([](LedgerRecord& x) { x.metrics[0].name = "a\nb"; }) == V{"metrics"});
  CHECK(refused([](LedgerRecord& x) { x.metrics[0].name = "\xff"; }) == V{"metrics"});
  CHECK(refused([](LedgerRecord& x) { x.metrics.assign(17, {"m", 1, false}); }).front() == "metrics");
  CHECK(refused([](LedgerRecord& x) { x.utilization = 1.5; }) == V{"utilization"});
  CHECK(refused([](LedgerRecord& x) { x.samples = std::numeric_limits<double>::infinity(); }) == V{"samples"});
  CHECK(refused([](LedgerRecord& x) { x.requests = -1; }) == V{"requests"});
  CHECK(refused([](LedgerRecord& x) { x.restore_seconds = 1e12; }) == V{"restore_seconds"});
  CHECK(refused([](LedgerRecord& x) { x.family = "a\tb"; }) == V{"family"});
  // A line whose metric is not {name, value, better} is refused at its line.
  CHECK_THROWS_WITH(io::parse_ledger(R"({"date":"2026-12-01","experiment":"x","cost":1,"currency":"USD","metrics":[{"name":"a","value":1}]})" "\n", "x.jsonl"),
                    Catch::Contains("x.jsonl:1") && Catch::Contains("metrics"));
  // A record without outcomes is written exactly as before: no new keys.
  CHECK(io::ledger_line(good()) == R"({"cost":12.5,"currency":"USD","date":"2026-12-01","experiment":"sft","id":"run-1","team":"nlp"})");
}
