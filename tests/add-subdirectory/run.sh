#!/usr/bin/env bash
# Configures a consumer that add_subdirectory()s this source tree with GPUPLAN_BUILD_CLI=OFF and
# compiles its one source file against gpuplan's headers. gpuplan itself is never built here:
# building it again inside ctest would cost minutes in CI, and the find_package test already
# builds, links and runs the same consumer against an install.
set -euo pipefail
ROOT=$1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cmake -S "$(cd "$(dirname "$0")" && pwd)" -B "$TMP" -G Ninja -DGPUPLAN_SOURCE_DIR="$ROOT" >"$TMP.log" 2>&1 || { cat "$TMP.log"; rm -f "$TMP.log"; exit 1; }
rm -f "$TMP.log"
cmake --build "$TMP" --target consumer_headers >"$TMP.log" 2>&1 || { cat "$TMP.log"; rm -f "$TMP.log"; exit 1; }
rm -f "$TMP.log"
echo "1 passed, 0 failed"
