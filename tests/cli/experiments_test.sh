#!/usr/bin/env bash
# Experiments as decisions, end to end: a generated ledger of three experiment families (one
# improving cheaply, one flattening, one with no frontier run lately) loaded into JSON Lines,
# SQLite and (when available) PostgreSQL; `report` must say continue / change_method / stop
# with the same figures in its table, JSON and HTML, from every store.
# Usage: experiments_test.sh TESTS_DIR
source "$(dirname "$0")/lib.sh"
HERE="$(cd "$(dirname "$0")" && pwd)"

L="$TMP/runs.jsonl"
n=0
run() {  # run DATE EXPERIMENT COST METRIC [EXTRA FLAGS...]
  n=$((n + 1))
  expect 0 "ledger add $2" -- "$G" ledger add --ledger "$L" --id "run$n" --date "$1" --experiment "$2" --cost "$3" --metric "$4" "${@:5}"
}
# improving: loss 2.0, 1.8, 1.62, 1.45 for 10, 10, 12, 12: gains 0.2 for 10 (50/unit), 0.18 for
# 12 (66.67/unit), 0.17 for 12 (70.59/unit): 1.06x the one before, within 2x: continue.
run 2026-11-02 improving/a 10 eval_loss=2.0:lower --tokens 100M --utilization 92%
run 2026-11-04 improving/b 10 eval_loss=1.8:lower --tokens 100M --utilization 90%
run 2026-11-06 improving/c 12 eval_loss=1.62:lower --tokens 120M
run 2026-11-08 improving/d 12 eval_loss=1.45:lower --tokens 120M --restore-time 95s
# flattening: accuracy 0.60, 0.70, 0.72, 0.725 for 20, 20, 45, 90: 200, 2250, 18000 per unit:
# the last 8x the one before: change method (the last run is on the frontier, so not stop).
run 2026-11-03 vision-a 20 accuracy=0.60:higher --family vision --samples 2M --utilization 55%
run 2026-11-05 vision-b 20 accuracy=0.70:higher --family vision --samples 2M --utilization 60%
run 2026-11-07 vision-c 45 accuracy=0.72:higher --family vision --samples 4M --utilization 58%
run 2026-11-09 vision-d 90 accuracy=0.725:higher --family vision --samples 8M
# stalled: loss 1.9, 1.5, then 1.7, 1.6, 1.55 for 25, 40, 22, each dearer than the 1.5 run:
# three runs off the frontier: stop.
run 2026-11-01 stalled/a 30 eval_loss=1.9:lower --requests 40k
run 2026-11-03 stalled/b 20 eval_loss=1.5:lower --requests 50k
run 2026-11-05 stalled/c 25 eval_loss=1.7:lower
run 2026-11-07 stalled/d 40 eval_loss=1.6:lower --metric bleu=20:higher
run 2026-11-09 stalled/e 22 eval_loss=1.55:lower
# A plain spend record with no outcome: counted in spend, in no family.
expect 0 "plain record" -- "$G" ledger add --ledger "$L" --id plain --date 2026-11-09 --experiment adhoc --cost 5

stores=("$L" "$TMP/runs.db")
expect 0 "import into SQLite" -- "$G" ledger import "$L" --ledger "$TMP/runs.db"
if [[ -n "${GPUPLAN_TEST_POSTGRES_HOST:-}" ]] && command -v psql >/dev/null; then
  db="exp_$$"
  base="postgresql:///postgres?host=$GPUPLAN_TEST_POSTGRES_HOST&user=${GPUPLAN_TEST_POSTGRES_USER:-gpuplan}"
  psql -q "$base" -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null 2>&1
  pg="postgresql:///$db?host=$GPUPLAN_TEST_POSTGRES_HOST&user=${GPUPLAN_TEST_POSTGRES_USER:-gpuplan}"
  expect 0 "import into PostgreSQL" -- "$G" ledger import "$L" --ledger "$pg"
  stores+=("$pg")
elif [[ "${GPUPLAN_REQUIRE_SERVICES:-0}" == 1 ]]; then
  fail=$((fail + 1)); echo "FAIL: GPUPLAN_REQUIRE_SERVICES=1 but no PostgreSQL (see .ci/setup-spend.sh)"
else
  echo "note: PostgreSQL not available; compared JSON Lines and SQLite only"
fi

i=0
for s in "${stores[@]}"; do
  i=$((i + 1))
  common=(report --ledger "$s" --date 2026-11-30)
  "$G" "${common[@]}" --format json >"$TMP/r$i.json" 2>"$TMP/err" || { fail=$((fail + 1)); echo "FAIL: report json from $s"; cat "$TMP/err"; }
  "$G" "${common[@]}" --wide --html "$TMP/r$i.html" >"$TMP/r$i.table" 2>"$TMP/err" || { fail=$((fail + 1)); echo "FAIL: report table from $s"; cat "$TMP/err"; }
  if python3 "$HERE/experiments_check.py" "$TMP/r$i.json" "$TMP/r$i.table" "$TMP/r$i.html" >"$TMP/c$i.txt"; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: formats disagree for $s"; cat "$TMP/c$i.txt"
  fi
done
head -3 "$TMP/c1.txt"
for j in $(seq 2 "$i"); do
  if cmp -s "$TMP/c1.txt" "$TMP/c$j.txt"; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: store ${stores[$((j - 1))]} decides differently from JSON Lines"; diff "$TMP/c1.txt" "$TMP/c$j.txt"
  fi
done
# The decisions and the figures that decide them, as the hand-worked cases above say.
for want in "improving eval_loss continue cheap_improvement 0.17 12.00 70.59 1.06x" \
            "vision accuracy change_method flattened 0.005 90.00 18000.00 8.00x" \
            "stalled eval_loss stop no_recent_frontier"; do
  grep -q "^decision $want" "$TMP/c1.txt" && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: expected '$want'"; }
done
has c1.txt "^utilization vision low 0.58 image_input,micro_batch" "the vision family's median utilization is flagged with image-input and memory advice"
has c1.txt "^units vision samples 10.9375" "cost per million samples: 175 over 16M samples"
has c1.txt "^units stalled requests 1.5222" "cost per 1,000 requests: 137 over 90k requests"

# Issue 31: report reads whole records only for the period and for the families with outcomes
# (SQLite leaves the rest to its narrow sums). As of 2026-12-05 (no December record) the families
# still decide from every earlier run: the same as of 2026-11-30, from both stores, and a plain
# October run of a measured family counts in it (improving: 5 records, 44 + 7 spent).
cp "$L" "$TMP/later.jsonl"
expect 0 "an earlier plain run of improving" -- "$G" ledger add --ledger "$TMP/later.jsonl" --id early --date 2026-10-20 --experiment improving/z --cost 7
expect 0 "a plain run of no family with outcomes" -- "$G" ledger add --ledger "$TMP/later.jsonl" --id quiet --date 2026-10-21 --experiment quiet/a --cost 3
expect 0 "import into SQLite" -- "$G" ledger import "$TMP/later.jsonl" --ledger "$TMP/later.db"
families() {  # families LEDGER DATE: the report's families as sorted JSON
  "$G" report --ledger "$1" --date "$2" --format json | python3 -c "import json,sys; print(json.dumps(json.load(sys.stdin).get('families'), sort_keys=True))"
}
families "$TMP/later.jsonl" 2026-11-30 >"$TMP/fam-want.json"
python3 -c "import json,sys; f={x['family']: x for x in json.load(open(sys.argv[1]))}; assert f['improving']['records']==5 and f['improving']['spent']==51 and 'quiet' not in f, f" \
  "$TMP/fam-want.json" && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: the earlier plain run is not in its family"; }
for s in "$TMP/later.jsonl" "$TMP/later.db"; do
  families "$s" 2026-12-05 >"$TMP/fam-got.json"
  if cmp -s "$TMP/fam-want.json" "$TMP/fam-got.json"; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: $s: families a month later differ"; diff "$TMP/fam-want.json" "$TMP/fam-got.json"; fi
done

# A ledger made before outcomes existed (schema version 1, as the previous gpuplan wrote it)
# still opens: its rows read as records without outcomes, and the first writer adds the column.
python3 - "$TMP/old.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.executescript("""CREATE TABLE ledger (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, date TEXT NOT NULL,
  month TEXT NOT NULL, experiment TEXT NOT NULL, team TEXT NOT NULL DEFAULT '', user_name TEXT NOT NULL DEFAULT '',
  provider TEXT NOT NULL DEFAULT '', cost REAL NOT NULL CHECK (cost >= 0), currency TEXT NOT NULL,
  gpu_hours REAL NOT NULL DEFAULT 0 CHECK (gpu_hours >= 0), tokens REAL NOT NULL DEFAULT 0 CHECK (tokens >= 0),
  recorded_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')));
INSERT INTO ledger (id, date, month, experiment, cost, currency) VALUES ('old-1', '2026-11-02', '2026-11', 'sft/a', 10, 'USD');
PRAGMA user_version=1;""")
db.commit()
PY
expect 0 "a version-1 SQLite ledger reads" -- "$G" ledger export - --ledger "$TMP/old.db"
has out '"id":"old-1"' "its old row reads back"
expect 0 "a version-1 SQLite ledger takes a record with outcomes" -- "$G" ledger add --ledger "$TMP/old.db" --id new-1 --date 2026-11-04 --experiment sft/b --cost 12 --metric eval_loss=1.7:lower
expect 0 "both read back" -- "$G" ledger export - --ledger "$TMP/old.db"
has out '"id":"new-1".*"metrics":\[\{"better":"lower","name":"eval_loss","value":1.7\}\]' "the new record keeps its metric"
[[ $(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('PRAGMA user_version').fetchone()[0])" "$TMP/old.db") == 2 ]] &&
  pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: the old SQLite ledger was not migrated to version 2"; }
if [[ -n "${pg:-}" ]]; then
  old="oldpg_$$"
  psql -q "$base" -c "DROP DATABASE IF EXISTS $old" -c "CREATE DATABASE $old" >/dev/null 2>&1
  oldurl="postgresql:///$old?host=$GPUPLAN_TEST_POSTGRES_HOST&user=${GPUPLAN_TEST_POSTGRES_USER:-gpuplan}"
  psql -q "$oldurl" >/dev/null 2>&1 <<'SQL'
CREATE TABLE gpuplan_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO gpuplan_meta VALUES ('schema_version', '1');
CREATE TABLE gpuplan_ledger (seq BIGSERIAL PRIMARY KEY, id TEXT NOT NULL UNIQUE, date DATE NOT NULL, month TEXT NOT NULL,
  experiment TEXT NOT NULL, team TEXT NOT NULL DEFAULT '', user_name TEXT NOT NULL DEFAULT '', provider TEXT NOT NULL DEFAULT '',
  cost DOUBLE PRECISION NOT NULL CHECK (cost >= 0), currency TEXT NOT NULL, gpu_hours DOUBLE PRECISION NOT NULL DEFAULT 0,
  tokens DOUBLE PRECISION NOT NULL DEFAULT 0, recorded_at TIMESTAMPTZ NOT NULL DEFAULT now());
INSERT INTO gpuplan_ledger (id, date, month, experiment, cost, currency) VALUES ('old-1', '2026-11-02', '2026-11', 'sft/a', 10, 'USD');
SQL
  expect 0 "a version-1 PostgreSQL ledger takes a record with outcomes" -- "$G" ledger add --ledger "$oldurl" --id new-1 --date 2026-11-04 --experiment sft/b --cost 12 --metric eval_loss=1.7:lower
  expect 0 "both read back from PostgreSQL" -- "$G" ledger export - --ledger "$oldurl"
  has out '"id":"old-1"' "the old PostgreSQL row reads back"
  has out '"id":"new-1".*"eval_loss"' "the new PostgreSQL record keeps its metric"
fi

# Bad outcome flags are refused with the flag named, and nothing is written.
before=$(wc -l <"$L")
expect 2 "a metric without a direction" -- "$G" ledger add --ledger "$L" --experiment x --cost 1 --metric eval_loss=1.8
has err "--metric" "names --metric"
expect 2 "a metric value that is not a number" -- "$G" ledger add --ledger "$L" --experiment x --cost 1 --metric eval_loss=abc:lower
expect 2 "utilization above 100%" -- "$G" ledger add --ledger "$L" --experiment x --cost 1 --metric a=1:lower --utilization 130%
has err "--utilization" "names --utilization"
expect 2 "the same metric twice" -- "$G" ledger add --ledger "$L" --experiment x --cost 1 --metric a=1:lower --metric a=2:lower
has err "--metric.*given twice" "names the repeated metric"
expect 2 "an infinite metric" -- "$G" ledger add --ledger "$L" --experiment x --cost 1 --metric a=1e400:lower
expect 2 "a control character in a metric name" -- "$G" ledger add --ledger "$L" --experiment x --cost 1 --metric $'a\tb=1:lower'
[[ $(wc -l <"$L") == "$before" ]] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: a refused record was written"; }
# A hand-edited line with a bad metric is refused where it sits.
printf '%s\n' '{"date":"2026-11-10","experiment":"x","cost":1,"currency":"USD","metrics":[{"name":"a","value":"high","better":"lower"}]}' >>"$L"
expect 2 "a bad metric in the file" -- "$G" report --ledger "$L" --date 2026-11-30
has err "runs.jsonl:$((before + 1)):.*metrics" "names file, line and field"
finish
