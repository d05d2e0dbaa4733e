#!/usr/bin/env bash
# Readers under hostile and heavy inputs (issue 16) and model sources (issue 15.1-15.3): cases
# that need a process, a filesystem state or a size the bad-input corpus cannot hold.
# Usage: GPUPLAN=path/to/gpuplan GPUPLAN_PERF_LIMITS=1 inputs_test.sh TESTS_DIR
# GPUPLAN_PERF_LIMITS=0 (sanitizer builds) keeps every check but the memory and time limits.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
LIMITS=${GPUPLAN_PERF_LIMITS:-1}

# measure LABEL MAX_MB MAX_S -- command...: runs it, records peak RSS and seconds, checks both.
measure() {
  local label=$1 max_mb=$2 max_s=$3
  shift 4
  # CPU seconds (user + system), not wall: the test machine is shared.
  /usr/bin/time -f '%M %U %S' -o "$TMP/time" "$@" >"$TMP/out" 2>"$TMP/err"
  local rc=$? kb u sy s
  read -r kb u sy < <(tail -1 "$TMP/time")
  s=$(awk -v u="$u" -v y="$sy" 'BEGIN{printf "%.2f", u + y}')
  echo "measured: $label: $((kb / 1024)) MB peak RSS, ${s} s CPU (exit $rc)"
  if [[ $LIMITS == 1 ]]; then
    if ((kb / 1024 <= max_mb)) && awk -v s="$s" -v m="$max_s" 'BEGIN{exit !(s <= m)}'; then pass=$((pass + 1)); else
      fail=$((fail + 1)); echo "FAIL: $label: over ${max_mb} MB or ${max_s} s"
    fi
  fi
  return $rc
}

# --- 16.19: a 1M-tensor safetensors header, streamed -----------------------------------------
python3 - "$TMP/big.safetensors" 1000000 <<'EOF'
import struct, sys
path, n = sys.argv[1], int(sys.argv[2])
parts = ['"t%d":{"dtype":"F16","shape":[1],"data_offsets":[%d,%d]}' % (i, 2 * i, 2 * i + 2) for i in range(n)]
h = ("{" + ",".join(parts) + "}").encode()
with open(path, "wb") as f:
    f.write(struct.pack("<Q", len(h)) + h)
    f.truncate(8 + len(h) + 2 * n)
EOF
measure "1M-tensor header" 300 10 -- "$G" models show --safetensors "$TMP/big.safetensors"
has out "1000000 tensors" "all 1M tensors counted"

# --- 16.19: a 250k-offer catalog ----------------------------------------------------------------
python3 - "$TMP/offers.yaml" 250000 <<'EOF'
import sys
path, n = sys.argv[1], int(sys.argv[2])
with open(path, "w") as f:
    f.write("providers:\n  - id: big\n    name: Big\n    currency: USD\n    prices_as_of: 2026-01-15\n"
            "    source: https://example.com\n    billing_increment_seconds: 1\n    offers:\n")
    for i in range(n):
        f.write("      - {id: o%d, gpu: h100-sxm, gpus: 8, region: r%d, on_demand_per_gpu_hour: %.2f}\n" % (i, i % 50, 2 + i % 97 / 100))
EOF
measure "250k-offer catalog" 300 20 -- "$G" catalog validate "$TMP/offers.yaml"
has out " 250000 +0" "250k offers validated, no problems"

# --- 16.20: what a path is, when it is not a file ------------------------------------------------
mkfifo "$TMP/fifo.safetensors"
expect 2 "a FIFO is named as one" -- timeout 10 "$G" estimate --safetensors "$TMP/fifo.safetensors"
has err "fifo\.safetensors: is a FIFO \(named pipe\), expected a regular file" "FIFO message"
ln -s "$TMP/loop-b.safetensors" "$TMP/loop-a.safetensors"
ln -s "$TMP/loop-a.safetensors" "$TMP/loop-b.safetensors"
expect 2 "a symlink loop is named as one" -- "$G" estimate --safetensors "$TMP/loop-a.safetensors"
has err "loop-a\.safetensors: cannot open file: too many levels of symbolic links" "symlink loop message"
expect 2 "a device is named as one" -- timeout 10 "$G" estimate --safetensors /dev/zero
has err "/dev/zero: is a character device" "device message"
expect 2 "GPUPLAN_DATA_DIR=/ is refused clearly" -- env GPUPLAN_DATA_DIR=/ timeout 20 "$G" gpus list
has err "not a gpuplan data directory" "data dir message"
lacks err "internal error" "no internal error for GPUPLAN_DATA_DIR=/"

# A complete last ledger line with 1e400 is a bad number, not a torn append.
printf '{"date":"2026-12-01","experiment":"big","cost":1e400,"currency":"USD"}' >"$TMP/l.jsonl"
expect 2 "1e400 in the last ledger line" -- "$G" ledger report --ledger "$TMP/l.jsonl"
has err "l\.jsonl:1:1: not valid JSON" "the bad line is an error at its line"
lacks err "torn" "not called a torn record"

# --- 16.17/16.18: long inputs are cut in messages, did-you-mean stays fast -----------------------
python3 -c "import json; print(json.dumps({'model_type': 'x' * 10000000}))" >"$TMP/long-type.json"
expect 2 "a 10 MB model_type" -- "$G" estimate --model-config "$TMP/long-type.json"
if (($(wc -c <"$TMP/err") < 600)); then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: message not capped ($(wc -c <"$TMP/err") bytes)"; fi
python3 - "$TMP/long-gpu.yaml" <<'EOF'
import sys
with open(sys.argv[1], "w") as f:
    f.write("providers:\n  - id: p\n    name: P\n    currency: USD\n    prices_as_of: 2026-01-15\n"
            "    source: s\n    billing_increment_seconds: 1\n    offers:\n")
    f.write("      - {id: o, gpu: %s, gpus: 1, region: r, on_demand_per_gpu_hour: 1}\n" % ("h" * 100000))
EOF
measure "100k-character GPU name" 300 3 -- "$G" catalog validate "$TMP/long-gpu.yaml"
has err "unknown GPU" "unknown GPU reported"

# --- 15.1: --params at small sizes ----------------------------------------------------------------
expect 0 "--params 125M" -- "$G" models show --params 125M --format json
has out '"vocab_size": (49152|32000)' "a small vocabulary for 125M"
has out "chosen so the total is 125" "the total matches and says so"

# --- 15.2: a Qwen2.5-7B-shaped header (sparse file: header only) --------------------------------
python3 - "$TMP/qwen.safetensors" <<'EOF'
import json, struct, sys
t, at = {}, 0
def add(name, shape):
    global at
    n = 2
    for d in shape: n *= d
    t[name] = {"dtype": "BF16", "shape": shape, "data_offsets": [at, at + n]}
    at += n
add("model.embed_tokens.weight", [152064, 3584])
for l in range(28):
    p = "model.layers.%d." % l
    for k, s in [("q_proj", 3584), ("k_proj", 512), ("v_proj", 512)]:
        add(p + "self_attn.%s.weight" % k, [s, 3584]); add(p + "self_attn.%s.bias" % k, [s])
    add(p + "self_attn.o_proj.weight", [3584, 3584])
    add(p + "mlp.gate_proj.weight", [18944, 3584]); add(p + "mlp.up_proj.weight", [18944, 3584])
    add(p + "mlp.down_proj.weight", [3584, 18944])
    add(p + "input_layernorm.weight", [3584]); add(p + "post_attention_layernorm.weight", [3584])
add("model.norm.weight", [3584]); add("lm_head.weight", [152064, 3584])
h = json.dumps(t).encode()
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<Q", len(h)) + h)
    f.truncate(8 + len(h) + at)
EOF
expect 0 "Qwen2.5-7B-shaped header" -- "$G" models show --safetensors "$TMP/qwen.safetensors" --format json
has out '"kv_heads": 4' "4 KV heads inferred"
has out '"layers": 28' "28 layers inferred"
has out "architecture inferred from tensor shapes: 28 layers, hidden 3584, 28 heads of 128" "inference is reported"
expect 0 "Qwen2.5-7B-shaped header, inference KV cache" -- "$G" estimate --safetensors "$TMP/qwen.safetensors" \
  --method inference --seq-len 131072 --micro-batch 1 --format json
has out '"kv_cache": 75161927' "KV cache 7.0 GiB (57,344 bytes per token x 131,072)"

# --- 15.3: usable memory ----------------------------------------------------------------------------
expect 0 "gpus show a10g" -- "$G" gpus show a10g --format json
has out '"usable_memory_bytes": 2361' "a10g usable 21.99 GiB"
# --- 30.13: a spec's paths stay inside its repository (or GPUPLAN_SPEC_ROOT); errors never quote a file's bytes
mkdir -p "$TMP/repo/.git" "$TMP/repo/specs"
printf 'ghp_SECRETSECRETSECRET\n' >"$TMP/secret.txt"
printf 'model_config: ../../secret.txt\ntokens: 1B\n' >"$TMP/repo/specs/a.yaml"
expect 2 "a spec naming a file outside its repository" -- "$G" check "$TMP/repo/specs"
has err "a\.yaml:1:[0-9]+: field 'model_config': the path leaves" "names the spec line and the key"
lacks err "SECRET" "the file is not read"
ln -s "$TMP/secret.txt" "$TMP/repo/specs/link.json"
printf 'model_config: link.json\ntokens: 1B\n' >"$TMP/repo/specs/a.yaml"
expect 2 "a symlink out of the repository" -- "$G" check "$TMP/repo/specs"
has err "the path leaves" "a link is resolved before the check"
cp "$TMP/secret.txt" "$TMP/secret.json"
expect 2 "--model-config on a file that is not JSON" -- "$G" estimate --model-config "$TMP/secret.json"
lacks err "SECRET|ghp_" "--model-config: the error quotes none of the file's bytes"
cp "$TMP/secret.txt" "$TMP/secret.safetensors"
expect 2 "--safetensors on a file that is not one" -- "$G" estimate --safetensors "$TMP/secret.safetensors"
lacks err "SECRET|ghp_|[0-9]{8,}" "--safetensors: the error quotes none of the file's bytes, not even as a length"

# --- 30.8: a 40,000-entry safetensors index reads in linear time (58 s of CPU before)
python3 -c '
import json, os, struct, sys
d = sys.argv[1]; os.makedirs(d, exist_ok=True)
head = json.dumps({"w": {"dtype": "BF16", "shape": [4], "data_offsets": [0, 8]}}).encode()
open(os.path.join(d, "model-1.safetensors"), "wb").write(struct.pack("<Q", len(head)) + head + b"\0" * 8)
json.dump({"weight_map": {"model.layers.%d.w" % i: "model-1.safetensors" for i in range(40000)}},
          open(os.path.join(d, "model.safetensors.index.json"), "w"))
' "$TMP/st"
measure "40k-entry safetensors index" 300 5 -- "$G" estimate --safetensors "$TMP/st/model.safetensors.index.json" --format json

# --- 30.11: hand-written small files are capped at 1 MiB before yaml-cpp sees them
{ printf 'model: llama-3.1-8b\ntokens: 1B\n'; head -c 2000000 /dev/zero | tr '\0' '#'; echo; } >"$TMP/big-spec.yaml"
expect 2 "a 2 MB experiment spec" -- "$G" check "$TMP/big-spec.yaml"
has err "big-spec\.yaml: .*1 MiB input limit" "names the cap"

# --- 30.5: an output that is one of the inputs is refused, the input kept
printf '{"model": "llama-3.1-8b", "gpu": "rtx-4090", "tokens_per_second": 5}\n' >"$TMP/runs.jsonl"
cp "$TMP/runs.jsonl" "$TMP/runs.orig"
expect 2 "calibrate --out over its runs" -- "$G" calibrate --partial "$TMP/runs.jsonl" --out "$TMP/runs.jsonl"
has err "runs\.jsonl: is also an input of this command" "names the file"
cmp -s "$TMP/runs.jsonl" "$TMP/runs.orig" && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: calibrate replaced its input"; }

# --- 30.10: a FIFO or a link to /dev/zero in the catalog cache is passed over, never read
mkdir -p "$TMP/xdg"
env GPUPLAN_DATA_DIR="$1/../data" XDG_CACHE_HOME="$TMP/xdg" "$G" gpus list >/dev/null 2>&1
c=$(ls "$TMP/xdg/gpuplan"/catalog-*.bin 2>/dev/null | head -1)
if [[ -n "$c" ]]; then
  rm -f "$c" && mkfifo "$c"
  expect 0 "a FIFO cache file" -- env GPUPLAN_DATA_DIR="$1/../data" XDG_CACHE_HOME="$TMP/xdg" timeout 20 "$G" gpus list
  rm -f "$c" && ln -s /dev/zero "$c"
  expect 0 "a cache file linked to /dev/zero" -- env GPUPLAN_DATA_DIR="$1/../data" XDG_CACHE_HOME="$TMP/xdg" timeout 20 "$G" gpus list
else
  fail=$((fail + 1)); echo "FAIL: no cache file was written"
fi
finish
