#!/usr/bin/env bash
# End-to-end checks of `gpuplan demand` on the sacct and CSV fixtures (hand-computed in
# tests/core/demand_test.cpp) and of `buy-vs-rent --demand` fed a job log.
# Usage: GPUPLAN=path/to/gpuplan demand_test.sh TESTS_DIR
set -u
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
SACCT="$1/fixtures/sacct_jobs.txt"
CSV="$1/fixtures/jobs.csv"

expect 0 "csv json" -- "$G" demand "$CSV" --format json
has out '"format": "csv"' "CSV detected by its header"
has out '"gpu_hours": 100\.0' "100 GPU-hours"
has out '"gpu_hours_per_week": 350\.0' "350 a week"
has out '"peak_gpus": 6' "peak 6"
has out '"baseline_gpus": 1\.0' "baseline: p50 of GPUs busy"
has out '"queue_p95_hours": 1\.(85|849)' "queue p95"
has out '"failure_rate": 0\.25' "one of four failed"
has out '"retry_rate": 1\.0' "and was retried"

expect 0 "sacct table" -- "$G" demand "$SACCT" --no-color
has out '^Demand from sacct' "sacct detected by its header"
has out 'GPU-hours per week +350\.0' "the running job counted to the cut-off"
has out 'GPUs busy per 2 hours' "concurrency chart"
has out '█' "bars drawn"
has out 'By team' "by team"
has out '4 job step line' "steps left out, said"
has out '1 running job' "running jobs said"
expect 0 "csv is the daily series" -- "$G" demand "$CSV" --format csv
has out '^day,gpu_hours' "raw columns"
has out '^2026-03-02,76\.000' "76 GPU-h on 2 March"
expect 0 "baseline percentile" -- "$G" demand "$CSV" --baseline-percentile 75% --format json
has out '"baseline_gpus": 2\.0' "p75 of GPUs busy"

expect 0 "buy-vs-rent from sacct" -- "$G" buy-vs-rent --gpu h100-sxm --demand "$SACCT" --gpu-price 25000 --format json
has out '"source": "jobs"' "demand from the jobs"
has out '"model": "jobs"' "the jobs are replayed whole"
has out '"gpu_hours_per_month": 1520\.8' "100 GPU-h over 2 days x 730/48, as demand reports it"

printf 'JobID|Start|End|AllocTRES|State\n1|2026-03-02T00:00:00|2026-03-01T00:00:00|gres/gpu=1|COMPLETED\n' >"$TMP/bad.txt"
expect 2 "end before start" -- "$G" demand "$TMP/bad.txt"
has err 'bad\.txt:2:[0-9]+: field .End.: ends before it starts' "file:line:col and field"
printf 'start,end,gpus\n2026-03-02T00:00:00,2026-03-02T01:00:00,two\n' >"$TMP/bad.csv"
expect 2 "bad gpus" -- "$G" demand "$TMP/bad.csv"
has err "bad\.csv:2:[0-9]+: field 'gpus'" "gpus named"
expect 2 "missing file" -- "$G" demand "$TMP/nope.txt"

# Job logs stream: no whole-file cap (a 70 MB log passes the old 64 MiB limit), a 1 MiB line cap.
{ printf 'start,end,gpus,user,name,state\n'
  yes '2026-03-02T00:00:00,2026-03-02T01:00:00,1,alice,train,COMPLETED' | head -n 1100000; } >"$TMP/big.csv"
expect 0 "a log over 64 MiB is read" -- "$G" demand "$TMP/big.csv" --format json
has out '"jobs": 1100000' "every job counted"
rm -f "$TMP/big.csv"
{ printf 'start,end,gpus\n2026-03-02T00:00:00,2026-03-02T01:00:00,1\n'; head -c 1100000 /dev/zero | tr '\0' x; } >"$TMP/long.csv"
expect 2 "a line over the cap" -- "$G" demand "$TMP/long.csv"
has err 'long\.csv:3:1: line longer than the 1024 KiB line limit' "file:line of the long line"
printf '\xef\xbb\xbfstart,end,gpus\r\n2026-03-02T00:00:00,2026-03-02T02:00:00,3\r\n' >"$TMP/crlf.csv"
expect 0 "BOM and CRLF" -- "$G" demand "$TMP/crlf.csv" --format json
has out '"gpu_hours": 6\.0' "3 GPUs x 2 h"
expect 2 "bad percentile" -- "$G" demand "$CSV" --baseline-percentile 150%
finish
