#!/usr/bin/env bash
# Runs the built gpuplan binary and checks exit codes, stderr messages and JSON keys.
# Usage: GPUPLAN=path/to/gpuplan cli_test.sh TESTS_DIR
set -u
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
FIX="$1/fixtures"

expect 0 "version" -- "$G" --version
has out "^gpuplan [0-9]" "version string"
expect 0 "help" -- "$G" --help
has out "Exit codes" "help documents exit codes"
expect 0 "estimate help" -- "$G" estimate --help
has out "Examples" "estimate help shows examples"
expect 2 "no subcommand" -- "$G"
expect 2 "unknown flag" -- "$G" gpus list --bogus
# An empty argument before another flag made CLI11 loop forever (fuzz_cli found it): refused.
expect 2 "empty argument" -- timeout 10 "$G" estimate --model llama-3.1-8b "" --gpu rtx-4090
has err 'argument 4 is empty' "empty argument named by position"

for f in table json csv markdown; do
  expect 0 "gpus list --format $f" -- "$G" gpus list --format "$f"
  expect 0 "models list --format $f" -- "$G" models list --format "$f"
  expect 0 "providers list --format $f" -- "$G" providers list --format "$f"
  expect 0 "gpus show --format $f" -- "$G" gpus show "RTX 4090" --format "$f"
  expect 0 "models show --format $f" -- "$G" models show meta-llama/Llama-3.1-8B --format "$f"
  expect 0 "providers show --format $f" -- "$G" providers show digitalocean --format "$f"
  expect 0 "estimate --format $f" -- "$G" estimate --model llama-3.1-8b --method qlora --gpu rtx-4090 --format "$f"
done
expect 2 "bad format" -- "$G" gpus list --format xml

expect 0 "gpus list json" -- "$G" gpus list --format json
has out '"schema_version": 1' "json schema_version"
has out '"memory_bytes": 25769803776' "exact bytes as integers"
expect 0 "gpus csv" -- "$G" gpus list --format csv
has out '^id,name,form,memory_gib' "csv header"

expect 2 "unknown gpu" -- "$G" gpus show h10
has err "unknown GPU 'h10' \(did you mean 'h100" "did you mean for GPUs"
expect 2 "ambiguous gpu" -- "$G" gpus show V100
has err "ambiguous: choose one of v100-16gb, v100-32gb" "ambiguous alias"
expect 2 "unknown model" -- "$G" models show llama-3.1-8c
has err "did you mean 'llama-3.1-8b'" "did you mean for models"
expect 2 "unknown provider" -- "$G" providers show digitalocen
has err "did you mean 'digitalocean'" "did you mean for providers"

expect 0 "estimate json" -- "$G" estimate --model llama-3.1-8b --method full --format json --gpu h100-sxm
has out '"per_gpu_bytes": [0-9]+' "memory.per_gpu_bytes"
has out '"master_weights": [0-9]+' "components named"
has out '"trainable": 8030261248' "params.trainable"
has out '"max_micro_batch"' "fits entries"
expect 0 "estimate --params" -- "$G" estimate --params 7B --method lora
has out "assumed:" "assumptions printed for --params"
expect 2 "qlora fp32" -- "$G" estimate --model llama-3.1-8b --method qlora --precision fp32
has err "QLoRA computes in 16-bit" "qlora fp32 message"
expect 2 "lora rank 0" -- "$G" estimate --model llama-3.1-8b --method lora --lora-rank 0
expect 2 "more pipeline stages than layers" -- "$G" estimate --model gpt2 --pipeline-parallel 13
has err "pipeline-parallel" "pipeline flag named"
expect 2 "gpus not a multiple of tp x pp x cp" -- "$G" estimate --model llama-3.1-8b --gpus 8 --pipeline-parallel 3
# Offload costs time (issue 15.4): the same job is slower with the optimizer on the host.
tps() { grep -oE '"tokens_per_second_per_gpu": [0-9.e+]+' "$TMP/out" | head -1 | grep -oE '[0-9.e+]+$'; }
expect 0 "no offload" -- "$G" estimate --model llama-3.1-8b --gpu h100-sxm --gpus 8 --sharding zero2 --format json
on_gpu=$(tps)
expect 0 "optimizer offload" -- "$G" estimate --model llama-3.1-8b --gpu h100-sxm --gpus 8 --sharding zero2 --offload optimizer --format json
offloaded=$(tps)
if awk -v a="$on_gpu" -v b="$offloaded" 'BEGIN { exit !(a > 0 && b > 0 && b < a) }'; then pass=$((pass + 1)); else
  fail=$((fail + 1)); echo "FAIL: offload not slower: $on_gpu vs $offloaded tokens/s/GPU"; fi
expect 2 "absurd batch" -- "$G" estimate --model llama-3.1-8b --micro-batch 1048576 --seq-len 131072
has err "10\^18 bytes" "overflowing totals refused"
expect 2 "2^62 batch" -- "$G" estimate --model llama-3.1-8b --micro-batch 4611686018427387904
expect 2 "zero batch" -- "$G" estimate --model llama-3.1-8b --micro-batch 0
expect 2 "long context" -- "$G" estimate --model gpt2 --seq-len 4096
has err "allow-long-context" "long context hint"
expect 0 "long context allowed" -- "$G" estimate --model gpt2 --seq-len 4096 --allow-long-context -q
expect 2 "unknown optimizer" -- "$G" estimate --model gpt2 --optimizer adamm
has err "did you mean 'adamw'" "did you mean for enum flags"
expect 2 "two model sources" -- "$G" estimate --model gpt2 --params 7B
has err "mutually exclusive" "mutually exclusive model sources"
expect 0 "zero with one gpu warns" -- "$G" estimate --model gpt2 --sharding zero3
has err "shards nothing" "zero with 1 gpu warning"

printf '{"model_type":"llama","num_hidden_layers":32,"hidden_size":4096,"intermediate_size":14336,"num_attention_heads":32,"num_key_value_heads":8,"vocab_size":128256,"max_position_embeddings":131072}' >"$TMP/config.json"
expect 0 "model-config" -- "$G" estimate --model-config "$TMP/config.json" --method inference --format json
has out '"total": 8030261248' "config.json param count"
printf '{"model_type":"bert"}' >"$TMP/bert.json"
expect 2 "unsupported model_type" -- "$G" estimate --model-config "$TMP/bert.json"
has err "unsupported model_type" "model_type message"

expect 0 "validate good" -- "$G" catalog validate "$FIX/good_catalog.yaml"
expect 2 "validate bad" -- "$G" catalog validate "$FIX/bad_catalog.yaml"
has err "bad_catalog.yaml:[0-9]+:[0-9]+: field 'gpus\[0\]\.memory_gib'" "file:line:col field"
has err "did you mean 'tdp_watts'" "unknown key suggestion"
has err "unknown GPU 'h100-sxn'" "offer naming unknown gpu"
count=$(grep -c "gpuplan: error:" "$TMP/err")
if [[ $count -ge 4 ]]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: validate reports every problem ($count)"; fi
expect 0 "user catalog overrides" -- "$G" --help
expect 0 "--catalog adds a GPU" -- "$G" gpus show my-card --catalog "$FIX/good_catalog.yaml"
expect 2 "--catalog bad file" -- "$G" gpus list --catalog "$FIX/bad_catalog.yaml"
expect 2 "--catalog missing file" -- "$G" gpus list --catalog "$TMP/nope.yaml"

SKY="$FIX/skypilot/lambda_vms.csv"
expect 0 "--catalog SkyPilot CSV" -- "$G" providers list --catalog "$SKY" --format json
has out '"name": "lambda \(SkyPilot catalog\)"' "SkyPilot sheet replaces the lambda provider"
has out '"offer_count": 272' "SkyPilot sheet offers"
has err "warning: .*lambda_vms\.csv: rows left out, accelerator not in the GPU catalog: A10 \(17 rows\), A6000 \(51 rows\)" "unmapped names warned"
expect 0 "--catalog SkyPilot CSV quiet" -- "$G" providers list --catalog "$SKY" -q
if [[ ! -s "$TMP/err" ]]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: -q silences SkyPilot notices"; fi
expect 0 "providers show SkyPilot" -- "$G" providers show lambda --catalog "$SKY" -q
has out "gpu_8x_h100_sxm5@us-east-1 +h100-sxm +8 +us-east-1 +3\.9900" "per-GPU price of an 8x H100 row (31.92/8)"
printf 'InstanceType,AcceleratorName,AcceleratorCount,Price,Region\nx,H100,8,abc,r\n' >"$TMP/bad_vms.csv"
expect 2 "--catalog bad SkyPilot CSV" -- "$G" gpus list --catalog "$TMP/bad_vms.csv"
has err "bad_vms\.csv:2:10: field 'Price': expected a finite plain decimal number, got \"abc\"" "CSV error names file, line, column"

expect 0 "validate a SkyPilot CSV" -- "$G" catalog validate "$FIX/skypilot/lambda_vms.csv"
has out "lambda_vms.csv +0 +0 +1 +272 +0" "CSV offers counted"
has err "accelerator not in the GPU catalog" "unmapped names warned"

# --- CSV carries raw numbers: no units, percentages, durations or bar glyphs in any command's CSV
while IFS= read -r cmd; do
  # shellcheck disable=SC2086  # the command line is split on purpose
  "$G" $cmd --format csv >"$TMP/out" 2>/dev/null
  lacks out '[0-9](%|h|m| ms| GiB| s| tok/s)(,|$)|█' "raw CSV: $cmd"
done <<EOF
estimate --model llama-3.1-8b --method lora --tokens 1B
compare --model llama-3.1-8b --method lora --tokens 1B
plan --model llama-3.1-8b --tokens 1B
serve --model llama-3.1-8b --rps 5
gpus list
models list
providers list
providers show runpod
calibrate $1/../data/measured/memory.jsonl
check $1/../examples/ci/failing/experiments --policy $1/../examples/ci/failing/budget.yaml --date 2026-12-01
diff $1/../examples/ci/passing/experiments $1/../examples/ci/failing/experiments
EOF

finish
