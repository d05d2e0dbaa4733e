#!/usr/bin/env bash
# The CI budget gate end to end: check on the example layouts in every format, the ledger
# (concurrent appends, a torn last line), diff, the experiment schema, and bad spec files.
# Usage: GPUPLAN=path/to/gpuplan check_test.sh TESTS_DIR
set -u
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ROOT="$1/.."
EX="$ROOT/examples/ci"
DATE=(--date 2026-12-02)

pass_args=("$EX/passing/experiments" --budget "$EX/passing/budget.yaml" --ledger "$EX/passing/ledger.jsonl" "${DATE[@]}")
fail_args=("$EX/failing/experiments" --budget "$EX/failing/budget.yaml" --ledger "$EX/failing/ledger.jsonl" "${DATE[@]}")

for fmt in table json markdown github; do
  expect 0 "passing layout ($fmt)" -- "$G" check "${pass_args[@]}" --format "$fmt"
  expect 1 "failing layout ($fmt)" -- "$G" check "${fail_args[@]}" --format "$fmt"
done
expect 1 "failing, github annotations" -- "$G" check "${fail_args[@]}" --format github
has out '^::error file=.*llama70b-full.yaml,line=[0-9]+::llama70b-full: max_cost: estimated' "annotation points at the spec"
has out '^::error file=.*qwen7b-lora-spot.yaml,line=[0-9]+::qwen7b-lora-spot: spot_checkpoint' "spot rule annotated"
has out 'approval: .*no approved_by' "approval rule"
expect 1 "failing, markdown" -- "$G" check "${fail_args[@]}" --format markdown
has out '^\| `llama70b-full` \| `max_cost` \| FAIL \|' "markdown table row (names as code spans)"
has out '^### ❌ Budget gate FAILS' "markdown verdict first"
expect 0 "passing, json" -- "$G" check "${pass_args[@]}" --format json
has out '"pass": true' "json verdict"
has out '"rule": "team"' "team cap rule"
has out 'spent 12.40 USD in 2026-12' "ledger spend in the period only (November ignored)"

# A spec prices exactly as the same flags do on the command line.
expect 0 "estimate with the spec's settings" -- "$G" estimate --model llama-3.1-8b --method qlora --lora-rank 16 --micro-batch 4 \
  --seq-len 2048 --checkpointing full --tokens 200M --gpu rtx-4090 --deadline 3d --format json --cost-rows 1
flag_total=$(grep -o '"total": [0-9.]*' "$TMP/out" | head -1 | awk '{printf "%.2f", $2}')
expect 0 "check json" -- "$G" check "$EX/passing/experiments/llama8b-qlora.yaml" "${DATE[@]}" --format json
spec_cost=$(grep -o '"cost": [0-9.]*' "$TMP/out" | head -1 | awk '{printf "%.2f", $2}')
if [[ -n "$flag_total" && "$flag_total" == "$spec_cost" ]]; then pass=$((pass + 1)); else
  fail=$((fail + 1)); echo "FAIL: spec and flags disagree: $spec_cost vs $flag_total"; fi

# Bad specs and policies: exit 2 with file, line and key.
cat >"$TMP/typo.yaml" <<'YAML'
model: llama-3.1-8b
methd: lora
tokens: 1B
YAML
expect 2 "unknown spec key" -- "$G" check "$TMP/typo.yaml"
has err "typo.yaml:2:1: field 'methd': unknown key \(did you mean 'method'\?\)" "spec key suggestion"
cat >"$TMP/badvalue.yaml" <<'YAML'
model: llama-3.1-8b
method: lorra
tokens: 1B
YAML
expect 2 "bad spec value" -- "$G" check "$TMP/badvalue.yaml"
has err "badvalue.yaml:2:9: field 'method': unknown value \"lorra\" \(did you mean 'lora'\?\)" "value error at its line"
cat >"$TMP/badbool.yaml" <<'YAML'
model: llama-3.1-8b
pure_bf16: yes please
YAML
expect 2 "bad boolean" -- "$G" check "$TMP/badbool.yaml"
has err "badbool.yaml:2:12: field 'pure_bf16': expected true or false" "boolean error"
cat >"$TMP/badmodel.yaml" <<'YAML'
model: llama-3.1-8x
tokens: 1B
YAML
expect 2 "unknown model in a spec" -- "$G" check "$TMP/badmodel.yaml"
has err "badmodel.yaml:1:8: field 'model'" "model error at its line"
cat >"$TMP/nowork.yaml" <<'YAML'
model: llama-3.1-8b
method: qlora
YAML
expect 1 "a spec with no run size fails the gate" -- "$G" check "$TMP/nowork.yaml"
has out "cannot be priced: no run size" "unpriced reason"
cat >"$TMP/budget.yaml" <<'YAML'
currency: USD
totl: 100
YAML
expect 2 "unknown budget key" -- "$G" check "$EX/passing/experiments" --budget "$TMP/budget.yaml"
has err "budget.yaml:2:1: field 'totl': unknown key \(did you mean 'total'\?\)" "budget key suggestion"
printf 'currency: USD\ntotal: 100 INR\n' >"$TMP/budget2.yaml"
expect 2 "budget amount in another currency" -- "$G" check "$EX/passing/experiments" --budget "$TMP/budget2.yaml"
printf 'model: llama-3.1-8b\nmodel: qwen2.5-7b\n' >"$TMP/dup.yaml"
expect 2 "repeated spec key" -- "$G" check "$TMP/dup.yaml"
has err "dup.yaml:2:1: field 'model': duplicate key" "duplicate key"

# Ledger: add, report, concurrent appends, a torn last line.
L="$TMP/spend.jsonl"
expect 0 "ledger add" -- "$G" ledger add --ledger "$L" --experiment a --cost 10 --gpu-hours 2 --team nlp --user asha --date 2026-12-01
expect 0 "ledger add INR" -- "$G" ledger add --ledger "$L" --experiment b --cost "903.957 INR" --team cv --date 2026-12-01
expect 0 "ledger report" -- "$G" ledger report --ledger "$L" --by team --format json
has out '"nlp": 10.0' "team sum"
has out '"cv": 10.0' "INR converted at the dated rate"
expect 2 "ledger add negative" -- "$G" ledger add --ledger "$L" --experiment a --cost -3
expect 2 "ledger add impossible date" -- "$G" ledger add --ledger "$L" --experiment a --cost 1 --date 2026-02-30
has err "--date.*calendar date" "date refused before anything is written"
for i in $(seq 1 40); do "$G" ledger add --ledger "$TMP/c.jsonl" --experiment "run$i" --cost 1 --date 2026-12-01 >/dev/null & done
wait
lines=$(wc -l <"$TMP/c.jsonl")
uniq_runs=$(grep -o '"experiment":"run[0-9]*"' "$TMP/c.jsonl" | sort -u | wc -l)
if [[ $lines -eq 40 && $uniq_runs -eq 40 ]]; then pass=$((pass + 1)); else
  fail=$((fail + 1)); echo "FAIL: concurrent appends: $lines lines, $uniq_runs distinct"; fi
expect 0 "concurrent ledger parses" -- "$G" ledger report --ledger "$TMP/c.jsonl" --format json
has out '"total": 40.0' "every record counted once"
printf '{"date":"2026-12-01","experiment":"torn","co' >>"$TMP/c.jsonl"
expect 0 "torn last line is skipped" -- "$G" ledger report --ledger "$TMP/c.jsonl" --format json
has err "torn last record" "torn line reported"
has out '"total": 40.0' "torn record not merged"
expect 0 "append after a torn line cuts it off" -- "$G" ledger add --ledger "$TMP/c.jsonl" --experiment after --cost 2 --date 2026-12-01
expect 0 "the ledger reads whole again" -- "$G" ledger report --ledger "$TMP/c.jsonl" --format json
has out '"total": 42.0' "every committed record kept, the torn one gone"
printf '{"date":"2026-12-01","experiment":"torn","co\n' >>"$TMP/c.jsonl"
expect 2 "an invalid line mid-file is an error" -- "$G" ledger report --ledger "$TMP/c.jsonl"
has err "c.jsonl:42:1: not valid JSON" "names the invalid line"
printf '{"date":"2026-13-01","experiment":"x","cost":1,"currency":"USD"}\n' >"$TMP/bad.jsonl"
expect 2 "bad ledger date" -- "$G" ledger report --ledger "$TMP/bad.jsonl"
has err "bad.jsonl:1:1: field 'date'" "ledger field error"

# diff and schema.
expect 0 "diff" -- "$G" diff "$EX/passing/experiments" "$EX/failing/experiments" --format json
has out '"change": "added"' "added experiment"
has out '"change": "removed"' "removed experiment"
has out '"total_delta": [0-9]' "total delta"
expect 0 "schema experiment" -- "$G" schema experiment
if cmp -s "$TMP/out" "$ROOT/schemas/experiment.schema.json"; then pass=$((pass + 1)); else
  fail=$((fail + 1)); echo "FAIL: schemas/experiment.schema.json is stale: run gpuplan schema experiment > schemas/experiment.schema.json"; fi

finish
