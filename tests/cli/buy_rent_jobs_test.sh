#!/usr/bin/env bash
# Issue #33's "done when": on a generated 3-month log of 1-, 8- and 16-GPU jobs, buy-vs-rent,
# replay (--burst-after 0, its default fleets) and advise give one verdict, one owned count and
# one monthly cost (within 1%; they share the job-level replay, so they agree to the cent).
# Usage: GPUPLAN=path/to/gpuplan buy_rent_jobs_test.sh TESTS_DIR
set -u
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

cat >"$TMP/sheet.yaml" <<'EOF2'
providers:
  - id: flat-cloud
    name: Flat Cloud
    currency: USD
    prices_as_of: 2026-12-01
    source: test fixture
    billing_increment_seconds: 1
    offers:
      - {id: a100-x1, gpu: a100-80gb-sxm, gpus: 1, region: test-1, on_demand_per_gpu_hour: 2.00}
      - {id: a100-x8, gpu: a100-80gb-sxm, gpus: 8, region: test-1, on_demand_per_gpu_hour: 1.80}
EOF2
# 13 weeks from Monday 2026-03-02: every day an 8-GPU job for 20 h and four 1-GPU jobs of 3 h;
# every Wednesday a 16-GPU job for 12 h. A steady baseline and wide bursts that 8 owned GPUs cannot take.
python3 - "$TMP/jobs.csv" <<'PY'
import sys, datetime as dt
t0 = dt.datetime(2026, 3, 2)
rows = ["id,team,submit,start,end,gpus"]
f = lambda t: t.strftime("%Y-%m-%dT%H:%M:%S")
n = 0
def job(team, start, hours, gpus):
    global n
    n += 1
    rows.append(f"j{n},{team},{f(start)},{f(start)},{f(start + dt.timedelta(hours=hours))},{gpus}")
for day in range(91):
    d = t0 + dt.timedelta(days=day)
    job("train", d, 20, 8)
    for k in range(4):
        job("research", d + dt.timedelta(hours=2 + 5 * k), 3, 1)
    if day % 7 == 2:
        job("big", d + dt.timedelta(hours=6), 12, 16)
open(sys.argv[1], "w").write("\n".join(rows) + "\n")
PY
TERMS=(--gpu a100-80gb-sxm --catalog "$TMP/sheet.yaml" --gpu-price 15000 --power-price 0.10/kWh --horizon 3y)
get() { python3 -c "import json,sys; d=json.load(open('$TMP/'+sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

expect 0 "buy-vs-rent from the jobs" -- "$G" buy-vs-rent "${TERMS[@]}" --demand "$TMP/jobs.csv" --format json
cp "$TMP/out" "$TMP/bvr.json"
has out '"model": "jobs"' "job-level model"
has out '"verdict": "HYBRID"' "own the baseline, rent the 16-GPU bursts"
expect 0 "replay, burst at once" -- "$G" replay "$TMP/jobs.csv" "${TERMS[@]}" --burst-after 0 --max-p95-queue 1h --format json
cp "$TMP/out" "$TMP/replay.json"
has out '"burst_on_demand_offer": "flat-cloud/a100-x8 \(test-1\)"' "the burst offer named"
expect 0 "advise from the same log" -- "$G" advise "${TERMS[@]}" --demand "$TMP/jobs.csv" --interruptible 20% --checkpoints yes \
  --low-latency-inference no --cost-of-waiting medium --churn 36 --ops slurm --format json
cp "$TMP/out" "$TMP/advise.json"

V=$(get bvr.json "d['verdict']"); K=$(get bvr.json "d['owned_gpus']"); T=$(get bvr.json "d['monthly']['verdict']")
RV=$(get replay.json "d['cheapest']['verdict']"); RK=$(get replay.json "d['cheapest']['owned_gpus']")
RT=$(get replay.json "d['cheapest']['per_month']['total']")
AV=$(get advise.json "d['training']['verdict']"); AK=$(get advise.json "d['training']['owned_gpus']")
AT=$(get advise.json "d['training']['chosen_per_month']")
echo "buy-vs-rent $V $K $T; replay $RV $RK $RT; advise $AV $AK $AT"
agree() {
  if python3 -c "import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); sys.exit(0 if abs(a-b) <= 0.01*max(abs(a),abs(b)) else 1)" "$1" "$2" &&
     [[ $3 == "$4" && $5 == "$6" ]]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $7"; fi
}
agree "$T" "$RT" "$V" "$RV" "$K" "$RK" "buy-vs-rent and replay: one verdict, fleet and cost"
agree "$T" "$AT" "$V" "$AV" "$K" "$AK" "buy-vs-rent and advise: one verdict, fleet and cost"

# One "per month" for the log: demand, replay and buy-vs-rent report the same GPU-hours a month.
expect 0 "demand" -- "$G" demand "$TMP/jobs.csv" --format json
cp "$TMP/out" "$TMP/demand.json"
DH=$(get demand.json "round(d['gpu_hours_per_month'], 1)"); BH=$(get bvr.json "round(d['demand']['gpu_hours_per_month'], 1)")
agree "$DH" "$BH" x x x x "demand and buy-vs-rent: one GPU-hours a month ($DH, $BH)"
finish
