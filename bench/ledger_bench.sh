#!/usr/bin/env bash
# The budget gate on a 1M-record ledger, per store: builds a JSONL file of N records (default
# 1,000,000, ~130 MB, over the old 64 MiB limit), imports it into SQLite (and PostgreSQL when
# GPUPLAN_TEST_POSTGRES_HOST is set, as .ci/setup-spend.sh exports), checks every store gives the
# same verdict and total, and prints the wall time of `gpuplan check` on each (best of 3).
# Figures, not a test: shared machines are noisy.
# Usage: bench/ledger_bench.sh [GPUPLAN_BINARY] [N]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
G=${1:-$root/build/gpuplan}
N=${2:-1000000}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
EX="$root/examples/ci/passing"

# N records over 12 months, 8 teams, 40 users; cost 0.01..10.00 USD.
awk -v n="$N" 'BEGIN { for (i = 0; i < n; i++) printf "{\"date\":\"2026-%02d-%02d\",\"experiment\":\"exp%d\",\"team\":\"team%d\",\"user\":\"user%d\",\"cost\":%.2f,\"currency\":\"USD\",\"id\":\"r%d\"}\n", i % 12 + 1, i % 28 + 1, i % 500, i % 8, i % 40, (i % 1000 + 1) / 100, i }' >"$T/big.jsonl"
echo "ledger: $N records, $(du -m "$T/big.jsonl" | cut -f1) MB of JSON Lines"

stores=("$T/big.jsonl" "$T/big.db")
s=$(date +%s.%N)
"$G" ledger import "$T/big.jsonl" --ledger "$T/big.db" -q >/dev/null
echo "import into SQLite: $(echo "$(date +%s.%N) - $s" | bc) s"
if [[ -n "${GPUPLAN_TEST_POSTGRES_HOST:-}" ]]; then
  base="postgresql:///postgres?host=$GPUPLAN_TEST_POSTGRES_HOST&user=${GPUPLAN_TEST_POSTGRES_USER:-gpuplan}"
  psql -q "$base" -c "DROP DATABASE IF EXISTS gpuplan_bench" -c "CREATE DATABASE gpuplan_bench" >/dev/null
  pg="postgresql:///gpuplan_bench?host=$GPUPLAN_TEST_POSTGRES_HOST&user=${GPUPLAN_TEST_POSTGRES_USER:-gpuplan}"
  s=$(date +%s.%N)
  "$G" ledger import "$T/big.jsonl" --ledger "$pg" -q >/dev/null
  echo "import into PostgreSQL: $(echo "$(date +%s.%N) - $s" | bc) s"
  psql -q "$pg" -c "VACUUM ANALYZE gpuplan_ledger" >/dev/null
  stores+=("$pg")
fi

want=""
for L in "${stores[@]}"; do
  best=999
  for _ in 1 2 3; do
    s=$(date +%s.%N)
    "$G" check "$EX/experiments" --budget "$EX/budget.yaml" --ledger "$L" --date 2026-12-15 --format json >"$T/check.json" || true
    t=$(echo "$(date +%s.%N) - $s" | bc)
    best=$(echo "if ($t < $best) $t else $best" | bc)
  done
  got=$(grep -E '"(pass|message)"' "$T/check.json" | md5sum)
  [[ -z "$want" ]] && want=$got
  [[ "$got" == "$want" ]] || { echo "MISMATCH: $L gives a different verdict"; exit 1; }
  printf 'check on %-12s best of 3: %.3f s\n' "$(case $L in postgresql*) echo PostgreSQL ;; *.db) echo SQLite ;; *) echo JSONL ;; esac)" "$best"
done
echo "every store gives the same check verdict and totals"
