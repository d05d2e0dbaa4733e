#!/usr/bin/env bash
# One job, one set of numbers, whichever command asks (issue 14): plan's chosen configuration
# is run through estimate, compare and check, and each must report the same cost, wall time
# and memory to the cent and the second. Also the inconsistencies this replaced.
# Usage: GPUPLAN=path/to/gpuplan engine_test.sh TESTS_DIR
set -u
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
command -v python3 >/dev/null || { echo "python3 is needed to read the JSON"; exit 1; }
jget() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {"d": d}))' "$TMP/$1" "$2"; }
same() {  # same DESCRIPTION A B
  if [[ "$2" == "$3" ]]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1: '$2' vs '$3'"; fi
}

for job in "llama-3.1-8b lora 1B 500GB" "qwen2.5-7b qlora 300M 0GB" "llama-3.2-3b full 2B 50GB"; do
  read -r model method tokens data <<<"$job"
  JOB=(--model "$model" --tokens "$tokens" --dataset-size "$data" --methods "$method" --pricings on-demand,spot)
  expect 0 "plan $job" -- "$G" plan "${JOB[@]}" --format json
  cp "$TMP/out" "$TMP/plan.json"
  p() { jget plan.json "d['plan']['$1']"; }
  CFG=(--model "$model" --method "$(p method)" --precision "$(p precision)" --optimizer "$(p optimizer)"
       --checkpointing "$(p checkpointing)" --attention "$(p attention)" --sharding "$(p sharding)"
       --micro-batch "$(p micro_batch)" --grad-accum "$(p grad_accum)" --gpus "$(p gpus)"
       --tokens "$tokens" --dataset-size "$data" --pricing "$(p pricing)")
  offer="$(p provider)/$(p offer)"
  cost=$(jget plan.json "round(d['plan']['cost'], 2)")
  wall=$(jget plan.json "round(d['plan']['wall_seconds'])")
  mem=$(p per_gpu_bytes)

  expect 0 "estimate $job" -- "$G" estimate "${CFG[@]}" --offer "$offer" --format json
  same "estimate cost ($job)" "$cost" "$(jget out "round(d['offers'][0]['total'], 2)")"
  same "estimate wall ($job)" "$wall" "$(jget out "round(d['offers'][0]['wall_seconds'])")"
  same "estimate memory ($job)" "$mem" "$(jget out "d['offers'][0]['per_gpu_bytes']")"

  expect 0 "compare $job" -- "$G" compare "${CFG[@]}" --offer "$offer" --format json
  same "compare cost ($job)" "$cost" "$(jget out "round(d['offers'][0]['total'], 2)")"
  same "compare wall ($job)" "$wall" "$(jget out "round(d['offers'][0]['wall_seconds'])")"

  mkdir -p "$TMP/specs"
  {
    echo "name: consistency"
    for ((i = 0; i < ${#CFG[@]}; i += 2)); do echo "${CFG[i]#--}: \"${CFG[i+1]}\""; done
    echo "offer: \"$offer\""
  } >"$TMP/specs/job.yaml"
  expect 0 "check $job" -- "$G" check "$TMP/specs" --format json --date 2026-12-01
  same "check cost ($job)" "$cost" "$(jget out "round(d['experiments'][0]['cost'], 2)")"
  same "check wall ($job)" "$wall" "$(jget out "round(d['experiments'][0]['wall_seconds'])")"
done

# --dataset-size reaches plan's bill, and --mfu moves the plan.
BASE=(--model llama-3.1-8b --tokens 1B --methods lora --pricings on-demand --offer runpod/l40s-x1 --max-nodes 1)
expect 0 "plan without data" -- "$G" plan "${BASE[@]}" --format json
c0=$(jget out "d['plan']['cost']")
expect 0 "plan with 5000GB of data" -- "$G" plan "${BASE[@]}" --dataset-size 5000GB --format json
c1=$(jget out "d['plan']['cost']")
if python3 -c "import sys; sys.exit(0 if $c1 > $c0 else 1)"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: storage not in plan's cost"; fi
expect 0 "plan --mfu 10%" -- "$G" plan "${BASE[@]}" --mfu 10% --format json
m10=$(jget out "d['plan']['cost']")
expect 0 "plan --mfu 90%" -- "$G" plan "${BASE[@]}" --mfu 90% --format json
m90=$(jget out "d['plan']['cost']")
if python3 -c "import sys; sys.exit(0 if $m10 > 2 * $m90 else 1)"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: --mfu ignored by plan ($m10 vs $m90)"; fi

# Singular flags narrow plan's search; giving both spellings is refused.
expect 0 "plan --method qlora --pricing on-demand" -- "$G" plan --model llama-3.1-8b --tokens 1B --method qlora --pricing on-demand --format json
same "plan keeps --method" "qlora" "$(jget out "d['plan']['method']")"
same "plan keeps --pricing" "on-demand" "$(jget out "d['plan']['pricing']")"
expect 2 "--method and --methods" -- "$G" plan --model llama-3.1-8b --tokens 1B --method qlora --methods lora
expect 0 "plan defaults to on-demand" -- "$G" plan --model llama-3.1-8b --tokens 1B --format json
same "plan default pricing" "on-demand" "$(jget out "d['plan']['pricing']")"

# Say what happened: a job that does not fit is "does not fit", an unsupported precision is exit 2.
expect 1 "does not fit on h100" -- "$G" estimate --model llama-3.1-70b --method full --gpu h100-sxm --gpus 1
has out 'no offer can run this job: does not fit: needs [0-9]+ GiB per GPU' "does not fit, not 'no offer'"
lacks out 'no offer in the loaded sheets' "h100 offers exist"
expect 2 "fp8 on an A100" -- "$G" estimate --model llama-3.1-8b --method lora --precision fp8 --gpu a100-80gb-sxm
has err "a100-80gb-sxm has no fp8" "card named"
expect 0 "ddp re-sharded to fit is shown" -- "$G" estimate --model llama-3.1-8b --method full --sharding ddp --gpus 8 --gpu h100-sxm
has out '8 fsdp\*' "table marks the change"
has out 'priced with the model states sharded' "note says so"

# One parser per value kind: the same spellings in every command.
expect 0 "estimate --quant none" -- "$G" estimate --model llama-3.1-8b --method inference --quant none --gpu l4
expect 2 "unknown quant lists the core's choices" -- "$G" estimate --model llama-3.1-8b --method inference --quant int3 --gpu l4
has err "expected one of: native, fp32, fp16, bf16, fp8, int8, nf4, fp4, int4-gptq, int4-awq" "choices from the enum table"

# Tables fit 100 columns unless --wide; CSV carries raw numbers with units in the header.
expect 0 "compare table" -- "$G" compare --model llama-3.1-8b --method lora --tokens 1B --no-color
# Characters, not bytes (a cut name ends in a 3-byte ellipsis), up to the first blank line.
width=$(python3 -c 'import sys; t=open(sys.argv[1], encoding="utf-8").read().split("\n\n")[0]; print(max(len(l) for l in t.split("\n")))' "$TMP/out")
if [[ $width -le 100 ]]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: compare table is $width columns wide"; fi
expect 0 "compare --wide" -- "$G" compare --model llama-3.1-8b --method lora --tokens 1B --no-color --wide
has out 'gpu-h100-sxm-1gpu-16vcpu-200gb-eu-north1' "--wide keeps whole ids"
expect 0 "compare csv" -- "$G" compare --model llama-3.1-8b --method lora --tokens 1B --format csv
has out '^provider,offer,gpu,gpus,sharding,tokens_per_second,mfu,per_hour_USD,per_million_tokens_USD,wall_seconds,total_USD' "unit-named header"
lacks out '[0-9]h,|[0-9]%|█' "no display spellings in CSV"


# The input pipeline feeds the one evaluation: storage slower than the GPUs read stretches the
# wall time and cost the same way in plan, estimate, compare and check, and is flagged.
SLOW=(--model llama-3.1-8b --method lora --gpus 1 --tokens 200M --pricing on-demand --offer runpod/l40s-x1)
expect 0 "estimate, storage unbounded" -- "$G" estimate "${SLOW[@]}" --format json
fast_wall=$(jget out "round(d['offers'][0]['wall_seconds'])")
need=$(jget out "d['offers'][0]['pipeline']['storage_bytes_per_second']")
same "no bound without a limit" "None" "$(jget out "d['offers'][0]['pipeline']['bound']")"
bw="$(python3 -c "print(int($need / 4))")B"
expect 0 "estimate, slow storage" -- "$G" estimate "${SLOW[@]}" --storage-bandwidth "$bw" --format json
slow_wall=$(jget out "round(d['offers'][0]['wall_seconds'])")
slow_cost=$(jget out "round(d['offers'][0]['total'], 2)")
same "estimate flags storage" "storage" "$(jget out "d['offers'][0]['pipeline']['bound']")"
if python3 -c "import sys; sys.exit(0 if $slow_wall > 3.9 * $fast_wall else 1)"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: slow storage did not stretch the wall time ($fast_wall -> $slow_wall)"; fi
expect 0 "estimate table warns" -- "$G" estimate "${SLOW[@]}" --storage-bandwidth "$bw" --no-color
has out 'warning: the input pipeline \(storage\), not the GPUs, bounds this run' "warning under the table"
expect 0 "compare, slow storage" -- "$G" compare "${SLOW[@]}" --storage-bandwidth "$bw" --format json
same "compare wall (slow storage)" "$slow_wall" "$(jget out "round(d['offers'][0]['wall_seconds'])")"
same "compare flags storage" "storage" "$(jget out "d['offers'][0]['pipeline']['bound']")"
expect 0 "plan, slow storage" -- "$G" plan --model llama-3.1-8b --methods lora --tokens 200M --pricings on-demand --offer runpod/l40s-x1 \
  --max-nodes 1 --storage-bandwidth "$bw" --format json
cp "$TMP/out" "$TMP/plan_slow.json"
same "plan flags storage" "storage" "$(jget out "d['pipeline']['bound']")"
expect 0 "plan table warns" -- "$G" plan --model llama-3.1-8b --methods lora --tokens 200M --pricings on-demand --offer runpod/l40s-x1 \
  --max-nodes 1 --storage-bandwidth "$bw" --no-color
has out 'warning: the input pipeline \(storage\), not the GPUs, bounds this run' "plan: warning under the tables"
P=(--model llama-3.1-8b --method lora --precision "$(jget plan_slow.json "d['plan']['precision']")" --optimizer "$(jget plan_slow.json "d['plan']['optimizer']")"
   --checkpointing "$(jget plan_slow.json "d['plan']['checkpointing']")" --attention "$(jget plan_slow.json "d['plan']['attention']")"
   --sharding "$(jget plan_slow.json "d['plan']['sharding']")" --micro-batch "$(jget plan_slow.json "d['plan']['micro_batch']")"
   --grad-accum "$(jget plan_slow.json "d['plan']['grad_accum']")" --gpus "$(jget plan_slow.json "d['plan']['gpus']")"
   --tokens 200M --pricing on-demand --storage-bandwidth "$bw")
expect 0 "estimate plan's pick, slow storage" -- "$G" estimate "${P[@]}" --offer runpod/l40s-x1 --format json
same "plan wall = estimate wall (slow storage)" "$(jget plan_slow.json "round(d['plan']['wall_seconds'])")" "$(jget out "round(d['offers'][0]['wall_seconds'])")"
same "plan's pick is storage-bound" "storage" "$(jget out "d['offers'][0]['pipeline']['bound']")"
mkdir -p "$TMP/slowspecs"
{
  echo "name: slow-storage"
  for ((i = 0; i < ${#SLOW[@]}; i += 2)); do echo "${SLOW[i]#--}: \"${SLOW[i+1]}\""; done
  echo "storage-bandwidth: \"$bw\""
} >"$TMP/slowspecs/job.yaml"
expect 0 "check, slow storage" -- "$G" check "$TMP/slowspecs" --format json --date 2026-12-01
same "check wall (slow storage)" "$slow_wall" "$(jget out "round(d['experiments'][0]['wall_seconds'])")"
same "check cost (slow storage)" "$slow_cost" "$(jget out "round(d['experiments'][0]['cost'], 2)")"
same "check flags storage" "storage" "$(jget out "d['experiments'][0]['pipeline']['bound']")"
expect 0 "check table warns" -- "$G" check "$TMP/slowspecs" --date 2026-12-01 --no-color
has out 'warning: slow-storage on runpod/l40s-x1: the input pipeline \(storage\), not the GPUs' "check: warning under the table"

finish
