#!/usr/bin/env bash
# gpuplan plan end to end: a plan with reasons, no feasible plan (exit 1 with the binding
# constraint), a method constraint, and every --emit format.
# Usage: GPUPLAN=path/to/gpuplan plan_test.sh TESTS_DIR
set -u
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
JOB=(--model llama-3.1-8b --tokens 500M --global-batch 64)

expect 0 "plan" -- "$G" plan "${JOB[@]}" --deadline 3d --budget 500 --format json
has out '"plan": \{' "a plan"
has out '"reasons": \[' "reasons"
has out '"setting": "method"' "method reason"
has out '"pareto": \[' "Pareto front"
has out '"runners_up": \[' "runners-up"
has out '"configurations": [0-9]+' "search size reported"
expect 0 "plan table" -- "$G" plan "${JOB[@]}"
has out '^Plan: Llama 3.1 8B' "plan title"
has out 'next: run a 50-step baseline' "staged next steps"

expect 1 "budget too small" -- "$G" plan "${JOB[@]}" --budget 0.01 --format json
has out '"plan": null' "no plan"
has out 'the cheapest plan that fits costs .* budget 0.01 USD' "binding budget named"
expect 1 "deadline too short" -- "$G" plan "${JOB[@]}" --deadline 1s
has out 'misses the deadline by' "binding deadline named"
expect 1 "nothing fits" -- "$G" plan --model llama-3.1-405b --tokens 1B --methods full --provider runpod
has out 'nothing fits' "nothing fits"

expect 0 "full only" -- "$G" plan "${JOB[@]}" --methods full --format json
has out '"method": "full"' "method constraint kept"
lacks out '"method": "lora"' "no LoRA plans"
expect 0 "time objective" -- "$G" plan "${JOB[@]}" --objective time --format json
has out '"objective": "time"' "objective recorded"

for kind in deepspeed accelerate torchrun skypilot slurm; do
  expect 0 "emit $kind" -- "$G" plan "${JOB[@]}" --emit "$kind"
done
expect 0 "emit deepspeed to stdout" -- "$G" plan "${JOB[@]}" --methods full --shardings zero2 --emit deepspeed
has out '"train_micro_batch_size_per_gpu"' "DeepSpeed JSON on stdout"
has out '"stage": [1-3]' "a ZeRO stage for a sharded full fine-tune"
expect 0 "emit skypilot --out" -- "$G" plan "${JOB[@]}" --emit skypilot --out "$TMP/task.yaml"
if grep -q '^  accelerators: "' "$TMP/task.yaml" && grep -q '^num_nodes: [0-9]' "$TMP/task.yaml"; then pass=$((pass + 1)); else
  fail=$((fail + 1)); echo "FAIL: SkyPilot task written"; fi
expect 0 "emit slurm" -- "$G" plan "${JOB[@]}" --emit slurm
has out '^#SBATCH --gpus-per-node=[0-9]+' "sbatch header"

expect 2 "bad emit" -- "$G" plan "${JOB[@]}" --emit deepspeeed
has err "did you mean 'deepspeed'" "emit suggestion"
expect 2 "inference is not planned here" -- "$G" plan "${JOB[@]}" --methods inference
expect 2 "no run size" -- "$G" plan --model llama-3.1-8b
has err "--tokens" "run size flag named"
expect 2 "bad max nodes" -- "$G" plan "${JOB[@]}" --max-nodes 0
expect 2 "bad objective" -- "$G" plan "${JOB[@]}" --objective cheap
expect 2 "out without emit" -- "$G" plan "${JOB[@]}" --out "$TMP/x"
if [[ ! -e "$TMP/x" ]]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: --out written without --emit"; fi

# One job, one settings table: a single value on the command line narrows the search to it,
# and a setting plan does not search is kept in every candidate (issue: plan dropped them).
expect 1 "eager attention without recompute does not fit a 4090, as estimate says" -- "$G" plan --model llama-3.1-8b --method qlora \
  --gpu rtx-4090 --seq-len 4096 --attention eager --checkpointing none --tokens 100M --format json
expect 0 "eager attention is kept" -- "$G" plan --model llama-3.1-8b --method qlora --gpu rtx-4090 --seq-len 4096 --attention eager \
  --tokens 100M --format json
has out '"attention": "eager"' "the plan says eager"
expect 0 "--gpus and --grad-accum are kept" -- "$G" plan --model llama-3.2-1b --tokens 100M --provider runpod --gpus 2 --grad-accum 8 --format json
has out '"gpus": 2,' "two GPUs"
has out '"grad_accum": 8,' "accumulation 8"
expect 0 "--nodes narrows the instances" -- "$G" plan --model llama-3.2-1b --tokens 100M --provider runpod --gpus 2 --nodes 2 --format json
has out '"offer": "rtx-4090-x1"|"offer": "[a-z0-9-]*-x1"' "two one-GPU instances"
expect 2 "--grad-accum and --global-batch together" -- "$G" plan --model llama-3.2-1b --tokens 100M --grad-accum 2 --global-batch 64
has err "give --grad-accum or --global-batch, not both" "says which"
expect 2 "plan has no KV cache to size" -- "$G" plan --model llama-3.2-1b --tokens 100M --kv-cache-dtype fp8
expect 2 "demand takes no profile" -- "$G" demand "$(dirname "${BASH_SOURCE[0]}")/../fixtures/jobs.csv" --profile "$(dirname "${BASH_SOURCE[0]}")/../fixtures/jobs.csv"
has err "unknown option '--profile'" "named"

# A fixed context-parallel degree without --gpus: the search tries GPU counts it divides
# (the base is no longer checked against one GPU and refused).
expect 0 "plan --context-parallel 2 without --gpus" -- "$G" plan --model llama-3.1-8b --methods full --provider aws --gpu h100-sxm \
  --tokens 1B --context-parallel 2 --seq-len 16384 --shardings fsdp --max-nodes 1 --format json
has out '"context_parallel": 2' "the plan runs CP 2"
finish
