#!/usr/bin/env bash
# What the startup work must not change (README "Speed"): a command built alone behaves as in
# the full table, the build's error bands equal the live ones, and the data-dir cache answers
# as the YAML does, also after an edit. No timing here.
source "$(dirname "$0")/lib.sh"
root=$(cd "$1/.." && pwd)
export XDG_CACHE_HOME="$TMP/cache"
# LoRA on an 8B model does not fit a 4090: no offer can run it, so estimate exits 1 (as compare).
est=(estimate --model llama-3.1-8b --method lora --gpu rtx-4090 --tokens 100M)

# Built alone, a command still suggests its own flags and refuses a misspelt one.
expect 2 "misspelt flag, command built alone" -- "$G" estimate --modle llama-3.1-8b
has err "did you mean '--model'" "suggestion from the command's own flags"
# The full table (a flag first) lists every command; --version needs none.
expect 0 "top-level help" -- "$G" --help
has out "estimate +Estimate per-GPU memory" "help lists estimate"
has out "catalog +Check catalog files" "help lists catalog"
expect 0 "version" -- "$G" --version
has out "^gpuplan [0-9]" "version printed"

# The build's error bands (shipped catalog) equal the ones computed live: GPUPLAN_DATA_DIR
# reads the same data from YAML, and with an unchanged catalog the output must not differ.
expect 1 "estimate, shipped" -- "$G" "${est[@]}" --format json
cp "$TMP/out" "$TMP/shipped.json"
cp -r "$root/data" "$TMP/data"
expect 1 "estimate, data dir (parse, then cache)" -- env GPUPLAN_DATA_DIR="$TMP/data" "$G" "${est[@]}" --format json
cmp -s "$TMP/out" "$TMP/shipped.json" && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: data-dir estimate differs"; }
expect 1 "estimate, data dir (cached)" -- env GPUPLAN_DATA_DIR="$TMP/data" "$G" "${est[@]}" --format json
cmp -s "$TMP/out" "$TMP/shipped.json" && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: cached estimate differs"; }
ls "$TMP/cache/gpuplan/"catalog-*.bin >/dev/null 2>&1 && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: no cache file"; }

# An edited GPU is seen at once (the cache is keyed by the files), and its bands are live.
sed -i 's/^\(\s*usable_memory_gib:\s*\)23.65/\1 20.0/' "$TMP/data/gpus.yaml"
has data/gpus.yaml "usable_memory_gib: *20.0" "the edit took"
expect 1 "estimate after an edit" -- env GPUPLAN_DATA_DIR="$TMP/data" "$G" "${est[@]}"
has out "rtx-4090 +20.00" "the edited usable memory is used"
finish
