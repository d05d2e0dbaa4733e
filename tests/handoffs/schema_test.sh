#!/usr/bin/env bash
# The experiment JSON Schema and `gpuplan check` agree: the shipped schema is the generated one,
# and each case below is accepted by both or refused by both (the schema through python3's
# jsonschema, the spec through `check`). Exit 77 when python3-jsonschema is missing, unless
# GPUPLAN_REQUIRE_SERVICES=1.
set -uo pipefail
ROOT=${1:?usage: schema_test.sh SOURCE_DIR}
G=${GPUPLAN:?set GPUPLAN to the binary}
PY=/usr/bin/python3
if ! $PY -c 'import jsonschema, yaml' 2>/dev/null; then
  echo "missing: python3-jsonschema/python3-yaml"
  [[ ${GPUPLAN_REQUIRE_SERVICES:-0} == 1 ]] && exit 1
  exit 77
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0
fail=0
"$G" schema experiment >"$TMP/schema.json"
if cmp -s "$TMP/schema.json" "$ROOT/schemas/experiment.schema.json"; then pass=$((pass + 1)); else
  fail=$((fail + 1)); echo "FAIL: schemas/experiment.schema.json is not what 'gpuplan schema experiment' prints"; fi

BASE=$'model: llama-3.1-8b\ntokens: 100M\ngpu: h100-sxm\n'
cases=()
add() { cases+=("$1"); }
add "micro-batch: 4"
add "micro_batch: 4"
add "batch: 8"
add "seq-len: 1024"
add "pricing: spott"
add "precision: bf17"
add "modle: x"
add "provider: [aws, lambda]"
add "lora_rank: 8"
add "pure-bf16: true"
add "max_cost: 50"
add "max-cost: 50"
add "format: json"
add "packing: on"
add "packing: sideways"
for key in pricing optimizer attention checkpointing loss precision sharding; do
  for v in $($PY -c "import json,sys; print(' '.join(json.load(open(sys.argv[1]))['properties'][sys.argv[2]]['enum']))" "$TMP/schema.json" "$key"); do
    add "$key: $v"
  done
  add "$key: not-a-$key"
done
i=0
for c in "${cases[@]}"; do
  i=$((i + 1))
  printf '%s%s\n' "$BASE" "$c" >"$TMP/s$i.yaml"
  schema_ok=$($PY - "$TMP/schema.json" "$TMP/s$i.yaml" <<'PY'
import json, re, sys, yaml, jsonschema
# YAML 1.2's core schema, as gpuplan (yaml-cpp) and editors' YAML language servers read specs:
# only true/false are booleans (PyYAML's default is YAML 1.1, where on/off/yes/no are too).
class Yaml12(yaml.SafeLoader):
    pass
Yaml12.yaml_implicit_resolvers = {k: [r for r in v if r[0] != "tag:yaml.org,2002:bool"]
                                  for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()}
Yaml12.add_implicit_resolver("tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))
try:
    jsonschema.validate(yaml.load(open(sys.argv[2]), Loader=Yaml12), json.load(open(sys.argv[1])))
    print("accept")
except jsonschema.ValidationError:
    print("refuse")
PY
)
  "$G" check "$TMP/s$i.yaml" --date 2026-12-02 >"$TMP/out" 2>"$TMP/err"
  rc=$?
  check_ok=$([[ $rc -eq 2 ]] && echo refuse || echo accept)
  if [[ $schema_ok == "$check_ok" ]]; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: '$c': schema says $schema_ok, check says $check_ok (exit $rc)"; head -3 "$TMP/err"; fi
done
echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
