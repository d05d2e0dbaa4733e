#!/usr/bin/env bash
# End-to-end checks of `gpuplan advise`: answers from flags, an answers file (errors with
# file:line and field), a job log, and the error that names the missing flags off a terminal.
# The patterns themselves are checked against seed 001's examples in tests/core/advise_test.cpp.
# Usage: GPUPLAN=path/to/gpuplan advise_test.sh TESTS_DIR
set -u
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
CSV="$1/fixtures/jobs.csv"

cat >"$TMP/sheet.yaml" <<'EOF'
providers:
  - id: flat-cloud
    name: Flat Cloud
    currency: USD
    prices_as_of: 2026-12-01
    source: test fixture
    billing_increment_seconds: 1
    offers:
      - {id: x1, gpu: rtx-4090, gpus: 1, region: test-1, on_demand_per_gpu_hour: 1.00, spot_per_gpu_hour: 0.40}
EOF
TERMS=(--gpu rtx-4090 --catalog "$TMP/sheet.yaml" --offer flat-cloud/x1 --gpu-price 1600 --rest-of-machine 1400
  --power-price 0.15/kWh --maintenance 8% --failure-rate 5% --resale 80% --load-factor 1 --pue 1 --idle-power 0 --colo 0/kW)
STARTUP=(--gpu-hours-per-week 100 --steady-share 10% --uncertainty 50% --interruptible 60% --checkpoints yes
  --low-latency-inference no --cost-of-waiting medium --churn 6 --ops managed)

expect 0 "startup, all flags" -- "$G" advise "${TERMS[@]}" "${STARTUP[@]}" --format json
has out '"pattern": "cloud-first"' "seed 001 §13"
has out '"uncertainty_30_50": true' "the 30-50% rule named"
has out '"run_on": "spot"' "interruptible work with checkpoints on spot"
has out '"verdict": "(RENT|HYBRID|BUY)"' "buy-vs-rent's numbers"
has out '"source": "flag"' "sources said"

expect 0 "markdown" -- "$G" advise "${TERMS[@]}" "${STARTUP[@]}" --format markdown
has out '^\| workload' "split as markdown"
has out 'What would change the answer' "what would change"
expect 0 "csv is the split" -- "$G" advise "${TERMS[@]}" "${STARTUP[@]}" --format csv
has out '^workload,gpu_hours_per_week,run_on,why' "raw columns"

# A steady team that can run Slurm: owned baseline + cloud burst.
expect 0 "steady team" -- "$G" advise "${TERMS[@]}" --gpu-hours-per-week 537.6 --steady-share 80% --uncertainty 10% \
  --interruptible 50% --checkpoints yes --low-latency-inference no --cost-of-waiting low --churn 36 --ops slurm --format json
has out '"pattern": "owned baseline \+ cloud burst"' "seed 001 pattern 2"
has out '"run_on": "owned"' "baseline owned"

expect 2 "missing answers off a terminal" -- "$G" advise "${TERMS[@]}" --gpu-hours-per-week 100 </dev/null
has err 'missing answers: --steady-share, --uncertainty, --interruptible' "the missing flags named"

cat >"$TMP/answers.yaml" <<'EOF'
# answers to seed 001's questions
steady_share: 10%
uncertainty: ±50%
interruptible: 60%
checkpoints: no
low_latency_inference: no
cost_of_waiting: high
churn: 2y
ops: kubernetes
EOF
expect 0 "answers file with a job log" -- "$G" advise "${TERMS[@]}" --answers "$TMP/answers.yaml" --demand "$CSV" --format json </dev/null
has out 'answers\.yaml:5' "file:line as the source"
has out '"checkpoint_before_spot": true' "no checkpoints: the rule named"
has out '"answer": "350\.00"' "GPU-hours a week from the log"
has out '"source": "demand ' "derived from the log"
expect 0 "flags win over the file" -- "$G" advise "${TERMS[@]}" --answers "$TMP/answers.yaml" --demand "$CSV" --checkpoints yes --format json </dev/null
has out '"checkpoint_before_spot": false' "flag answer used"

# A bursty log: 64 GPUs on the first day, one on each of the next eleven. Its daily GPU-hours
# spread by 279%; question 2's ± share stops at 100% and the source says what was measured.
{
  echo "id,name,user,team,partition,submit,start,end,gpus,state"
  for d in $(seq 1 12); do
    day=$(printf '2026-10-%02d' "$d")
    echo "$d,train,a,t,gpu,${day}T01:00:00,${day}T01:00:00,${day}T21:00:00,$([ "$d" = 1 ] && echo 64 || echo 1),COMPLETED"
  done
} >"$TMP/bursty.csv"
expect 0 "a bursty log" -- "$G" advise "${TERMS[@]}" --demand "$TMP/bursty.csv" "${STARTUP[@]:6}" --format json </dev/null
has out '"answer": "100.0%"' "the spread capped"
has out 'measured 278.6%, capped at 100%' "the measured spread said"

# Two days of 12.996 h and 7.004 h: a spread of 29.96%, shown as 30.0%. The rules use the shown
# answer, as if it had been typed, so the 30-50% rule applies.
printf 'id,name,user,team,partition,submit,start,end,gpus,state\n1,t,a,t,gpu,2026-10-01T01:00:00,2026-10-01T01:00:00,2026-10-01T13:59:46,1,COMPLETED\n2,t,a,t,gpu,2026-10-02T01:00:00,2026-10-02T01:00:00,2026-10-02T08:00:14,1,COMPLETED\n' >"$TMP/edge.csv"
expect 0 "a spread on the 30% line" -- "$G" advise "${TERMS[@]}" --demand "$TMP/edge.csv" "${STARTUP[@]:6}" --format json </dev/null
has out '"answer": "30.0%"' "shown as 30.0%"
has out '"uncertainty_30_50": true' "and ruled on as 30%"

printf 'steady_share: 10%%\ninterruptible: lots\n' >"$TMP/bad.yaml"
expect 2 "bad value in the file" -- "$G" advise "${TERMS[@]}" --answers "$TMP/bad.yaml" </dev/null
has err "bad\.yaml:2:[0-9]+: field 'interruptible'" "file:line:col and field"
printf 'steady_share: 10%%\ninteruptible: 60%%\n' >"$TMP/typo.yaml"
expect 2 "unknown key" -- "$G" advise "${TERMS[@]}" --answers "$TMP/typo.yaml" </dev/null
has err "typo\.yaml:2:[0-9]+: field 'interuptible': unknown answer" "unknown key named"
expect 2 "bad flag" -- "$G" advise "${TERMS[@]}" "${STARTUP[@]:0:16}" --ops maybe
has err "field '--ops'" "flag named"
finish
