#!/usr/bin/env bash
# Builds the libFuzzer targets with clang and runs each for SECONDS (default 30).
# New inputs go to a scratch copy; crashes are saved under build-fuzz/artifacts/ and fail the run.
# Every crash found becomes a file in tests/fuzz/corpus/<target>/ and a unit test.
set -euo pipefail
SECONDS_EACH=${1:-30}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD="$ROOT/build-fuzz"
if ! command -v clang++ >/dev/null || ! dpkg -s libclang-rt-14-dev >/dev/null 2>&1; then
  SUDO=""
  [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq clang libclang-rt-14-dev >/dev/null
fi
# -O1 with line tables only, as libFuzzer's own guide builds: this third compile of the tree
# is on CI's clock, and a crash still symbolises to file and line.
cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DGPUPLAN_FUZZ=ON -DGPUPLAN_BUILD_TESTS=OFF \
  -DGPUPLAN_INSTALL=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only -DNDEBUG" >/dev/null
cmake --build "$BUILD" --target fuzz_catalog_yaml fuzz_skypilot_csv fuzz_hf_config fuzz_safetensors fuzz_units fuzz_budget_files fuzz_multi_file fuzz_cli fuzz_ledger_store fuzz_cache_file
mkdir -p "$BUILD/artifacts"
status=0
# Inputs up to 1 MiB (issue 16: most round-two findings needed more than the old 64 KiB), and
# a token dictionary for the YAML and JSON readers.
dict_for() {
  case $1 in
    catalog_yaml | budget_files) echo "-dict=$ROOT/tests/fuzz/yaml.dict" ;;
    hf_config | safetensors | multi_file) echo "-dict=$ROOT/tests/fuzz/json.dict" ;;
  esac
}
for target in catalog_yaml skypilot_csv hf_config safetensors units budget_files multi_file cli ledger_store cache_file; do
  scratch=$(mktemp -d)
  echo "fuzz_$target: ${SECONDS_EACH}s" >&2
  if ! "$BUILD/tests/fuzz/fuzz_$target" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 -max_len=1048576 $(dict_for $target) -close_fd_mask=$([[ $target == cli ]] && echo 2 || echo 0) \
      -artifact_prefix="$BUILD/artifacts/${target}-" "$scratch" "$ROOT/tests/fuzz/corpus/$target" \
      2>"$BUILD/fuzz_$target.log"; then
    echo "fuzz_$target FAILED; see $BUILD/fuzz_$target.log and $BUILD/artifacts/" >&2
    tail -30 "$BUILD/fuzz_$target.log" >&2
    status=1
  fi
  grep -E "^Done [0-9]+ runs" "$BUILD/fuzz_$target.log" | sed "s/^/fuzz_$target: /" >&2 || true
  rm -rf "$scratch"
done
exit $status
