#!/usr/bin/env bash
# gpuplan calibrate: too few runs refused with the count needed, --partial, the profile reaching
# estimate/serve/check through --profile and `profile:`, error bars, and bad files.
ROOT=${1:?tests dir}
source "$ROOT/cli/lib.sh"
DATA="$ROOT/../data/measured"

# Two runs cannot fit a constant; the shipped cases' four decode runs cannot fit a line.
head -2 "$DATA/throughput.jsonl" > "$TMP/two.jsonl"
expect 2 "too few runs" -- "$G" calibrate "$TMP/two.jsonl"
has err "two.jsonl: field 'utilization_scale': 2 runs measure it; a robust fit needs at least 3" "says how many it has and needs"
expect 2 "too few runs for the decode line" -- "$G" calibrate "$DATA/throughput.jsonl"
has err "step_overhead': 4 runs measure it; a robust fit needs at least 5" "the line fit needs five"
[[ -e "$TMP/p.yaml" ]] && { fail=$((fail + 1)); echo "FAIL: a refused fit wrote a profile"; }

expect 0 "--partial fits what it can" -- "$G" calibrate "$DATA/throughput.jsonl" --partial --out "$TMP/p.yaml"
has out "utilization\[datacentre/pretrain\]" "the constants table"
has out "utilization_scale" "the pooled scale"
has out "bandwidth_efficiency" "decode efficiency fitted from four runs"
has out "left out" "the leave-one-out column"
cp "$TMP/p.yaml" "$TMP/profile.yaml"
grep -q "datacentre/pretrain: {value: " "$TMP/profile.yaml" && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: profile lacks the pretrain utilisation"; }
HFU=$(sed -n 's/.*datacentre\/pretrain: {value: \([0-9.e-]*\),.*/\1/p' "$TMP/profile.yaml")

expect 0 "calibrate JSON" -- "$G" calibrate "$DATA/throughput.jsonl" --partial --format json
has out '"error_leave_one_out"' "per-run leave-one-out error"
has out '"underfit"' "underfit constants listed"

# The profile reaches the time model: estimate's HFU for pre-training on an H100 is the fitted one.
expect 0 "estimate with a profile" -- "$G" estimate --model llama-3.1-8b --method pretrain --gpu h100-sxm --tokens 1B --format json --profile "$TMP/profile.yaml"
HFU_SHOWN=$(grep -m1 '"hfu"' "$TMP/out" | sed 's/[^0-9.e-]//g')
awk -v a="$HFU" -v b="$HFU_SHOWN" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d < 1e-9 && a > 0) }' && pass=$((pass + 1)) ||
  { fail=$((fail + 1)); echo "FAIL: estimate's hfu $HFU_SHOWN is not the profile's $HFU"; }
has out '"basis": "profile ' "error bars from the profile"
expect 0 "estimate without a profile" -- "$G" estimate --model llama-3.1-8b --method pretrain --gpu h100-sxm --tokens 1B --format json
has out '"basis": "shipped measured cases' "default error bars from the shipped cases"
has out '"likely_range_bytes"' "memory range"
expect 1 "estimate table" -- "$G" estimate --model llama-3.1-8b --method lora --gpu rtx-4090
has out "measured cases within -?[0-9.]+%\.\.\+[0-9.]+%" "the error bar line"

# The profile's decode efficiency reaches serve.
expect 0 "serve default" -- "$G" serve --model llama-3.1-8b --requests-per-second 1 --gpu a100-80gb-sxm --format json
cp "$TMP/out" "$TMP/serve-default.json"
expect 0 "serve with a profile" -- "$G" serve --model llama-3.1-8b --requests-per-second 1 --gpu a100-80gb-sxm --format json --profile "$TMP/profile.yaml"
if cmp -s "$TMP/out" "$TMP/serve-default.json"; then fail=$((fail + 1)); echo "FAIL: serve ignored the profile"; else pass=$((pass + 1)); fi

# A memory profile reaches estimate's memory; an experiment spec's profile: reaches check.
cat > "$TMP/mem.yaml" <<'YAML'
gpuplan_profile: 1
memory:
  cuda_context_bytes: 4294967296
  fragmentation: 0.5
YAML
expect 1 "estimate with a memory profile" -- "$G" estimate --model llama-3.1-8b --method lora --gpu rtx-4090 --format json --profile "$TMP/mem.yaml"
has out '"overhead": 4294967296' "the context from the profile"
mkdir -p "$TMP/exp"
SPEC='model: llama-3.1-8b\nmethod: pretrain\ntokens: 100M\ngpu: h100-sxm\ngpus: 8\nsharding: fsdp\ncheckpointing: full\n'
printf "${SPEC}profile: ../profile.yaml\n" > "$TMP/exp/b.yaml"
printf "$SPEC" > "$TMP/exp/c.yaml"
printf "currency: USD\nperiod: month\nper_experiment: 100000\n" > "$TMP/budget.yaml"
expect 0 "check with a spec profile" -- "$G" check "$TMP/exp" --budget "$TMP/budget.yaml" --format json
B=$(tr -d '\n ' < "$TMP/out" | grep -o '"cost":[0-9.e+-]*,"file":"[^"]*exp/b.yaml"')
C=$(tr -d '\n ' < "$TMP/out" | grep -o '"cost":[0-9.e+-]*,"file":"[^"]*exp/c.yaml"')
if [[ -n "$B" && -n "$C" && "${B%%,*}" != "${C%%,*}" ]]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: spec profile: b $B vs c $C"; fi

# Bad profiles and bad runs: exit 2 naming file, line and field.
printf 'gpuplan_profile: 1\nmemory:\n  fragmentation: lots\n' > "$TMP/bad.yaml"
expect 2 "bad profile" -- "$G" estimate --model llama-3.1-8b --profile "$TMP/bad.yaml"
has err "bad.yaml:3:[0-9]+: field 'memory.fragmentation'" "names line and field"
printf '{"model": "llama-3.1-8b", "gpu": "rtx-4090", "method": "lora", "micro_batch": 0, "tokens_per_second": 5}\n' > "$TMP/runs.jsonl"
expect 2 "bad run setting" -- "$G" calibrate "$TMP/runs.jsonl"
has err "runs.jsonl:1:1: field 'micro-batch'" "names the record and the setting"
printf '{"model": "llama-3.1-8b", "gpu": "rtx-9999", "tokens_per_second": 5}\n' > "$TMP/runs.jsonl"
expect 2 "unknown GPU" -- "$G" calibrate "$TMP/runs.jsonl"
has err "field 'gpu': unknown GPU" "names the GPU field"
finish
