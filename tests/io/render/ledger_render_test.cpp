// ledger's reports on fixed values: an add (appended or a duplicate id), a copy, and a report by
// team whose records partly leave the team empty; JSON keys and values, table cells and notes.
#include <catch2/catch.hpp>

#include "io/render/ledger_render.hpp"

using namespace gpuplan;
using namespace gpuplan::io;

namespace {

LedgerRecord record() {
  LedgerRecord r;
  r.date = "2026-12-01";
  r.experiment = "llama8b-lora";
  r.provider = "nebius";
  r.cost = 41.2;
  r.currency = "USD";
  r.gpu_hours = 12;
  r.id = "run-7";
  return r;
}

}  // namespace

TEST_CASE("ledger add: the appended record as stored, or the duplicate id and nothing added", "[render][ledger]") {
  const LedgerAddView added{"spend.jsonl", record(), true};
  const nlohmann::json j = ledger_add_json(added);
  CHECK(j["appended"]["experiment"] == "llama8b-lora");
  CHECK(j["appended"]["cost"] == 41.2);
  CHECK(j["appended"]["gpu_hours"] == 12);
  CHECK(j["appended"]["id"] == "run-7");
  CHECK(j["appended"]["date"] == "2026-12-01");
  CHECK(j["duplicate_id"].is_null());
  CHECK(ledger_add_notes(added) == std::vector<std::string>{"appended to spend.jsonl: llama8b-lora 41.20 USD (id run-7)"});

  const LedgerAddView dup{"spend.db", record(), false};
  const nlohmann::json d = ledger_add_json(dup);
  CHECK(d["appended"].is_null());
  CHECK(d["duplicate_id"] == "run-7");
  CHECK(ledger_add_notes(dup) == std::vector<std::string>{"already recorded: spend.db holds id run-7; nothing added"});
}

TEST_CASE("ledger import/export: records read, added and already present", "[render][ledger]") {
  const LedgerCopyView v{"spend.jsonl", "spend.db", 7, 5};
  const nlohmann::json j = ledger_copy_json(v);
  CHECK(j == nlohmann::json{{"from", "spend.jsonl"}, {"to", "spend.db"}, {"read", 7}, {"added", 5}, {"already_present", 2}});
  CHECK(ledger_copy_notes(v) == std::vector<std::string>{"copied 5 of 7 records from spend.jsonl to spend.db (2 already there)"});
  const LedgerCopyView none{"a.jsonl", "b.db", 0, 0};
  CHECK(ledger_copy_json(none)["already_present"] == 0);
  CHECK(ledger_copy_notes(none).front() == "copied 0 of 0 records from a.jsonl to b.db (0 already there)");
}

TEST_CASE("ledger report: sums by name, the empty key as (none) joined with a literal (none), and the total", "[render][ledger]") {
  // 10.25 + 2.5 for records without a team and a team really called "(none)": one row of 12.75.
  const LedgerSpendView v{"team", "EUR", {{"", 10.25}, {"(none)", 2.5}, {"nlp", 30}, {"asr", 0.004}}, 6};
  CHECK(ledger_spend_key("") == "(none)");
  CHECK(ledger_spend_key("nlp") == "nlp");
  CHECK(ledger_spend_total(v) == Approx(42.754));
  const nlohmann::json j = ledger_spend_json(v);
  CHECK(j["by"] == "team");
  CHECK(j["currency"] == "EUR");
  CHECK(j["records"] == 6);
  CHECK(j["spend"] == nlohmann::json{{"(none)", 12.75}, {"nlp", 30.0}, {"asr", 0.004}});
  CHECK(j["total"].get<double>() == Approx(42.754));

  const Table t = ledger_spend_table(v);
  CHECK(t.title == "Spend by team (EUR)");
  CHECK(t.columns == std::vector<std::string>{"team", "spend"});
  CHECK(t.align == std::vector<Align>{Align::left, Align::right});
  // Sorted by name ("(" before letters), two decimals, the total last.
  CHECK(t.rows == std::vector<std::vector<std::string>>{{"(none)", "12.75"}, {"asr", "0.00"}, {"nlp", "30.00"}, {"total", "42.75"}});
}

TEST_CASE("ledger report on an empty period: no rows but the zero total", "[render][ledger]") {
  const LedgerSpendView v{"experiment", "USD", {}, 0};
  const nlohmann::json j = ledger_spend_json(v);
  CHECK(j["spend"].is_object());
  CHECK(j["spend"].empty());
  CHECK(j["total"] == 0.0);
  CHECK(j["records"] == 0);
  CHECK(ledger_spend_table(v).rows == std::vector<std::vector<std::string>>{{"total", "0.00"}});
}
