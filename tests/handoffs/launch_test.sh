#!/usr/bin/env bash
# Every launch file `gpuplan plan --emit` writes, checked by the real tools: `sbatch
# --test-only` against a Slurm controller with two fake 8-GPU nodes (.ci/setup-handoffs.sh),
# every script through shellcheck, torchrun's own argument parser on each torchrun line after the
# shell expanded it with 2-node Slurm (or SkyPilot) variables, and the YAML/JSON files against
# the keys each engine documents (check_launch.py names the sources). Model folders with
# hostile names (numbers, yes, $(), quotes, a newline, spaces, unicode) must reach train.py
# unchanged. Exit 77 (skip) when a tool is missing, unless GPUPLAN_REQUIRE_SERVICES=1.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
G=${GPUPLAN:?set GPUPLAN to the binary}
PY=/usr/bin/python3
export SLURM_CONF=${SLURM_CONF:-/tmp/gpuplan-slurm/slurm.conf}

missing=""
command -v shellcheck >/dev/null || missing+=" shellcheck"
{ command -v sbatch >/dev/null && [[ -f $SLURM_CONF ]] && scontrol ping 2>/dev/null | grep -q UP; } || missing+=" slurmctld (run .ci/setup-handoffs.sh)"
$PY -c 'import torch.distributed.run, yaml' 2>/dev/null || missing+=" python3-torch/python3-yaml"
if [[ -n $missing ]]; then
  echo "missing:$missing"
  [[ ${GPUPLAN_REQUIRE_SERVICES:-0} == 1 ]] && exit 1
  exit 77
fi

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
mkdir -p "$TMP/lines"
queue() {  # NAME NNODES [RDZV_ID ENDPOINT]: keep the captured torchrun words for one parser run
  local n
  n=$(find "$TMP/lines" -name '*.args' | wc -l)
  [[ -f $TMP/args ]] || { bad "nothing captured for '$1'"; return; }
  cp "$TMP/args" "$TMP/lines/$n.args"
  printf '%s' "$1" >"$TMP/lines/$n.model"
  shift
  echo "$*" >"$TMP/lines/$n.meta"
}
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# Fakes that record what the emitted scripts would launch, NUL-separated, instead of launching.
mkdir -p "$TMP/bin"
cat >"$TMP/bin/torchrun" <<'SH'
#!/bin/bash
printf '%s\0' "$@" >"$CAPTURE"
SH
cat >"$TMP/bin/srun" <<'SH'
#!/bin/bash
exec "$@"
SH
cat >"$TMP/bin/scontrol" <<'SH'
#!/bin/bash
[[ $1 == show && $2 == hostnames ]] && printf 'gpunode1\ngpunode2\n'
SH
chmod +x "$TMP/bin/"*

CONFIG='{"model_type": "llama", "hidden_size": 2048, "intermediate_size": 8192, "num_hidden_layers": 16,
 "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256, "max_position_embeddings": 8192,
 "tie_word_embeddings": true, "torch_dtype": "bfloat16"}'
NAMES=("2024" "yes" 'x$(echo INJECTED)' "it's \"q\"" $'new\nline' "a b" "ünïcødé-模型" '-rf')
SINGLE=(--provider aws --gpu h100-sxm --tokens 200M --max-nodes 1 --methods full)
MULTI=(--provider aws --gpu h100-sxm --tokens 20B --max-nodes 2 --objective time --methods full --shardings "fsdp,zero3")

check_script() {  # FILE: shellcheck clean
  if shellcheck -s bash "$1" >"$TMP/sc" 2>&1; then ok; else bad "shellcheck $1"; head -20 "$TMP/sc"; fi
}
run_captured() {  # FILE ENV...: runs the script with the fakes first on PATH
  local file=$1
  shift
  rm -f "$TMP/args"
  env PATH="$TMP/bin:$PATH" CAPTURE="$TMP/args" "$@" bash "$file" >"$TMP/run.out" 2>&1 || { bad "running $file"; cat "$TMP/run.out"; }
  grep -q INJECTED "$TMP/run.out" && bad "$file executed part of a name"
}

i=0
for name in "${NAMES[@]}"; do
  i=$((i + 1))
  mkdir -p "$TMP/models/$i/$name"
  printf '%s\n' "$CONFIG" >"$TMP/models/$i/$name/config.json"
  for shape in single multi; do
    if [[ $shape == single ]]; then flags=("${SINGLE[@]}"); nodes=1; else flags=("${MULTI[@]}"); nodes=2; fi
    base=$TMP/$i.$shape
    for engine in slurm torchrun skypilot deepspeed accelerate; do
      extra=()
      [[ $engine == accelerate && $nodes == 2 ]] && extra=(--head-address 10.1.2.3 --node-rank 1)
      if ! "$G" plan --model-config "$TMP/models/$i/$name/config.json" "${flags[@]}" --emit "$engine" --out "$base.$engine" \
        "${extra[@]}" >"$TMP/plan.out" 2>&1; then
        bad "plan --emit $engine ($shape, model '$name')"; head -5 "$TMP/plan.out"; continue
      fi
      ok
    done
    [[ -f $base.slurm ]] || continue
    grep -q "^#SBATCH --nodes=$nodes\$" "$base.slurm" && ok || bad "$base.slurm is not a $nodes-node job"
    # Slurm's controller accepts the job as written.
    if sbatch --test-only "$base.slurm" >"$TMP/sb" 2>&1; then ok; else bad "sbatch --test-only ($shape, '$name')"; cat "$TMP/sb"; fi
    check_script "$base.slurm"
    check_script "$base.torchrun"
    run_captured "$base.slurm" SLURM_JOB_ID=4242 SLURM_JOB_NODELIST='gpunode[1-2]' SLURM_NNODES=$nodes SLURM_NODEID=1
    if [[ $nodes == 2 ]]; then queue "$name" 2 4242 gpunode1:29500; else queue "$name" 1; fi
    run_captured "$base.torchrun" MASTER_ADDR=gpunode1 RDZV_ID=77
    if [[ $nodes == 2 ]]; then queue "$name" 2 77 gpunode1:29500; else queue "$name" 1; fi
    for engine in deepspeed accelerate; do
      $PY "$HERE/check_launch.py" "$engine" "$base.$engine" && ok || bad "$engine keys ($shape, '$name')"
    done
    $PY "$HERE/check_launch.py" skypilot "$base.skypilot" "$name" && ok || bad "skypilot keys ($shape, '$name')"
    # SkyPilot's run section is a script too: shellcheck it and expand it as SkyPilot would.
    { echo '#!/bin/bash'; cat "$base.skypilot.run.sh"; } >"$base.sky.sh"
    check_script "$base.sky.sh"
    run_captured "$base.sky.sh" MODEL="$name" SKYPILOT_NODE_IPS=$'10.0.0.1\n10.0.0.2' SKYPILOT_NODE_RANK=1 \
      SKYPILOT_NUM_NODES=$nodes SKYPILOT_NUM_GPUS_PER_NODE=8
    queue "$name" "$nodes"
  done
done
# One 2-node batch script really runs on the two fake nodes, with a stub in place of torchrun
# that prints each rank's view: one line per node, the same rendezvous on the first host.
mkdir -p "$TMP/stub"
cat >"$TMP/stub/torchrun" <<'SH'
#!/bin/bash
a=" $* "
val() { local v=${a#* $1 }; echo "${v%% *}"; }
echo "rank $SLURM_PROCID of $SLURM_NTASKS node $SLURM_NODEID nnodes $(val --nnodes) endpoint $(val --rdzv_endpoint)" \
  "tp $(val --tensor-parallel) pp $(val --pipeline-parallel)"
SH
chmod +x "$TMP/stub/torchrun"
job=$TMP/1.multi.slurm
if out=$(cd "$TMP" && PATH="$TMP/stub:$PATH" timeout 90 sbatch --wait --output="$TMP/job.out" "$job" 2>&1); then
  sort "$TMP/job.out" >"$TMP/job.sorted"
  if [[ $(grep -c '^rank ' "$TMP/job.sorted") == 2 ]] && grep -q '^rank 0 of 2 node 0 nnodes 2 endpoint gpunode1:29500 tp ' "$TMP/job.sorted" &&
    grep -q '^rank 1 of 2 node 1 nnodes 2 endpoint gpunode1:29500 tp ' "$TMP/job.sorted"; then ok; else
    bad "the 2-node job's ranks"; cat "$TMP/job.out"; fi
else
  bad "sbatch --wait of a 2-node job: $out"; cat "$TMP/job.out" 2>/dev/null
fi
# torch.distributed.run's own parser over every captured line (torch imported once).
$PY "$HERE/check_launch.py" torchrun-dir "$TMP/lines" && ok || bad "torchrun's parser refused a line"
echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
