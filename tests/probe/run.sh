#!/usr/bin/env bash
# The probe on CPU: a tiny transformer trained through tools/probe/gpuplan_probe.py writes run
# records (memory null, tokens/s measured) that `gpuplan calibrate` accepts. Needs torch: skips
# (exit 77) without it, unless GPUPLAN_REQUIRE_SERVICES=1 (CI), where a missing torch fails.
G=${GPUPLAN:?set GPUPLAN to the binary}
ROOT=${1:?tests dir}
PY=""
for p in python3 /usr/bin/python3; do
  if "$p" -c 'import torch' >/dev/null 2>&1; then PY=$p; break; fi
done
if [[ -z "$PY" ]]; then
  if [[ "${GPUPLAN_REQUIRE_SERVICES:-0}" == 1 ]]; then echo "FAIL: no python3 with torch (.ci/setup-calibrate.sh installs python3-torch)"; exit 1; fi
  echo "SKIP: no python3 with torch"; exit 77
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
set -e
"$PY" "$ROOT/probe/tiny_train.py" "$TMP/runs.jsonl" 3
"$PY" - "$TMP/runs.jsonl" <<'PYEOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) == 3, rows
for r in rows:
    assert r["schema"] == "gpuplan-run/1"
    for k in ("peak_allocated_bytes", "peak_reserved_bytes", "device_bytes", "gpu"):
        assert r[k] is None, (k, r[k])
    assert r["tokens_per_second"] > 0, r
    assert r["steps"] == 6 and r["warmup_steps"] == 2, r
    assert r["torch_version"], r
    # Outcomes as the ledger spells them: samples over all 8 steps, the loss, a timed restore.
    assert r["family"] == "tiny" and r["samples"] == 8 * int(r["id"].split("-b")[1]), r
    assert r["metrics"][0]["name"] == "train_loss" and r["metrics"][0]["better"] == "lower", r
    assert r["restore_seconds"] >= 0 and "utilization" not in r, r  # no utilization on a CPU
print("probe: 3 CPU records, memory null, tokens/s", [round(r["tokens_per_second"]) for r in rows])
PYEOF
"$G" calibrate "$TMP/runs.jsonl" --format json > "$TMP/out.json"
"$PY" - "$TMP/out.json" <<'PYEOF'
import json, sys
j = json.load(open(sys.argv[1]))
assert len(j["runs"]) == 3, j
assert all("CPU run" in r["skipped"] for r in j["runs"]), j["runs"]
assert j["underfit"] == [], j
print("calibrate accepted the probe's records")
PYEOF
