#!/usr/bin/env bash
# End-to-end checks of `gpuplan replay` on the four-job log simulated by hand in
# tests/core/fleet_replay_test.cpp, priced on a made-up per-second sheet with round numbers.
# Usage: GPUPLAN=path/to/gpuplan replay_test.sh TESTS_DIR
set -u
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cat >"$TMP/sheet.yaml" <<'EOF'
providers:
  - id: flat-cloud
    name: Flat Cloud
    currency: USD
    prices_as_of: 2026-12-01
    source: test fixture
    billing_increment_seconds: 1
    offers:
      - {id: x1, gpu: rtx-4090, gpus: 1, region: test-1, on_demand_per_gpu_hour: 2.00, spot_per_gpu_hour: 0.80}
EOF
# A and B (teams a, b) run 0-2 h and 0-3 h on one GPU; C (a, 2 GPUs) and D (b, 1 GPU) are
# submitted at 1 h and run an hour each.
cat >"$TMP/jobs.csv" <<'EOF'
id,team,partition,submit,start,end,gpus
A,a,gpu,2026-03-02T00:00:00,2026-03-02T00:00:00,2026-03-02T02:00:00,1
B,b,gpu,2026-03-02T00:00:00,2026-03-02T00:00:00,2026-03-02T03:00:00,1
C,a,gpu,2026-03-02T01:00:00,2026-03-02T03:00:00,2026-03-02T04:00:00,2
D,b,gpu,2026-03-02T01:00:00,2026-03-02T04:00:00,2026-03-02T05:00:00,1
EOF
TERMS=(--gpu rtx-4090 --catalog "$TMP/sheet.yaml" --offer flat-cloud/x1 --gpu-price 1600 --rest-of-machine 1400
  --power-price 0.15/kWh --maintenance 8% --failure-rate 5% --resale 80% --load-factor 1 --pue 1 --idle-power 0 --colo 0/kW)

# Two owned GPUs, no burst: waits 0, 0, 2, 3 h -> p95 2.85 h, 80% owned use; misses a 2 h target.
expect 1 "no fleet meets 2h" -- "$G" replay "$TMP/jobs.csv" "${TERMS[@]}" --owned 2 --burst-after never --max-p95-queue 2h --format json
has out '"queue_p95_hours": 2\.8(5|49)' "p95 by hand"
has out '"owned_utilization": 0\.8' "8 GPU-h on 2 GPUs over 5 h"
has out '"cheapest": null' "none meets the target"

# Burst after 1.5 h: C to spot, D on-demand; cost as in fleet_replay_test.cpp.
expect 0 "burst meets 2h" -- "$G" replay "$TMP/jobs.csv" "${TERMS[@]}" --owned 2 --burst-after 1.5h,never --max-p95-queue 2h \
  --checkpointing-teams a --format json
has out '"burst_spot_gpu_hours": 2\.0' "C on spot"
has out '"burst_on_demand_gpu_hours": 1\.0' "D on-demand"
# Money is spread over the log's own 5 h (first start to last end), whatever the fleet.
has out '"spot": 233\.6' "1.60 x 730 / 5"
has out '"on_demand": 292\.0' "2.00 x 730 / 5"
has out '"burst_spot_offer": "flat-cloud/x1 \(test-1\)"' "the spot burst's offer named"
has out '"verdict": "HYBRID"' "owned and burst: the verdict buy-vs-rent would give"
has out '"owned": 155\.6[23]' "option_cost: 106.36 fixed + 5 GPU-h x 730/5 x 0.45 kW x 0.15"

expect 0 "table" -- "$G" replay "$TMP/jobs.csv" "${TERMS[@]}" --owned 0:2:1 --burst-after 0,1.5h,never --max-p95-queue 2h --no-color
has out '^Fleet replay of 4 jobs' "title"
has out '<- cheapest' "cheapest marked"
has out 'Queue by team' "per-team queue"
has out 'no team or partition is marked --checkpointing-teams' "spot rule named"
expect 2 "--checkpointing is activation recompute elsewhere, not a team list" -- "$G" replay "$TMP/jobs.csv" "${TERMS[@]}" \
  --checkpointing a --max-p95-queue 2h
expect 0 "csv" -- "$G" replay "$TMP/jobs.csv" "${TERMS[@]}" --owned 0,2 --max-p95-queue 2h --format csv
has out '^owned_gpus,burst_after_seconds' "raw columns"
expect 0 "priority" -- "$G" replay "$TMP/jobs.csv" "${TERMS[@]}" --owned 2 --burst-after never --priority b=10 --max-p95-queue 3h --format json
has out '"queue_max_hours": 2\.0' "D jumps ahead of C: waits 2 h and 1 h"

expect 2 "unknown team" -- "$G" replay "$TMP/jobs.csv" "${TERMS[@]}" --quota nope=4 --max-p95-queue 2h
has err "field '--quota'.*nope" "flag named"
expect 2 "bad range" -- "$G" replay "$TMP/jobs.csv" "${TERMS[@]}" --owned 8:2:1 --max-p95-queue 2h
has err "field '--owned'" "flag named"
expect 2 "bad wait" -- "$G" replay "$TMP/jobs.csv" "${TERMS[@]}" --burst-after soon --max-p95-queue 2h
expect 2 "no demand flags here" -- "$G" replay "$TMP/jobs.csv" "${TERMS[@]}" --gpu-hours-per-month 5 --max-p95-queue 2h

# sacct's own format (steps, a running job, gres/gpu:a100=N): replayed like the CSV.
expect 0 "sacct log" -- "$G" replay "$1/fixtures/sacct_jobs.txt" "${TERMS[@]}" --owned 0:8:4 --max-p95-queue 4h --format json
has out '"log_format": "sacct"' "sacct read"
has out '"jobs": 4' "the allocation lines only"

finish
