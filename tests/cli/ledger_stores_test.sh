#!/usr/bin/env bash
# The ledger stores end to end, each test against JSONL, SQLite and PostgreSQL: idempotent
# appends, 60 concurrent writer processes, killed writers, import/export round trips, and the
# budget gate reading every store. PostgreSQL comes from GPUPLAN_TEST_POSTGRES_HOST/_USER (see
# .ci/setup-spend.sh); without it the PostgreSQL run skips (exit 77), unless
# GPUPLAN_REQUIRE_SERVICES=1, when its absence fails the test.
source "$(dirname "$0")/lib.sh"
EX="$1/../examples/ci"

# Usage: ledger_stores_test.sh TESTS_DIR STORE... (jsonl, sqlite, postgres)
stores=("${@:2}")
if [[ " ${stores[*]} " == *" postgres "* ]]; then
  if [[ -z "${GPUPLAN_TEST_POSTGRES_HOST:-}" ]] || ! command -v psql >/dev/null; then
    if [[ "${GPUPLAN_REQUIRE_SERVICES:-0}" == 1 ]]; then
      echo "FAIL: GPUPLAN_REQUIRE_SERVICES=1 but no PostgreSQL (set GPUPLAN_TEST_POSTGRES_HOST; see .ci/setup-spend.sh)"
      exit 1
    fi
    echo "SKIP: PostgreSQL not available (GPUPLAN_TEST_POSTGRES_HOST unset; see .ci/setup-spend.sh)"
    exit 77
  fi
  PGURL_BASE="postgresql:///postgres?host=$GPUPLAN_TEST_POSTGRES_HOST&user=${GPUPLAN_TEST_POSTGRES_USER:-gpuplan}"
fi

# ledger KIND NAME: a fresh, empty ledger of that store (a new database for PostgreSQL).
ledger() {
  case $1 in
    jsonl) echo "$TMP/$2.jsonl" ;;
    sqlite) echo "$TMP/$2.db" ;;
    postgres)
      local db="t_$$_$2"
      psql -q "$PGURL_BASE" -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null 2>&1
      echo "postgresql:///$db?host=$GPUPLAN_TEST_POSTGRES_HOST&user=${GPUPLAN_TEST_POSTGRES_USER:-gpuplan}" ;;
  esac
}
records() { "$G" ledger report --ledger "$1" --format json 2>/dev/null | grep -oE '"records": ?[0-9]+' | grep -oE '[0-9]+$'; }
total() { "$G" ledger report --ledger "$1" --format json 2>/dev/null | grep -oE '"total": ?[0-9.e+]+' | grep -oE '[0-9.e+]+$'; }
same() {  # same ACTUAL EXPECTED DESCRIPTION
  if [[ "$1" == "$2" ]]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $3: got '$1', expected '$2'"; fi
}

# Issue 31: sums come from the store (SQLite: one pass over the summed columns; PostgreSQL: GROUP
# BY) yet equal the JSON Lines reader's to the last bit: each sum adds in record order. Costs
# whose sum depends on the order (0.1 + 0.2 + 0.3 is not 0.3 + 0.2 + 0.1), two currencies, an
# empty team, records over three months and after the as-of date.
python3 - "$TMP/sums.jsonl" <<'PY'
import sys
costs = [0.1, 0.2, 0.3, 1e-3, 7.77, 0.3, 0.2, 0.1, 1234.5678, 0.01]
with open(sys.argv[1], "w") as out:
    for i in range(60):
        cur = "INR" if i % 7 == 3 else "USD"
        out.write('{"date":"2026-%02d-%02d","experiment":"e%d","team":"%s","user":"u%d","provider":"p%d","cost":%r,"currency":"%s","id":"s%d"}\n'
                  % (10 + i % 3, 1 + i % 28, i % 4, "" if i % 5 == 0 else "t%d" % (i % 2), i % 3, i % 2, costs[i % 10], cur, i))
PY
# The reference: JSON Lines figures, and team t0's USD spend summed in file order by Python.
want_t0=$(python3 -c "import json,sys; s=0.0
for l in open(sys.argv[1]):
    r=json.loads(l)
    if r['team']=='t0' and r['currency']=='USD': s+=r['cost']
print(repr(s))" "$TMP/sums.jsonl")
t0_usd() { grep -v INR "$1" >"$TMP/usd-only.jsonl"; "$G" ledger report --ledger "$TMP/usd-only.jsonl" --by team --format json | grep -oE '"t0": ?[0-9.e+-]+' | grep -oE '[0-9.e+-]+$'; }
same "$(python3 -c "print(repr(float('$(t0_usd "$TMP/sums.jsonl")')))")" "$want_t0" "jsonl: a sum adds in record order"
printf 'currency: USD\nperiod: month\ntotal: 100\nper_experiment: 50\nteams:\n  t0: 10\n' >"$TMP/sums-budget.yaml"
sums_of() {  # every figure a store sums, as JSON
  for by in experiment team user period provider; do "$G" ledger report --ledger "$1" --by "$by" --format json; done
  "$G" ledger report --ledger "$1" --by team --period 2026-11 --format json
  "$G" report --ledger "$1" --policy "$TMP/sums-budget.yaml" --date 2026-11-20 --format json
  "$G" check "$EX/passing/experiments" --policy "$TMP/sums-budget.yaml" --ledger "$1" --date 2026-11-20 --format json
}
sums_of "$TMP/sums.jsonl" >"$TMP/sums-want.json" 2>/dev/null
# The reference must hold figures: were every command refused, the stores would match it emptily.
if grep -q '"records": [1-9]' "$TMP/sums-want.json"; then pass=$((pass + 1)); else
  fail=$((fail + 1)); echo "FAIL: the JSON Lines reference has no records"; fi

for kind in "${stores[@]}"; do
  L=$(ledger "$kind" sums)
  "$G" ledger import "$TMP/sums.jsonl" --ledger "$L" >/dev/null
  sums_of "$L" >"$TMP/sums-got.json" 2>/dev/null
  if cmp -s "$TMP/sums-got.json" "$TMP/sums-want.json"; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: $kind: store-side sums differ from the JSON Lines reader's"; diff "$TMP/sums-want.json" "$TMP/sums-got.json" | head -20
  fi

  # A retried append with the same id counts once.
  L=$(ledger "$kind" retry)
  expect 0 "$kind: add with id" -- "$G" ledger add --ledger "$L" --experiment sft --cost 10 --id job-1 --date 2026-12-01
  expect 0 "$kind: retried add with the same id" -- "$G" ledger add --ledger "$L" --experiment sft --cost 10 --id job-1 --date 2026-12-01
  has out "already recorded" "$kind: the retry says nothing was added"
  expect 0 "$kind: another id" -- "$G" ledger add --ledger "$L" --experiment sft --cost "903.957 INR" --id job-2 --date 2026-12-02
  same "$(records "$L")" 2 "$kind: a retried id counts once"

  # 60 appends from 60 processes at once: 60 records.
  L=$(ledger "$kind" conc)
  pids=()  # a fresh store: the 60 writers also race to create the file or schema
  for i in $(seq 1 60); do "$G" ledger add --ledger "$L" --experiment "run$i" --cost 1 --date 2026-12-01 --id "c$i" >/dev/null 2>"$TMP/conc$i.err" & pids+=($!); done
  bad=0
  for p in "${pids[@]}"; do wait "$p" || bad=$((bad + 1)); done
  same "$bad" 0 "$kind: every concurrent writer succeeded"
  same "$(records "$L")" 60 "$kind: 60 concurrent appends = 60 records"

  # Writers killed at random points: every append that reported success is there, and the
  # ledger still reads and takes appends.
  L=$(ledger "$kind" kill)
  "$G" ledger add --ledger "$L" --experiment warm --cost 1 --date 2026-12-01 --id warm >/dev/null
  committed=(warm)
  for i in $(seq 1 25); do
    "$G" ledger add --ledger "$L" --experiment "k$i" --cost 1 --date 2026-12-01 --id "k$i" >/dev/null 2>&1 &
    p=$!
    sleep "0.0$((RANDOM % 10))"
    kill -9 "$p" 2>/dev/null
    { wait "$p"; } 2>/dev/null && committed+=("k$i")
  done
  expect 0 "$kind: append after killed writers" -- "$G" ledger add --ledger "$L" --experiment after --cost 1 --date 2026-12-01 --id after
  committed+=(after)
  "$G" ledger export - --ledger "$L" >"$TMP/kill-export.out" 2>"$TMP/kill.err"
  same "$?" 0 "$kind: ledger exports after killed writers"
  lost=0
  for id in "${committed[@]}"; do grep -q "\"id\":\"$id\"" "$TMP/kill-export.out" || lost=$((lost + 1)); done
  same "$lost" 0 "$kind: no committed record lost (${#committed[@]} committed)"

  # Import from the shipped example ledger, export back to JSONL: same records, same totals;
  # importing twice adds nothing.
  L=$(ledger "$kind" imp)
  expect 0 "$kind: import" -- "$G" ledger import "$EX/passing/ledger.jsonl" --ledger "$L" --format json
  n=$(grep -c . "$EX/passing/ledger.jsonl")
  has out "\"added\": ?$n" "$kind: import adds every record"
  expect 0 "$kind: import again" -- "$G" ledger import "$EX/passing/ledger.jsonl" --ledger "$L" --format json
  has out '"added": ?0' "$kind: a second import adds nothing"
  expect 0 "$kind: export" -- "$G" ledger export "$TMP/back-$kind.jsonl" --ledger "$L"
  same "$(total "$TMP/back-$kind.jsonl")" "$(total "$EX/passing/ledger.jsonl")" "$kind: export round trip keeps the total"

  # The budget gate reads every store and reaches the same verdict.
  for ex in passing failing; do
    LX=$(ledger "$kind" "gate$ex")
    "$G" ledger import "$EX/$ex/ledger.jsonl" --ledger "$LX" >/dev/null
    "$G" check "$EX/$ex/experiments" --budget "$EX/$ex/budget.yaml" --ledger "$EX/$ex/ledger.jsonl" --date 2026-12-15 --format json >"$TMP/want.json" 2>/dev/null
    "$G" check "$EX/$ex/experiments" --budget "$EX/$ex/budget.yaml" --ledger "$LX" --date 2026-12-15 --format json >"$TMP/got.json" 2>/dev/null
    same "$(grep -E '"(pass|message)"' "$TMP/got.json" | md5sum)" "$(grep -E '"(pass|message)"' "$TMP/want.json" | md5sum)" "$kind: check on $ex gives the JSONL verdict"
  done

  # Unknown currency is refused at add time and nothing is stored (issue 16.11).
  L=$(ledger "$kind" cur)
  "$G" ledger add --ledger "$L" --experiment a --cost 1 --date 2026-12-01 >/dev/null
  expect 2 "$kind: unknown currency refused" -- "$G" ledger add --ledger "$L" --experiment a --cost "5 XYZ"
  has err "unknown currency \"XYZ\"" "$kind: names the currency"
  same "$(records "$L")" 1 "$kind: nothing stored for the refused record"

  # Issue 30.1/6: one validation on every store, before any write: a record a store could not
  # hand back (invalid UTF-8, over the line limit, year 0000, a cost that sums to inf) is refused
  # naming its flag, nothing is stored, and the ledger still exports.
  L=$(ledger "$kind" valid)
  "$G" ledger add --ledger "$L" --experiment a --cost 1 --date 2026-12-01 --id v0 >/dev/null
  expect 2 "$kind: invalid UTF-8 --team" -- "$G" ledger add --ledger "$L" --experiment sft --team $'caf\xe9' --cost 5 --id v1
  has err "--team.*UTF-8" "$kind: names --team"
  expect 2 "$kind: 70,000-character --experiment" -- "$G" ledger add --ledger "$L" --experiment "$(head -c 70000 /dev/zero | tr '\0' x)" --cost 1 --id v2
  has err "64 KiB ledger line limit" "$kind: names the line limit"
  expect 2 "$kind: year 0000" -- "$G" ledger add --ledger "$L" --experiment a --cost 1 --date 0000-01-01 --id v3
  has err "--date" "$kind: names --date"
  expect 2 "$kind: --cost 1e308" -- "$G" ledger add --ledger "$L" --experiment a --cost 1e308 --id v4
  has err "--cost.*1e\+12" "$kind: names --cost and its bound"
  expect 2 "$kind: NUL-free control in --id" -- "$G" ledger add --ledger "$L" --experiment a --cost 1 --id $'a\tb'
  same "$(records "$L")" 1 "$kind: nothing stored for refused records"
  expect 0 "$kind: the ledger still exports" -- "$G" ledger export - --ledger "$L"
  expect 2 "$kind: import a ledger into itself" -- "$G" ledger import "$L" --ledger "$L"
  same "$(records "$L")" 1 "$kind: self-import added nothing"
done

# Issue 30.6: rows written by another tool are refused where they sit (file:seq, field), never an
# internal error; sums that only such rows can produce (inf) are refused by the gate.
if [[ " ${stores[*]} " == *" sqlite "* ]]; then
  for row in "'2026-12-99', '2026-12', 1" "'2026-12-01', '2026-12', 'abc'" "'0000-01-01', '0000-01', 1"; do
    D="$TMP/foreign.db"
    rm -f "$D"
    "$G" ledger add --ledger "$D" --experiment ok --cost 1 --date 2026-12-01 --id ok >/dev/null
    python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(\"INSERT INTO ledger (id, date, month, cost, experiment, currency) VALUES ('x', $row, 'e', 'USD')\"); c.commit()" "$D"
    expect 2 "sqlite: a foreign row ($row)" -- "$G" ledger report --ledger "$D"
    has err "foreign.db:2: field '(date|cost)'" "sqlite: names the row and field ($row)"
    lacks err "internal error" "sqlite: no internal error ($row)"
  done
  D="$TMP/inf.db"
  "$G" ledger add --ledger "$D" --experiment ok --cost 1 --date 2026-12-01 --id ok >/dev/null
  python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(\"INSERT INTO ledger (id, date, month, experiment, cost, currency) VALUES ('x', '2026-12-02', '2026-12', 'e', 1e999, 'USD')\"); c.commit()" "$D"
  expect 2 "sqlite: the gate refuses an inf sum" -- "$G" check "$EX/passing/experiments" --budget "$EX/passing/budget.yaml" --ledger "$D" --date 2026-12-15
  has err "field .cost.: expected a number from 0 to 1e\+12, got inf" "sqlite: names the impossible cost"
  # Issue 30.4: an SQLite URI is not a ledger ("appended" to memory, nothing written).
  expect 2 "sqlite: a URI is refused" -- "$G" ledger add --ledger 'file:spend?mode=memory&x=.db' --experiment a --cost 1
  has err "SQLite URIs" "sqlite: says why"
fi

if [[ " ${stores[*]} " == *" postgres "* ]]; then
  # Issue 30.9: an up-to-date ledger opens with no lock and no DDL, so a read-only role reads it
  # and a session stuck holding the schema lock stops neither readers nor writers; a ledger that
  # needs its schema waits for that lock only GPUPLAN_LEDGER_LOCK_TIMEOUT seconds.
  on_db() { echo "postgresql:///t_$$_$1?host=$GPUPLAN_TEST_POSTGRES_HOST&user=${2:-${GPUPLAN_TEST_POSTGRES_USER:-gpuplan}}"; }
  L=$(ledger postgres ro)
  "$G" ledger add --ledger "$L" --experiment a --cost 1 --date 2026-12-01 --id r1 >/dev/null
  psql -q "$PGURL_BASE" -c "DROP ROLE IF EXISTS gpuplan_ro_$$" -c "CREATE ROLE gpuplan_ro_$$ LOGIN" >/dev/null 2>&1
  psql -q "$L" -c "GRANT SELECT ON gpuplan_ledger, gpuplan_meta TO gpuplan_ro_$$" >/dev/null 2>&1
  expect 0 "postgres: a read-only role reads" -- "$G" ledger report --ledger "$(on_db ro gpuplan_ro_$$)"
  same "$(records "$(on_db ro gpuplan_ro_$$)")" 1 "postgres: the read-only role sees the record"
  L2=$(ledger postgres fresh)
  psql -q "$L" -c "SELECT pg_advisory_lock(4711020)" -c "SELECT pg_sleep(30)" >/dev/null 2>&1 &
  holder1=$!
  psql -q "$L2" -c "SELECT pg_advisory_lock(4711020)" -c "SELECT pg_sleep(30)" >/dev/null 2>&1 &
  holder2=$!
  sleep 1
  expect 0 "postgres: a held schema lock does not stop a reader" -- env GPUPLAN_LEDGER_LOCK_TIMEOUT=2 "$G" ledger report --ledger "$L"
  expect 0 "postgres: nor a writer" -- env GPUPLAN_LEDGER_LOCK_TIMEOUT=2 "$G" ledger add --ledger "$L" --experiment b --cost 1 --id r2
  start=$(date +%s)
  expect 2 "postgres: a schema change gives up after the lock timeout" -- env GPUPLAN_LEDGER_LOCK_TIMEOUT=1 "$G" ledger add --ledger "$L2" --experiment a --cost 1
  has err "lock timeout.*GPUPLAN_LEDGER_LOCK_TIMEOUT" "postgres: names the setting"
  [[ $(($(date +%s) - start)) -le 6 ]] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: postgres lock timeout took too long"; }
  kill "$holder1" "$holder2" 2>/dev/null
  wait "$holder1" "$holder2" 2>/dev/null
  psql -q "$PGURL_BASE" -c "DROP ROLE IF EXISTS gpuplan_ro_$$" >/dev/null 2>&1
  # Issue 30.12: a password in the URL's query is never printed.
  expect 0 "postgres: add with password= in the URL" -- "$G" ledger add --ledger "$L&password=S3CRET-pw" --experiment c --cost 1
  lacks out "S3CRET" "postgres: the note hides the password"
  expect 2 "postgres: a failing URL with password=" -- "$G" ledger report --ledger "postgresql:///t_$$_nodb?host=$GPUPLAN_TEST_POSTGRES_HOST&user=gpuplan&password=S3CRET-pw"
  lacks err "S3CRET" "postgres: the error hides the password"
  # A row another tool wrote with an impossible cost is refused where it sits.
  psql -q "$L" -c "INSERT INTO gpuplan_ledger (id, date, month, experiment, cost, currency) VALUES ('inf', '2026-12-03', '2026-12', 'e', 'Infinity', 'USD')" >/dev/null
  expect 2 "postgres: a foreign row with cost Infinity" -- "$G" ledger report --ledger "$L"
  has err "field 'cost'" "postgres: names the field"
fi

# A missing SQLite ledger is an error for readers, not a new empty database.
expect 2 "missing sqlite ledger" -- "$G" ledger report --ledger "$TMP/nope.db"
has err "nope.db.*no such file" "names the missing file"
[[ ! -e "$TMP/nope.db" ]] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: a reader created nope.db"; }
finish
