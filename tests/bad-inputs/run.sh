#!/usr/bin/env bash
# Runs the bad-input corpus: every case must exit with the expected code (2), print a stderr
# message matching its regex, and create or modify no file in its working directory or in the
# corpus directory.
# Usage: GPUPLAN=path/to/gpuplan bash run.sh CORPUS_DIR [MANIFEST]   (MANIFEST defaults to cases.tsv)
# Manifest: tab-separated name, command, exit, stderr_regex; a header line first.
#   {G} = the binary, {D} = the corpus dir, {F} = {D}/files/NAME with any "@suffix" cut off
#   (so one file can be run by several commands: x.yaml and x.yaml@list).
set -u
G=${GPUPLAN:?set GPUPLAN to the gpuplan binary}
D=$(cd "${1:?usage: run.sh CORPUS_DIR}" && pwd)
MANIFEST=${2:-$D/cases.tsv}
G=$(cd "$(dirname "$G")" && pwd)/$(basename "$G")
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

snapshot() {  # every entry under $1 with its size and modification time (to the nanosecond):
  # any write changes one of them, and one find per case is cheap where checksums were not.
  (cd "$1" && find . -mindepth 1 -printf '%y %p %s %T@\n' | LC_ALL=C sort)
}

snapshot "$D" >"$TMP/corpus.before"
pass=0
fail=0
line=0
while IFS=$'\t' read -r name cmd code regex || [[ -n "$name" ]]; do
  line=$((line + 1))
  [[ $line -eq 1 || -z "$name" || "$name" == \#* ]] && continue
  f="$D/files/${name%%@*}"
  cmd=${cmd//\{G\}/$(printf '%q' "$G")}
  cmd=${cmd//\{F\}/$(printf '%q' "$f")}
  cmd=${cmd//\{D\}/$(printf '%q' "$D")}
  work="$TMP/work.$line"
  mkdir "$work"
  (cd "$work" && timeout 30 bash -c "$cmd" </dev/null >"$TMP/out" 2>"$TMP/err")
  rc=$?
  problems=()
  [[ $rc -eq $code ]] || problems+=("exit $rc, expected $code")
  grep -qE -- "$regex" "$TMP/err" || problems+=("stderr does not match /$regex/")
  [[ -z "$(find "$work" -mindepth 1 -print -quit)" ]] ||
    problems+=("created files in the working dir: $(cd "$work" && find . -mindepth 1 | head -5 | tr '\n' ' ')")
  snapshot "$D" >"$TMP/corpus.after"
  if ! cmp -s "$TMP/corpus.before" "$TMP/corpus.after"; then
    problems+=("changed the corpus dir: $(diff "$TMP/corpus.before" "$TMP/corpus.after" | grep '^[<>]' | head -3 | tr '\n' ' ')")
    cp "$TMP/corpus.after" "$TMP/corpus.before"
  fi
  rm -rf "$work"
  if [[ ${#problems[@]} -eq 0 ]]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL: $name: $(IFS=';'; echo "${problems[*]}")"
    head -3 "$TMP/err" | sed 's/^/  stderr: /'
  fi
done <"$MANIFEST"

echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
