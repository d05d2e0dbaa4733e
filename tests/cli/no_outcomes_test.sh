#!/usr/bin/env bash
# Records without measured outcomes render exactly as before outcomes existed: every output of
# `report` (table, JSON, CSV, HTML), `ledger report`, `ledger export` and `ledger add` over a
# ledger with none is compared byte for byte with tests/fixtures/no_outcomes/, which was
# captured from the binary before outcomes were added (commit 19cc376).
# Usage: no_outcomes_test.sh TESTS_DIR [--capture]   (--capture rewrites the fixtures)
source "$(dirname "$0")/lib.sh"
GOLD="$1/fixtures/no_outcomes"
EX="$1/../examples/ci"
OUT="$TMP/now"
mkdir -p "$OUT"

L="$TMP/spend.jsonl"
add() { "$G" ledger add --ledger "$L" --id "$1" --date "$2" --experiment "$3" --team "$4" --user "$5" --cost "$6" ${7:+--tokens "$7"} ${8:+--gpu-hours "$8"} --format json; }
{
  add r1 2026-11-20 old-run nlp asha 400
  add r2 2026-12-01 sft/lr-1 nlp asha 120.5 2B 12
  add r3 2026-12-03 sft/lr-2 nlp asha 80.25 1B 8
  add r4 2026-12-04 vit-pretrain cv ravi "5000 INR"
  add r5 2026-12-08 vit-pretrain cv ravi 210 "" 30
} >"$OUT/add.json"
cat >"$TMP/budget.yaml" <<'YAML'
currency: USD
total: 700
teams:
  nlp: 150
users:
  asha: 300
YAML
"$G" ledger import "$L" --ledger "$TMP/spend.db" --format json | sed "s|$TMP|TMP|g" >"$OUT/import.json"
for store in "$L" "$TMP/spend.db"; do
  tag=$([[ $store == *.db ]] && echo sqlite || echo jsonl)
  for fmt in table json csv; do
    "$G" report --ledger "$store" --policy "$TMP/budget.yaml" --date 2026-12-10 --format "$fmt" >"$OUT/report.$tag.$fmt"
  done
  "$G" report --ledger "$store" --policy "$TMP/budget.yaml" --date 2026-12-10 --html "$OUT/report.$tag.html" >/dev/null
  "$G" ledger report --ledger "$store" --format json >"$OUT/ledger-report.$tag.json"
  "$G" ledger report --ledger "$store" --by team >"$OUT/ledger-report.$tag.table"
  "$G" ledger export - --ledger "$store" >"$OUT/export.$tag.jsonl"
done
"$G" report --ledger "$EX/passing/ledger.jsonl" --policy "$EX/passing/budget.yaml" --specs "$EX/passing/experiments" --date 2026-06-15 \
  --format json >"$OUT/example.json"
"$G" report --ledger "$EX/passing/ledger.jsonl" --policy "$EX/passing/budget.yaml" --specs "$EX/passing/experiments" --date 2026-06-15 \
  --html "$OUT/example.html" >/dev/null

if [[ "${2:-}" == --capture ]]; then
  rm -rf "$GOLD" && cp -r "$OUT" "$GOLD" && echo "captured $(ls "$GOLD" | wc -l) files into $GOLD"
  exit 0
fi
for f in "$GOLD"/*; do
  name=$(basename "$f")
  if cmp -s "$f" "$OUT/$name"; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: $name differs from the output before outcomes existed"; diff "$f" "$OUT/$name" | head -8
  fi
done
[[ $(ls "$GOLD" | wc -l) -ge 18 ]] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: fewer fixtures than outputs"; }
finish
