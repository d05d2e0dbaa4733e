#!/usr/bin/env bash
# Installs the built tree to a temporary prefix and builds a consumer against it.
set -euo pipefail
BUILD=$1
SRC=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cmake --install "$BUILD" --prefix "$TMP/prefix" >/dev/null
test -x "$TMP/prefix/bin/gpuplan"
test -f "$TMP/prefix/share/gpuplan/data/gpus.yaml"
GPUPLAN_DATA_DIR="$TMP/prefix/share/gpuplan/data" "$TMP/prefix/bin/gpuplan" gpus show h100 --format json >/dev/null
cmake -S "$SRC" -B "$TMP/build" -DCMAKE_PREFIX_PATH="$TMP/prefix" >/dev/null
cmake --build "$TMP/build" >/dev/null
"$TMP/build/consumer"
echo "1 passed, 0 failed"
