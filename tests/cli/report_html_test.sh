#!/usr/bin/env bash
# The cost dashboard in a real browser: headless Chromium loads the HTML file from disk with the
# network disabled; a checker compares every number shown with `report --format json`, and
# hostile names (<script>, quotes, unicode) must arrive as text. A screenshot is kept under
# $GPUPLAN_ARTIFACT_DIR (build/artifacts/ in ctest) as the CI artifact. Without chromium or
# python3 the test skips (77), unless GPUPLAN_REQUIRE_SERVICES=1, when it fails.
source "$(dirname "$0")/lib.sh"
HERE="$(cd "$(dirname "$0")" && pwd)"
ART="${GPUPLAN_ARTIFACT_DIR:-$TMP}"
mkdir -p "$ART"

L="$TMP/spend.jsonl"
add() { "$G" ledger add --ledger "$L" --date "$1" --experiment "$2" --team "$3" --user "$4" --cost "$5" ${6:+--tokens "$6"} >/dev/null; }
HOSTILE_TEAM='<script>alert(1)</script>'
HOSTILE_USER="o'brien \"q\" & co"
HOSTILE_EXP='ünïcødé-实验-🚀'
add 2026-11-20 old-run nlp asha 400
add 2026-12-01 llama8b-qlora nlp asha 120.5 2B
add 2026-12-03 llama8b-qlora nlp asha 80.25 1B
add 2026-12-04 "$HOSTILE_EXP" "$HOSTILE_TEAM" "$HOSTILE_USER" "5000 INR"
add 2026-12-08 vit-pretrain cv ravi 210
# Runs with measured outcomes: the families section, its chart and table, rendered by the browser.
"$G" ledger add --ledger "$L" --date 2026-12-02 --experiment "sft/a" --cost 30 --metric eval_loss=2.1:lower --utilization 52% --tokens 1B >/dev/null
"$G" ledger add --ledger "$L" --date 2026-12-05 --experiment "sft/b" --cost 35 --metric eval_loss=1.9:lower --utilization 55% --tokens 1B >/dev/null
"$G" ledger add --ledger "$L" --date 2026-12-06 --experiment "$HOSTILE_EXP/x" --cost 12 --metric "acc<b>=0.5:higher" --samples 3M >/dev/null
cat >"$TMP/budget.yaml" <<'YAML'
currency: USD
total: 700
teams:
  nlp: 150
  "<script>alert(1)</script>": 40
users:
  asha: 300
YAML
mkdir -p "$TMP/specs"
cat >"$TMP/specs/llama.yaml" <<'YAML'
name: llama8b-qlora
model: llama-3.1-8b
method: qlora
tokens: 200M
gpu: rtx-4090
pricing: spot
YAML

expect 0 "report json" -- "$G" report --ledger "$L" --budget "$TMP/budget.yaml" --specs "$TMP/specs" --date 2026-12-10 --format json
cp "$TMP/out" "$TMP/report.json"
has out '"kind": "over_cap"' "over-cap alert in JSON"
has out '"kind": "spot_no_checkpoint"' "spot-without-checkpoint alert in JSON"
expect 0 "report html" -- "$G" report --ledger "$L" --budget "$TMP/budget.yaml" --specs "$TMP/specs" --date 2026-12-10 --html "$ART/report.html"
has out "wrote .*report.html" "says where the page is"
has out "alert: " "terminal summary lists the alerts"
expect 0 "report csv" -- "$G" report --ledger "$L" --budget "$TMP/budget.yaml" --date 2026-12-10 --format csv
has out '^team,nlp,200.75,150.00,' "CSV row for a team"
has out "^team,<script>alert\\(1\\)</script>,55.31," "CSV keeps the hostile name as data"
# One self-contained file: no scripts, no external references.
lacks_file() { if grep -qiE -- "$1" "$ART/report.html"; then fail=$((fail + 1)); echo "FAIL: $2"; else pass=$((pass + 1)); fi; }
lacks_file '<script' "the page holds no <script> element (hostile name escaped)"
lacks_file 'https?://' "the page refers to nothing on the network"
lacks_file '<link|@import|url\(http' "no external stylesheet"

browser=$(command -v chromium || command -v chromium-browser || true)
if [[ -z "$browser" ]] || ! command -v python3 >/dev/null; then
  if [[ "${GPUPLAN_REQUIRE_SERVICES:-0}" == 1 ]]; then echo "FAIL: chromium and python3 are required (GPUPLAN_REQUIRE_SERVICES=1)"; exit 1; fi
  echo "SKIP: chromium or python3 not installed; the browser half did not run"
  finish || exit 1
  exit 77
fi
# No network for the browser: its own namespace where we may make one, and proxy/DNS rules
# that point every request at nothing in any case.
jail=()
unshare -rn true 2>/dev/null && jail=(unshare -rn)
flags=(--headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run --user-data-dir="$TMP/chrome" --proxy-server=http://127.0.0.1:9
  --host-resolver-rules="MAP * ~NOTFOUND" --window-size=1200,3600)
timeout 120 "${jail[@]}" "$browser" "${flags[@]}" --dump-dom "file://$ART/report.html" >"$TMP/dom.html" 2>"$TMP/chrome.err"
[[ -s "$TMP/dom.html" ]] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: chromium rendered nothing"; tail -5 "$TMP/chrome.err"; }
if python3 "$HERE/report_dom_check.py" "$TMP/dom.html" "$TMP/report.json" "$HOSTILE_TEAM" "$HOSTILE_USER" "$HOSTILE_EXP" >"$TMP/check.out"; then
  pass=$((pass + 1))
else
  fail=$((fail + 1))
fi
cat "$TMP/check.out"
timeout 120 "${jail[@]}" "$browser" "${flags[@]}" --screenshot="$ART/report-screenshot.png" "file://$ART/report.html" >/dev/null 2>>"$TMP/chrome.err"
[[ -s "$ART/report-screenshot.png" ]] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: no screenshot"; }
echo "screenshot: $ART/report-screenshot.png"
finish
