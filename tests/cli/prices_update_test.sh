#!/usr/bin/env bash
# Issue 34: `gpuplan prices update` against a loopback mirror (catalog_server.py) that serves the
# catalog normally, as 304, 500, truncated, slow, oversized and malformed; the cache and the
# answers of `compare` and `providers list` after each. Loopback only: nothing leaves the machine.
# Usage: GPUPLAN=path/to/gpuplan prices_update_test.sh TESTS_DIR
set -u
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
FIX="$1/fixtures/prices_mirror"
SHEET="$FIX/catalogs/v8/runpod/vms.csv"
export XDG_CACHE_HOME="$TMP/cache"
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY no_proxy NO_PROXY

python3 "$1/cli/catalog_server.py" --root "$FIX" --port-file "$TMP/port" --log "$TMP/requests" --lifetime 120 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; rm -rf "$TMP"' EXIT
for _ in $(seq 100); do [[ -s "$TMP/port" ]] && break; sleep 0.1; done
URL="http://127.0.0.1:$(cat "$TMP/port")"
CACHE="$XDG_CACHE_HOME/gpuplan/prices/runpod"
UPDATE=("$G" prices update --provider runpod)
JOB=(compare --model llama-3.1-8b --method qlora --tokens 10M --gpu rtx-4090 --gpus 1)

# Before: the shipped sheet's 0.60 USD/h.
expect 0 "compare, no cache" -- "$G" "${JOB[@]}" --format json
has out '"rate_per_hour": 0.6,' "the shipped RunPod RTX 4090 price"
has out '"prices_from_cache": false' "not from the cache"

# A normal download: cached byte for byte with its metadata, then priced by compare.
expect 0 "update from the mirror" -- "${UPDATE[@]}" --from "$URL/ok/"
has out 'runpod +updated +4 ' "4 offers: RTX 4090 x1/x2, A100, H100"
cmp -s "$SHEET" "$CACHE/vms.csv" && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: cached sheet differs"; }
cp "$CACHE/meta.json" "$TMP/meta.json"
has meta.json "\"source\": \"$URL/ok/catalogs/v8/runpod/vms.csv\"" "meta names the URL"
has meta.json '"etag": "\\"[0-9a-f]{16}\\""' "meta keeps the ETag"
has meta.json '"last_modified": "Tue, 01 Dec 2026 10:00:00 GMT"' "meta keeps Last-Modified"
[[ $(stat -c %a "$CACHE/vms.csv") == 644 ]] && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: sheet mode $(stat -c %a "$CACHE/vms.csv")"; }
expect 0 "compare prices with the cache" -- "$G" "${JOB[@]}" --format json
has out '"rate_per_hour": 0.69,' "the mirror's price"
has out '"prices_from_cache": true' "from the cache"
has out "\"prices_source\": \"$URL/ok/catalogs/v8/runpod/vms.csv\"" "its source"
has out '"prices_age_days": 0,' "its age"
expect 0 "compare table" -- "$G" "${JOB[@]}"
has out 'prices from `gpuplan prices update`: runpod from' "the table notes say which"
has out 'http://127.0.0.1:[0-9]+/ok/catalogs/v8/runpod/vms.csv' "and the source"
has out '\(0 days old\)' "and how old"
lacks err 'runpod: prices' "a fresh sheet is not stale"
expect 0 "compare --offline" -- "$G" "${JOB[@]}" --offline --format json
has out '"rate_per_hour": 0.6,' "--offline: the shipped price"
expect 0 "providers list" -- "$G" providers list --format csv
has out '^runpod,runpod \(SkyPilot catalog\),USD,4,[0-9-]+,0,cache,' "source and age"
has out '^lambda,.*,shipped,' "others shipped"

# 304: the sheet is kept and only its check time moves.
sed -i 's/"checked_at": "[^"]*"/"checked_at": "2026-01-01T00:00:00Z"/' "$CACHE/meta.json"
expect 0 "update, not modified" -- "${UPDATE[@]}" --from "$URL/ok/"
has out 'runpod +unchanged' "304 reported"
cp "$CACHE/meta.json" "$TMP/meta2.json"
lacks meta2.json '"checked_at": "2026-01-01' "check time refreshed"
has meta2.json "$(grep -o '"fetched_at": "[^"]*"' "$TMP/meta.json")" "fetch time kept"
cmp -s "$SHEET" "$CACHE/vms.csv" && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: 304 changed the sheet"; }

# Every failure: non-zero, provider and reason named, the previous cache byte for byte.
cp -p "$CACHE/vms.csv" "$CACHE/meta.json" "$TMP/"
unchanged() {
  if cmp -s "$TMP/vms.csv" "$CACHE/vms.csv" && cmp -s "$TMP/meta.json" "$CACHE/meta.json" &&
     [[ $(ls -A "$CACHE" | tr '\n' ' ') == "meta.json vms.csv " ]]; then pass=$((pass + 1))
  else fail=$((fail + 1)); echo "FAIL: $1: the cache changed"; ls -A "$CACHE"; fi
}
expect 1 "500" -- "${UPDATE[@]}" --from "$URL/e500/"
has err 'error: runpod: HTTP 500' "names provider and reason"
unchanged 500
expect 1 "truncated" -- "${UPDATE[@]}" --from "$URL/truncated/"
has err 'runpod: .*cut short' "a short body"
unchanged truncated
expect 1 "slow" -- "${UPDATE[@]}" --from "$URL/slow/" --timeout 1
has err 'runpod: timed out' "a timeout"
unchanged slow
expect 1 "oversized, declared" -- "${UPDATE[@]}" --from "$URL/big/" --max-bytes 100000
has err 'runpod: larger than the 100000-byte limit' "declared size over the cap"
unchanged big
expect 1 "oversized, streamed" -- "${UPDATE[@]}" --from "$URL/bigstream/" --max-bytes 100000
has err 'runpod: larger than the 100000-byte limit' "streamed bytes over the cap"
unchanged bigstream
expect 1 "malformed" -- "${UPDATE[@]}" --from "$URL/malformed/"
has err 'runpod: not a valid price sheet: .*vms.csv:1' "the loader's message, with the line"
unchanged malformed
expect 1 "no such cloud" -- "$G" prices update --provider nosuchcloud --from "$URL/ok/"
has err 'nosuchcloud: HTTP 404' "404 named"
expect 0 "answers unchanged after the failures" -- "$G" "${JOB[@]}" --format json
has out '"rate_per_hour": 0.69,' "still the mirror's price"

# Proxies from the environment are honoured: mirror.invalid resolves only through the proxy.
expect 0 "through http_proxy" -- env http_proxy="$URL" "${UPDATE[@]}" --from "http://mirror.invalid/ok/"
has requests 'proxied' "the request went through the proxy"

# A local copy with the same layout.
expect 0 "update from a folder" -- "${UPDATE[@]}" --from "$FIX"
has out 'runpod +updated' "copied"
cmp -s "$SHEET" "$CACHE/vms.csv" && pass=$((pass + 1)) || { fail=$((fail + 1)); echo "FAIL: folder copy differs"; }

# A cache file that is not to be trusted is passed over, with a warning.
chmod 666 "$CACHE/vms.csv"
expect 0 "group-writable cache" -- "$G" "${JOB[@]}" --format json
has err 'writable by group or others; using the shipped prices' "refused"
has out '"rate_per_hour": 0.6,' "shipped price"
chmod 644 "$CACHE/vms.csv"
echo 'x' >>"$CACHE/vms.csv"
expect 0 "size differs from meta" -- "$G" "${JOB[@]}" --format json
has err 'does not match meta.json' "refused"

# Usage errors.
expect 2 "ftp URL" -- "$G" prices update --from ftp://example.com/
has err "expected an http:// or https:// base URL" "only the web or a folder"
expect 2 "missing folder" -- "$G" prices update --from "$TMP/nowhere"
expect 2 "provider with a slash" -- "$G" prices update --provider ../etc
expect 2 "--catalog refused" -- "$G" prices update --catalog "$SHEET"
finish
