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
# Completions and the man page, generated at build time from the CLI definitions.
for f in share/bash-completion/completions/gpuplan share/zsh/site-functions/_gpuplan \
  share/fish/vendor_completions.d/gpuplan.fish share/man/man1/gpuplan.1 include/gpuplan/io/catalogs/shipped_data.hpp \
  include/gpuplan/io/emit/emit.hpp include/gpuplan/io/usage/job_log.hpp include/gpuplan/io/model_files/hf_config.hpp; do
  test -s "$TMP/prefix/$f" || { echo "not installed: $f" >&2; exit 1; }
done
# The executable's own libraries (renderers, the price download) are not a library user's.
for d in include/gpuplan/io/render include/gpuplan/io/fetch include/gpuplan/io/text/yaml_document.hpp; do
  test ! -e "$TMP/prefix/$d" || { echo "installed, but the executable's own: $d" >&2; exit 1; }
done
grep -q -- '--emit' "$TMP/prefix/share/bash-completion/completions/gpuplan"
GPUPLAN_DATA_DIR="$TMP/prefix/share/gpuplan/data" "$TMP/prefix/bin/gpuplan" gpus show h100 --format json >/dev/null
cmake -S "$SRC" -B "$TMP/build" -DCMAKE_PREFIX_PATH="$TMP/prefix" >/dev/null
cmake --build "$TMP/build" >/dev/null
"$TMP/build/consumer"
echo "1 passed, 0 failed"
