# Shared by the CLI test scripts: the binary, a scratch dir, and expect/has checks.
# Source it, then call `finish` at the end.
G=${GPUPLAN:?set GPUPLAN to the binary}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0
fail=0

# expect CODE DESCRIPTION -- command...   (stdout -> $TMP/out, stderr -> $TMP/err)
expect() {
  local code=$1 what=$2
  shift 3
  "$@" >"$TMP/out" 2>"$TMP/err"
  local rc=$?
  if [[ $rc -eq $code ]]; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: $what: exit $rc, expected $code"; sed 's/^/  stderr: /' "$TMP/err" | head -5
  fi
}
# has FILE PATTERN DESCRIPTION
has() {
  if grep -qE -- "$2" "$TMP/$1"; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: $3: /$2/ not in $1"; head -5 "$TMP/$1" | sed 's/^/  /'
  fi
}
# lacks FILE PATTERN DESCRIPTION
lacks() {
  if ! grep -qE -- "$2" "$TMP/$1"; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: $3: /$2/ unexpectedly in $1"
  fi
}
finish() {
  echo "$pass passed, $fail failed"
  [[ $fail -eq 0 ]]
}
