#!/usr/bin/env bash
# --owned GPU[xN] in estimate, compare and plan (issue #33): the owner's GPUs as an offer beside
# the rented ones, priced at buy-vs-rent's owned cost per GPU-hour. The done-when: compare's cost
# per step and per run for the owned card is buy-vs-rent's figure times the GPU-hours, to the cent.
# Usage: GPUPLAN=path/to/gpuplan owned_offer_test.sh TESTS_DIR
set -u
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# One 4090 in a desk-side box, busy 30% of the month, every owner's figure stated.
COST=(--gpu-price 1800 --rest-of-machine 1200 --gpus-per-build 1 --power-price 0.30/kWh --load-factor 1.0 --idle-power 10%
      --pue 1.0 --maintenance 5% --failure-rate 2% --resale 60% --horizon 3y)
JOB=(--model llama-3.1-8b --method qlora --tokens 200M)
get() { python3 -c "import json,sys; d=json.load(open('$TMP/'+sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }
# within A B TOLERANCE DESCRIPTION
within() {
  if python3 -c "import sys; a,b,t=map(float,sys.argv[1:4]); sys.exit(0 if abs(a-b) < t else 1)" "$1" "$2" "$3"; then pass=$((pass + 1));
  else fail=$((fail + 1)); echo "FAIL: $4: $1 vs $2"; fi
}

expect 0 "buy-vs-rent for one 4090 at 30%" -- "$G" buy-vs-rent --gpu rtx-4090 --count 1 --utilization 30% "${COST[@]}" --format json
cp "$TMP/out" "$TMP/bvr.json"
H=$(get bvr.json "[o for o in d['options'] if o['option'] == 'buy'][0]['owned_cost_per_gpu_hour']")
HM=$(get bvr.json "[o for o in d['options'] if o['option'] == 'buy'][0]['owned_marginal_cost_per_gpu_hour']")

expect 0 "compare with the owned 4090" -- "$G" compare "${JOB[@]}" --owned rtx-4090 --owned-utilization 30% "${COST[@]}" --format json
cp "$TMP/out" "$TMP/cmp.json"
has cmp.json '"provider": "owned"' "the owned card is listed"
has cmp.json '"provider": "runpod"' "beside rented offers"
OWN="[o for o in d['offers'] if o['provider'] == 'owned'][0]"
STEP_GPU_H=$(get cmp.json "$OWN['gpus'] * $OWN['step_seconds'] / 3600")
within "$(get cmp.json "$OWN['per_step']")" "$(python3 -c "print($H * $STEP_GPU_H)")" 0.005 "cost per step = buy-vs-rent's owned GPU-hour x the step's GPU-hours"
within "$(get cmp.json "$OWN['total']")" "$(python3 -c "print($H * $(get cmp.json "$OWN['gpu_hours']"))")" 0.005 "cost per run = the same x the run's GPU-hours"
within "$(get cmp.json "d['owned']['per_gpu_hour']")" "$H" 1e-9 "one owned cost per GPU-hour"
# The same engine: a rented 4090 runs the job in the same step time and memory.
RENTED="[o for o in d['offers'] if o['gpu'] == 'rtx-4090' and o['provider'] != 'owned' and o['gpus'] == 1][0]"
within "$(get cmp.json "$OWN['step_seconds']")" "$(get cmp.json "$RENTED['step_seconds']")" 1e-9 "step time as on a rented 4090"
within "$(get cmp.json "$OWN['per_gpu_bytes']")" "$(get cmp.json "$RENTED['per_gpu_bytes']")" 0.5 "memory as on a rented 4090"

expect 0 "marginal cost" -- "$G" compare "${JOB[@]}" --owned rtx-4090 --owned-utilization 30% --owned-marginal "${COST[@]}" --format json
cp "$TMP/out" "$TMP/marg.json"
within "$(get marg.json "d['owned']['per_gpu_hour']")" "$HM" 1e-9 "marginal: buy-vs-rent's power and maintenance per GPU-hour"
within "$(get marg.json "$OWN['per_step']")" "$(python3 -c "print($HM * $STEP_GPU_H)")" 0.005 "marginal cost per step"

expect 0 "two owned cards" -- "$G" compare "${JOB[@]}" --owned rtx-4090x2 --owned-utilization 30% "${COST[@]}" --format json
has out '"offer": "rtx-4090-x2"' "GPU[xN]: one machine of two"

expect 0 "table" -- "$G" compare "${JOB[@]}" --owned rtx-4090 --owned-utilization 30% "${COST[@]}"
has out '^owned +rtx-4090-x1' "a row for the owned card"
has out 'owned/rtx-4090-x1 \(1 GPU you own, busy 30%' "a note says how the owned GPU-hour is priced"

expect 0 "estimate with the owned 4090" -- "$G" estimate "${JOB[@]}" --gpu h100-sxm --owned rtx-4090 --owned-utilization 30% "${COST[@]}" --format json
has out '"provider": "owned"' "estimate lists it"
expect 0 "plan with the owned 4090" -- "$G" plan "${JOB[@]}" --owned rtx-4090 --owned-utilization 30% "${COST[@]}" --format json
has out '"offer": "owned/rtx-4090-x1"' "plan reports the owned offer"

expect 2 "an owner's flag without --owned" -- "$G" compare "${JOB[@]}" --power-price 0.30/kWh
has err -- "--power-price.*--owned" "names the flag and what it needs"
expect 2 "--owned without its use" -- "$G" compare "${JOB[@]}" --owned rtx-4090
has err -- "--owned-utilization" "asks for the share of the month"
expect 2 "--tax would tax the owner" -- "$G" compare "${JOB[@]}" --owned rtx-4090 --owned-utilization 30% --tax 18%
expect 2 "unknown GPU" -- "$G" compare "${JOB[@]}" --owned rtx-4099 --owned-utilization 30%
has err "did you mean" "suggests the nearest"
finish
