#!/usr/bin/env bash
# Builds and runs the plan benchmark (Release), printing configurations per second on one core.
# Usage: bench/run.sh [REPEATS]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cmake -S "$root" -B "$root/build-bench" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUPLAN_BUILD_BENCH=ON -DGPUPLAN_BUILD_TESTS=OFF >/dev/null
ninja -C "$root/build-bench" plan_bench >/dev/null
taskset -c 0 "$root/build-bench/bench/plan_bench" "${1:-5}" "$root/tests/fixtures/skypilot/lambda_vms.csv" 2>/dev/null ||
  "$root/build-bench/bench/plan_bench" "${1:-5}" "$root/tests/fixtures/skypilot/lambda_vms.csv"
