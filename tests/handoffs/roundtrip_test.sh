#!/usr/bin/env bash
# Every launch file of a plan matrix (1 and 4 nodes; DDP, FSDP, ZeRO 1-3, offload, TP, TP x PP,
# CP) is either written and checked, or refused with exit 2 naming the engine that can run it.
# Written files go through the engine's checks (check_launch.py: torchtitan's JobConfig keys,
# Megatron-LM's flags and validate_args rules, DeepSpeed and accelerate keys), and then the
# round trip: the settings are read back out of the file (readback.py), run through `gpuplan
# estimate` on the plan's offer, and the per-GPU memory and step time must equal the plan's.
# Needs only python3 with python3-yaml; exit 77 (skip) without it unless GPUPLAN_REQUIRE_SERVICES=1.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
G=${GPUPLAN:?set GPUPLAN to the binary}
PY=/usr/bin/python3
if ! $PY -c 'import yaml, tomllib' 2>/dev/null; then
  echo "missing: python3 with yaml and tomllib"
  [[ ${GPUPLAN_REQUIRE_SERVICES:-0} == 1 ]] && exit 1
  exit 77
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# A fake torchrun records the words it was given (NUL-separated) instead of launching.
mkdir -p "$TMP/bin"
printf '#!/bin/bash\nprintf "%%s\\0" "$@" >"$CAPTURE"\n' >"$TMP/bin/torchrun"
printf '#!/bin/bash\nexec "$@"\n' >"$TMP/bin/srun"
printf '#!/bin/bash\nprintf "n1\\nn2\\nn3\\nn4\\n"\n' >"$TMP/bin/scontrol"
chmod +x "$TMP/bin/"*
capture() {  # ENGINE FILE: runs the script (or SkyPilot's run section) with the fakes; words in FILE.args
  local script=$2
  if [[ $1 == skypilot ]]; then
    $PY "$HERE/check_launch.py" skypilot "$2" >/dev/null || return 1
    script=$2.run.sh
  fi
  rm -f "$2.args"
  env PATH="$TMP/bin:$PATH" CAPTURE="$2.args" MASTER_ADDR=n1 SLURM_JOB_ID=1 SLURM_JOB_NODELIST='n[1-4]' MODEL=m \
    SKYPILOT_NODE_IPS=$'10.0.0.1\n10.0.0.2' SKYPILOT_NODE_RANK=0 SKYPILOT_NUM_NODES="$NODES" SKYPILOT_NUM_GPUS_PER_NODE="$PER_NODE" \
    bash "$script" >/dev/null 2>&1 && [[ -s $2.args ]]
}

# name | plan flags | engines expected to refuse (exit 2)
MATRIX=(
  "ddp-1node|--model llama-3.2-1b --shardings ddp --max-nodes 1|torchtitan"
  "fsdp-4nodes|--model llama-3.1-8b --shardings fsdp --max-nodes 4 --objective time|"
  "zero1|--model llama-3.1-8b --shardings zero1 --max-nodes 1 --micro-batches 1|torchtitan"
  "zero2-offload|--model llama-3.1-8b --shardings zero2 --offload optimizer --max-nodes 1|torchtitan megatron"
  "zero3-offload-params|--model llama-3.1-8b --shardings zero3 --offload optimizer+params --max-nodes 1 --micro-batches 1|megatron"
  "tp2-4nodes|--model llama-3.1-70b --tensor-parallels 2 --pipeline-parallels 1 --shardings fsdp --max-nodes 4 --objective time --micro-batches 1|deepspeed accelerate torchtitan"
  "cp2-1node|--model llama-3.1-8b --context-parallel 2 --seq-len 16384 --shardings fsdp --max-nodes 1 --micro-batches 1|deepspeed accelerate"
  "cp2-4nodes|--model llama-3.1-8b --context-parallel 2 --seq-len 16384 --shardings fsdp --max-nodes 4 --objective time --micro-batches 1|deepspeed accelerate"
  "tp4xpp4|--model llama-3.1-70b --tensor-parallel 4 --pipeline-parallel 4 --sequence-parallel --shardings ddp --max-nodes 4 --global-batch 256 --micro-batches 1|deepspeed accelerate"
)
ENGINES=(deepspeed accelerate torchrun slurm skypilot torchtitan megatron)
COMMON=(--provider aws --gpu h100-sxm --tokens 1B --methods full --checkpointing-options full --precisions bf16 --optimizers adamw)

for row in "${MATRIX[@]}"; do
  IFS='|' read -r name flags refused <<<"$row"
  read -ra F <<<"$flags"
  if ! "$G" plan "${COMMON[@]}" "${F[@]}" --format json >"$TMP/$name.plan.json" 2>"$TMP/err"; then
    bad "$name: plan failed"; head -3 "$TMP/err"; continue
  fi
  read -r OFFER GPUS NODES MODEL < <($PY -c '
import json, sys
j = json.load(open(sys.argv[1])); p = j["plan"]
print(p["provider"] + "/" + p["offer"], p["gpus"], max(1, p["gpus"] // 8), j["model"]["id"])' "$TMP/$name.plan.json")
  PER_NODE=$((GPUS / NODES))
  for engine in "${ENGINES[@]}"; do
    out=$TMP/$name.$engine
    extra=()
    [[ $engine == accelerate && $NODES -gt 1 ]] && extra=(--head-address 10.0.0.1)
    "$G" plan "${COMMON[@]}" "${F[@]}" --emit "$engine" --out "$out" "${extra[@]}" >/dev/null 2>"$TMP/err"
    rc=$?
    if [[ " $refused " == *" $engine "* ]]; then
      # Refused by name, pointing at an engine gpuplan writes for (or saying none runs it).
      if [[ $rc == 2 ]] && grep -qE -- "--emit [a-z]+|no engine gpuplan writes for|plan with" "$TMP/err"; then ok; else
        bad "$name: --emit $engine should be refused with exit 2 naming another engine (exit $rc)"; head -3 "$TMP/err"; fi
      continue
    fi
    if [[ $rc != 0 ]]; then bad "$name: --emit $engine exit $rc"; head -3 "$TMP/err"; continue; fi
    args=""
    case $engine in
      torchrun | slurm | skypilot | megatron)
        capture "$engine" "$out" || { bad "$name: running the $engine file captured nothing"; continue; }
        args=$out.args ;;
    esac
    case $engine in
      torchtitan) $PY "$HERE/check_launch.py" torchtitan "$out" "$GPUS" || { bad "$name: torchtitan config"; continue; } ;;
      megatron) $PY "$HERE/check_launch.py" megatron "$args" "$GPUS" || { bad "$name: megatron arguments"; continue; } ;;
      deepspeed | accelerate) $PY "$HERE/check_launch.py" "$engine" "$out" || { bad "$name: $engine keys"; continue; } ;;
    esac
    # The round trip: the file's settings (the plan's for what the file has no place for).
    if ! $PY "$HERE/check_launch.py" readback "$engine" "$out" $args >"$TMP/flags" 2>"$TMP/err"; then
      bad "$name: reading back the $engine file"; head -3 "$TMP/err"; continue
    fi
    mapfile -t back <"$TMP/flags"
    mapfile -t rest < <($PY -c '
import json, sys
p = json.load(open(sys.argv[1]))["plan"]
have = set(sys.argv[2:])
for key in ("method", "precision", "optimizer", "checkpointing", "attention", "sharding", "offload", "micro_batch", "grad_accum"):
    flag = "--" + key.replace("_", "-")
    if flag not in have:
        print(flag); print(p[key])
lay = p["layout"]
for key in ("tensor_parallel", "pipeline_parallel", "context_parallel", "expert_parallel", "virtual_pipeline"):
    flag = "--" + key.replace("_", "-")
    if flag not in have:
        print(flag); print(lay[key])
if lay["sequence_parallel"] and "--sequence-parallel" not in have and "--tensor-parallel" not in have:
    print("--sequence-parallel")' "$TMP/$name.plan.json" "${back[@]}")
    # A sequence length the file has no place for (DeepSpeed's JSON) is the plan's.
    seq=()
    if ! printf '%s\n' "${back[@]}" | grep -qx -- --seq-len; then
      for ((k = 0; k < ${#F[@]}; k++)); do [[ ${F[k]} == --seq-len ]] && seq=(--seq-len "${F[k + 1]}"); done
    fi
    "$G" estimate --model "$MODEL" --offer "$OFFER" --tokens 1B "${back[@]}" "${rest[@]}" "${seq[@]}" --format json \
      >"$TMP/est.json" 2>"$TMP/err" || { bad "$name: estimate of the $engine file failed"; head -3 "$TMP/err"; continue; }
    if $PY - "$TMP/$name.plan.json" "$TMP/est.json" "$name/$engine" <<'PY'; then ok; else bad "$name: $engine round trip differs"; fi
import json, sys
plan = json.load(open(sys.argv[1]))["plan"]
row = json.load(open(sys.argv[2]))["offers"][0]
for key in ("per_gpu_bytes", "step_seconds"):
    a, b = plan[key], row[key]
    if abs(a - b) > 1e-6 * max(abs(a), 1):
        print(f"{sys.argv[3]}: {key} plan {a} vs the file's {b}")
        sys.exit(1)
PY
  done
done
# No plan prices an offload no engine runs; plural shardings take an offload that one of them can.
if "$G" plan --model llama-3.1-8b --provider aws --gpu h100-sxm --tokens 1B --methods full --optimizers adamw-8bit \
  --offload optimizer --max-nodes 1 >/dev/null 2>"$TMP/err"; then bad "an 8-bit optimizer with offload was planned"; else
  grep -q "8-bit optimizer" "$TMP/err" && ok || bad "8-bit offload refusal: $(cat "$TMP/err")"; fi
echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
