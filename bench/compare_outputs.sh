#!/bin/bash
# Runs two gpuplan binaries on the same `compare` and `catalog validate` commands and reports every
# command whose stdout, stderr or exit code differ: the check that a speed change to the SkyPilot
# reader or to compare kept their output byte for byte.
# Usage: bench/compare_outputs.sh OLD_GPUPLAN NEW_GPUPLAN [DIR]  (DIR holds the generated sheets)
set -u
OLD=$(realpath "$1"); NEW=$(realpath "$2"); DIR=${3:-/tmp/gpuplan-compare-outputs}
HERE=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$DIR" && cd "$DIR" || exit 2
[ -f vms_100000.csv ] || python3 -c "import sys; sys.path.insert(0, '$HERE/bench'); import scale
for n in (10000, 100000): scale.write_sheet('vms_%d.csv' % n, n)"
[ -f collapsed_1m.csv ] || python3 "$HERE/bench/skypilot_1m.py" collapsed_1m.csv  # 1M rows, 100,000 offers
head -n 2000 collapsed_1m.csv > collapsed_2k.csv
cp "$HERE"/tests/fixtures/skypilot/*.csv "$HERE"/tests/fuzz/corpus/skypilot_csv/*.csv .
n=0; bad=0
run() {
  n=$((n + 1))
  "$OLD" "$@" >old.out 2>old.err; local a=$?
  "$NEW" "$@" >new.out 2>new.err; local b=$?
  if [ $a != $b ] || ! cmp -s old.out new.out || ! cmp -s old.err new.err; then
    bad=$((bad + 1)); echo "differs (exit $a vs $b): $*"
  fi
}
W="--model llama-3.1-8b --method lora --tokens 200M"
for s in vms_10000.csv vms_100000.csv collapsed_2k.csv collapsed_1m.csv; do
  for f in table json csv markdown; do run compare $W --sheet $s --format $f; done
  run compare $W --sheet $s --explain
  run compare $W --sheet $s --sort time --top 50
  run compare $W --sheet $s --owned rtx-4090 --owned-utilization 30% --power-price 0.30/kWh
  run catalog validate $s
  run catalog validate $s --format json
done
run compare $W --sheet vms_10000.csv --sheet collapsed_2k.csv --budget 300 --deadline 2d
run compare $W --sheet vms_100000.csv --sheet vms_10000.csv --budget 50 --deadline 10h --format json
run compare $W --sheet vms_10000.csv --sheet collapsed_2k.csv --pricing spot --explain --format markdown
for s in *.csv; do  # the reader's fixtures: other clouds, GCP host rows, CRLF, hostile input
  case $s in vms_1*|collapsed_1m.csv) continue ;; esac
  run catalog validate $s
  run compare $W --sheet $s --format json
  run compare $W --sheet $s --explain
  run compare $W --catalog $s --format csv
done
for f in table json csv markdown; do run compare $W --format $f; run compare --model llama-3.1-8b --method qlora --format $f; done
run compare $W --explain --sort time
run compare $W --pricing spot --budget 20 --deadline 1d --format json
echo "$n commands, $bad differ"
[ $bad = 0 ]
