#!/usr/bin/env bash
# The budget gate as a team runs it (issue #32): lifecycle, --changed, as-of dates, periods,
# annotations for bad specs, duplicate names, a first-run ledger, and inert names in every format.
# Usage: GPUPLAN=path/to/gpuplan gate_test.sh TESTS_DIR
set -u
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ROOT="$1/.."
EX="$ROOT/examples/ci"
S="$TMP/specs"
mkdir -p "$S"
spec() {  # spec FILE NAME [EXTRA LINES...]
  local file=$1 name=$2
  shift 2
  { printf 'name: %s\nteam: nlp\nowner: asha\nmodel: llama-3.1-8b\nmethod: qlora\nmicro_batch: 1\nseq_len: 2048\ntokens: 50M\ngpu: rtx-4090\n' "$name"
    for l in "$@"; do printf '%s\n' "$l"; done; } >"$file"
}
spec "$S/a.yaml" a
printf 'currency: USD\ntotal: 1000\nteams:\n  nlp: 1000\n' >"$TMP/budget.yaml"

# A first CI run: the JSONL ledger does not exist yet, which is an empty ledger.
expect 0 "missing JSONL ledger is empty" -- "$G" check "$S" --policy "$TMP/budget.yaml" --ledger "$TMP/new.jsonl" --date 2026-12-10
has out 'spent 0.00 USD in 2026-12' "nothing spent yet"
[[ ! -e "$TMP/new.jsonl" ]] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: reading created the ledger"; }
expect 0 "report on a missing JSONL ledger" -- "$G" report --ledger "$TMP/new.jsonl" --date 2026-12-10
expect 2 "a missing SQLite ledger is still an error" -- "$G" check "$S" --ledger "$TMP/none.db" --date 2026-12-10

# Lifecycle: a run in the ledger is not estimated again; done specs add nothing.
expect 0 "check json" -- "$G" check "$S/a.yaml" --date 2026-12-10 --format json
est=$(grep -o '"cost": [0-9.]*' "$TMP/out" | head -1 | awk '{print $2}')
L="$TMP/spend.jsonl"
"$G" ledger add --ledger "$L" --experiment a --cost "$est" --team nlp --user asha --date 2026-12-05 >/dev/null
"$G" ledger add --ledger "$L" --experiment later --cost 900 --team nlp --user asha --date 2026-12-20 >/dev/null
expect 0 "a run in the ledger counts once" -- "$G" check "$S" --policy "$TMP/budget.yaml" --ledger "$L" --date 2026-12-10
has out "estimated 0.00 USD" "its estimate is not added again"
has out "spent $(printf '%.2f' "$est") USD in 2026-12 to 2026-12-10" "records after --date are not counted"
spec "$S/a.yaml" a "status: done"
expect 0 "done spec" -- "$G" check "$S" --policy "$TMP/budget.yaml" --ledger "$L" --date 2026-12-10 --format json
has out '"rule": "status"' "done specs say what the ledger holds"
spec "$S/a.yaml" a "status: finished"
expect 2 "bad status" -- "$G" check "$S"
has err "a.yaml:10:9: field 'status': expected planned, running, done or cancelled" "status error at its line"
spec "$S/a.yaml" a

# Periods: a quarter counts November's spend in December; week and quarter are accepted.
printf 'currency: USD\nperiod: quarter\ntotal: 1000\n' >"$TMP/q.yaml"
"$G" ledger add --ledger "$L" --experiment old --cost 30 --date 2026-11-02 >/dev/null
expect 0 "quarterly policy" -- "$G" check "$S" --policy "$TMP/q.yaml" --ledger "$L" --date 2026-12-10
has out "in 2026-Q4 to 2026-12-10" "the quarter is the period"
printf 'currency: USD\nperiod: fortnight\n' >"$TMP/p.yaml"
expect 2 "unknown period" -- "$G" check "$S" --policy "$TMP/p.yaml"
has err "p.yaml:2:9: field 'period': expected week, month or quarter" "period error"

# report: per-run max_cost is per run; the per-experiment cap needs no --specs.
printf 'currency: USD\nper_experiment: 600\n' >"$TMP/pe.yaml"
"$G" ledger add --ledger "$TMP/pe.jsonl" --experiment big --cost 500 --date 2026-10-01 >/dev/null
"$G" ledger add --ledger "$TMP/pe.jsonl" --experiment big --cost 736 --date 2026-12-02 >/dev/null
expect 0 "per-experiment cap over the whole ledger" -- "$G" report --ledger "$TMP/pe.jsonl" --budget "$TMP/pe.yaml" --date 2026-12-03
has out "experiment big: spent 1236.00 USD over its whole ledger" "alerted without --specs"
has out "forecast method +none: 3 of 7 days" "no forecast from 3 days"

# --format github: every bad spec is an annotation at its line.
printf 'model: llama-3.1-8b\nmethod: qlora\ntokens: 1B\n\n\nmicro_bacth: 4\n' >"$TMP/typo.yaml"
expect 2 "bad spec, github" -- "$G" check "$TMP/typo.yaml" --format github
has out "^::error file=.*typo.yaml,line=6,col=1::field 'micro_bacth': unknown key" "annotation at the bad key"

# Two specs with one name: exit 2 naming both files, in check and diff.
mkdir -p "$TMP/dup"
spec "$TMP/dup/one.yaml" same
spec "$TMP/dup/two.yaml" same
expect 2 "duplicate names in check" -- "$G" check "$TMP/dup"
has err "two.yaml:1:7: field 'name': experiment name \"same\" is also used by .*one.yaml" "both files named"
expect 2 "duplicate names in diff" -- "$G" diff "$S" "$TMP/dup"
has err "is also used by .*one.yaml" "diff refuses them too"

# --changed: only the specs git lists against a base (git run without a shell).
if command -v git >/dev/null; then
  R="$TMP/repo"
  mkdir -p "$R/exp"
  spec "$R/exp/a.yaml" a
  spec "$R/exp/b.yaml" b
  (cd "$R" && git init -q && git -c user.email=t@t -c user.name=t add . && git -c user.email=t@t -c user.name=t commit -qm base)
  spec "$R/exp/b.yaml" b "lora_rank: 32"
  spec "$R/exp/c.yaml" c
  (cd "$R" && git add exp/c.yaml)
  cd "$R" || exit 1
  expect 0 "--changed HEAD" -- "$G" check exp --changed HEAD --date 2026-12-10 --format json
  has out '"name": "b"' "the modified spec is gated"
  has out '"name": "c"' "the added spec is gated"
  lacks out '"name": "a"' "the unchanged spec is not"
  expect 0 "--changed HEAD, table" -- "$G" check exp --changed HEAD --date 2026-12-10
  has out '2 specs of 3 changed against HEAD' "how many were left out said"
  expect 2 "--changed with an unknown base" -- "$G" check exp --changed no-such-ref
  has err "--changed.*git diff against \"no-such-ref\" failed" "git's complaint named"
  expect 2 "--changed refuses an option as a base" -- "$G" check exp --changed=--output=/tmp/x
  cd - >/dev/null || exit 1
fi

# .gpuplan.yaml: found upward from the working directory, paths relative to it; flags win.
P="$TMP/proj"
mkdir -p "$P/deep/er"
printf 'currency: USD\ntotal: 0.01\n' >"$P/tiny.yaml"
printf '# team defaults\npolicy: tiny.yaml\nledger: spend.jsonl\n' >"$P/.gpuplan.yaml"
cd "$P/deep/er" || exit 1
expect 1 "the project's policy applies" -- "$G" check "$S/a.yaml" --date 2026-12-10
has out "over the cap 0.01 USD" "policy from .gpuplan.yaml"
expect 0 "a flag wins over the config" -- "$G" check "$S/a.yaml" --policy "$TMP/budget.yaml" --date 2026-12-10
expect 0 "report takes its ledger from the config" -- "$G" report --date 2026-12-10
printf 'policy: tiny.yaml\nledgr: x.jsonl\n' >"$P/.gpuplan.yaml"
expect 2 "unknown config key" -- "$G" check "$S/a.yaml"
has err "\.gpuplan\.yaml:2:1: field 'ledgr': unknown key \(did you mean 'ledger'\?\)" "config key at file:line"
cd - >/dev/null || exit 1
printf 'policy: %s\n' "$P/tiny.yaml" >"$TMP/team.yaml"
expect 1 "--config names the file" -- "$G" check "$S/a.yaml" --config "$TMP/team.yaml" --date 2026-12-10

# Names are inert: CR/LF, HTML, links, mentions, workflow commands, formulas.
mkdir -p "$TMP/evil"
spec "$TMP/evil/x.yaml" '"x\r| y | All budget rules pass |\n::warning::forged <img src=x> @org/team"' "max_cost: 0.01"
expect 1 "markdown with a hostile name" -- "$G" check "$TMP/evil" --format markdown
has out '^### ❌ Budget gate FAILS' "verdict first"
has out '^\| `x' "the name is a code span"
lacks out '^[^`]*(<img|@org)' "no HTML or mention outside the code span"
[[ $(grep -c 'All budget rules pass' "$TMP/out") -le 1 ]] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: spoofed row"; }
expect 1 "github with a hostile name" -- "$G" check "$TMP/evil" --format github
lacks out '^::warning::' "no forged workflow command"
has out '^::stop-commands::[0-9a-f]{32}$' "the human part is fenced from the runner"
expect 1 "csv with a hostile name" -- "$G" check "$TMP/evil" --format csv
lacks out $'\r' "no CR in CSV"
spec "$TMP/evil/x.yaml" '"=HYPERLINK(1)"' "max_cost: 1000"
expect 0 "csv formula" -- "$G" check "$TMP/evil" --format csv
has out "^'=HYPERLINK" "formula made inert"

finish
