#!/usr/bin/env bash
# Hand-offs and conventions that need only bash: stdin/stdout as "-", CLI11's errors said the
# gpuplan way, colour rules, non-regular inputs refused (a FIFO would block), --out written
# safely (symlinks, devices, modes, a full disk), check walking folders and escaping the
# GitHub annotations, the launch scripts' words surviving hostile model names, and the
# completions and man page covering every command and flag.
# Usage: GPUPLAN=path/to/gpuplan handoffs_test.sh TESTS_DIR
set -u
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ROOT="$1/.."
EX="$ROOT/examples/ci"
DATE=(--date 2026-12-02)
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# --- CLI11's errors: prefix and suggestion ------------------------------------------------
expect 2 "misspelt command" -- "$G" estimat --model llama-3.1-8b
has err "^gpuplan: error: unknown command 'estimat' \(did you mean 'estimate'\?\)" "command suggestion"
expect 2 "misspelt flag" -- "$G" estimate --modle llama-3.1-8b
has err "^gpuplan: error: unknown option '--modle' \(did you mean '--model'\?\)" "flag suggestion"
has err "Run 'gpuplan estimate --help'" "points at the command's help"
expect 2 "no command" -- "$G"
has err "^gpuplan: error: " "no-command error prefixed"
expect 2 "nested group without its command" -- "$G" gpus
has err "^gpuplan: error: " "group error prefixed"

# --- colour: NO_COLOR only when non-empty, TERM=dumb never ----------------------------------
if command -v script >/dev/null; then
  tty_run() { script -qec "$*" /dev/null </dev/null >"$TMP/out" 2>&1; }
  tty_run env NO_COLOR= TERM=xterm "$G" gpus list
  grep -q $'\e\[' "$TMP/out" && ok || bad "NO_COLOR='' must keep colour on a terminal"
  tty_run env NO_COLOR=1 TERM=xterm "$G" gpus list
  grep -q $'\e\[' "$TMP/out" && bad "NO_COLOR=1 must disable colour" || ok
  tty_run env -u NO_COLOR TERM=dumb "$G" gpus list
  grep -q $'\e\[' "$TMP/out" && bad "TERM=dumb must disable colour" || ok
fi

# --- "-" is standard input / output --------------------------------------------------------
expect 0 "policy from stdin" -- bash -c "\"$G\" check \"$EX/passing/experiments\" --policy - --ledger \"$EX/passing/ledger.jsonl\" ${DATE[*]} <\"$EX/passing/budget.yaml\""
has out "rules pass" "stdin policy applied"
expect 2 "stdin twice" -- bash -c "\"$G\" check \"$EX/passing/experiments\" --policy - --ledger - ${DATE[*]} <\"$EX/passing/budget.yaml\""
has err "already read" "a second - is refused, not read empty"
expect 0 "old --budget spelling still works" -- "$G" check "$EX/passing/experiments" --budget "$EX/passing/budget.yaml" "${DATE[@]}"

# --- non-regular inputs are refused by name, without blocking --------------------------------
mkfifo "$TMP/fifo.yaml"
expect 2 "catalog FIFO" -- timeout 10 "$G" gpus list --catalog "$TMP/fifo.yaml"
has err "fifo\.yaml.*FIFO" "FIFO named"
expect 2 "model-config FIFO" -- timeout 10 "$G" estimate --model-config "$TMP/fifo.yaml"
has err "FIFO" "model config FIFO named"
expect 2 "policy FIFO" -- timeout 10 "$G" check "$EX/passing/experiments" --policy "$TMP/fifo.yaml"
has err "FIFO" "policy FIFO named"
expect 2 "ledger FIFO" -- timeout 10 "$G" check "$EX/passing/experiments" --ledger "$TMP/fifo.yaml"
has err "FIFO" "ledger FIFO named"
mkdir -p "$TMP/fifospec"
printf 'model_config: ../fifo.yaml\ntokens: 1B\n' >"$TMP/fifospec/x.yaml"
expect 2 "spec's model_config FIFO" -- timeout 10 "$G" check "$TMP/fifospec"
has err "FIFO" "spec FIFO named"
expect 2 "safetensors FIFO" -- timeout 10 "$G" estimate --safetensors "$TMP/fifo.yaml"
has err "FIFO" "safetensors FIFO named"
expect 2 "character device as input" -- "$G" gpus list --catalog /dev/zero
has err "character device" "device named"

# --- --out: atomic, no symlink/device replacement, mode kept, full disk reported -----------
JOB=(--model llama-3.1-8b --tokens 100M --provider aws --max-nodes 1 --emit deepspeed)
echo keep >"$TMP/victim"
ln -s "$TMP/victim" "$TMP/link.json"
expect 2 "--out onto a symlink" -- "$G" plan "${JOB[@]}" --out "$TMP/link.json"
has err "symbolic link" "symlink refused by name"
[[ $(cat "$TMP/victim") == keep && -L $TMP/link.json ]] && ok || bad "the link or its target changed"
expect 2 "--out onto a device" -- "$G" plan "${JOB[@]}" --out /dev/null
has err "character device" "device refused"
echo old >"$TMP/ds.json"
chmod 600 "$TMP/ds.json"
expect 0 "--out over a 0600 file" -- "$G" plan "${JOB[@]}" --out "$TMP/ds.json"
[[ $(stat -c %a "$TMP/ds.json") == 600 ]] && ok || bad "mode 0600 became $(stat -c %a "$TMP/ds.json")"
grep -q train_micro_batch_size_per_gpu "$TMP/ds.json" && ok || bad "--out file not written"
echo old >"$TMP/full.json"
# RLIMIT_FSIZE 0 fails every write to a regular file, as a full disk does; stderr goes through a
# pipe (outside the limit) so the message can be read.
expect 2 "--out on a full disk (file size limit 0)" -- bash -c "( trap '' XFSZ; ulimit -f 0; exec \"$G\" plan ${JOB[*]} --out \"$TMP/full.json\" ) 2>&1 | cat >&2; exit \${PIPESTATUS[0]}"
has err "write failed: File too large" "the failed write is reported"
[[ $(cat "$TMP/full.json") == old ]] && ok || bad "a failed --out changed the old file"
[[ -z $(find "$TMP" -maxdepth 1 -name '.full.json.*') ]] && ok || bad "a temporary file was left behind"
expect 2 "stdout on a full disk" -- bash -c "\"$G\" gpus list > /dev/full"
has err "writing standard output: No space left on device" "ENOSPC on stdout reported"
expect 0 "--out - is stdout" -- "$G" plan "${JOB[@]}" --out -
has out '"train_micro_batch_size_per_gpu"' "launch file on stdout"

# --- check: subfolders, any-case extensions, a count; GitHub escaping -----------------------
mkdir -p "$TMP/specs/team/deep"
cp "$EX/passing/experiments/llama8b-qlora.yaml" "$TMP/specs/a.yaml"
sed 's/^name: .*/name: big/; s/^max_cost: .*/max_cost: 0.01/' "$EX/passing/experiments/llama8b-qlora.yaml" >"$TMP/specs/team/deep/B.YAML"
cp "$EX/passing/experiments/qwen7b-lora-spot.yaml" "$TMP/specs/team/c.yml"
expect 1 "an over-budget spec in a subfolder fails the gate" -- "$G" check "$TMP/specs" "${DATE[@]}"
has out "big" "nested .YAML spec read"
has out "read 3 experiment specs" "count of specs read"
weird=$'a,line=99::forged\nb:c%.yaml'
mkdir -p "$TMP/gh"
cp "$TMP/specs/team/deep/B.YAML" "$TMP/gh/$weird"
expect 1 "github format with a hostile file name" -- "$G" check "$TMP/gh/$weird" "${DATE[@]}" --format github
[[ $(grep -c '^::\(error\|warning\|notice\)' "$TMP/out") == 1 ]] && ok || bad "a file name forged a second workflow command"
has out '^::error file=[^,]*a%2Cline=99%3A%3Aforged%0Ab%3Ac%25\.yaml,line=[0-9]+::' "file property escaped as the toolkit does"

# --- serve/estimate refusals (issue 16.8) ----------------------------------------------------
expect 2 "serve --max-batch 0" -- "$G" serve --model llama-3.1-8b --requests-per-second 1 --max-batch 0
has err "max-batch" "max-batch named"
expect 2 "tensor parallel beyond the heads" -- "$G" estimate --model llama-3.1-8b --gpus 64 --tensor-parallel 64
has err "attention heads" "heads named"

# --- launch scripts: hostile names reach train.py word for word (bash only) ----------------
mkdir -p "$TMP/fake"
printf '#!/bin/bash\nprintf "%%s\\n" "$@" >"$CAPTURE"\n' >"$TMP/fake/torchrun"
printf '#!/bin/bash\nexec "$@"\n' >"$TMP/fake/srun"
printf '#!/bin/bash\nprintf "n1\\nn2\\n"\n' >"$TMP/fake/scontrol"
chmod +x "$TMP/fake/"*
CONFIG='{"model_type": "llama", "hidden_size": 2048, "intermediate_size": 8192, "num_hidden_layers": 16, "num_attention_heads": 32,
 "num_key_value_heads": 8, "vocab_size": 128256, "max_position_embeddings": 8192, "tie_word_embeddings": true}'
i=0
for name in "2024" "yes" 'x$(touch INJECTED)' "it's \"q\"" "a b" "ünï-模型" '*'; do
  i=$((i + 1))
  mkdir -p "$TMP/m$i/$name"
  printf '%s\n' "$CONFIG" >"$TMP/m$i/$name/config.json"
  for engine in slurm torchrun; do
    "$G" plan --model-config "$TMP/m$i/$name/config.json" --tokens 100M --provider aws --max-nodes 1 --emit $engine --out "$TMP/l.$engine" >/dev/null 2>"$TMP/err" ||
      { bad "plan --emit $engine for '$name'"; continue; }
    (cd "$TMP" && env PATH="$TMP/fake:$PATH" CAPTURE="$TMP/args" MASTER_ADDR=n1 bash "$TMP/l.$engine" >/dev/null 2>&1) || bad "$engine script for '$name' failed"
    grep -qxF -- "$name" "$TMP/args" && ok || bad "$engine: train.py did not get --model '$name'"
    [[ ! -e $TMP/INJECTED ]] && ok || bad "$engine: a name was executed"
  done
done

# --- completions and man page cover every command and flag ------------------------------------
"$G" completions bash >"$TMP/c.bash" && "$G" completions zsh >"$TMP/c.zsh" && "$G" completions fish >"$TMP/c.fish" && "$G" man >"$TMP/g.1" || bad "generators"
bash -n "$TMP/c.bash" && ok || bad "bash completion syntax"
subcommands_of() { awk 'tolower($0) ~ /^subcommands:/ {on=1; next} on && /^$/ {exit} on && /^  [a-z]/ {print $1}'; }
commands=$("$G" --help | subcommands_of)
[[ -n $commands ]] && ok || bad "no commands parsed from --help"
for c in $commands; do
  words=("$c")
  subs=$("$G" "$c" --help | subcommands_of)
  for s in $subs; do words+=("$c $s"); done
  for w in "${words[@]}"; do
    # shellcheck disable=SC2086
    flags=$("$G" $w --help | awk '/^ +-/ {print $1}' | tr ',' '\n' | grep -E '^--[a-z0-9]' | sort -u)
    for f in $flags; do
      for file in c.bash c.zsh g.1; do
        pat=$f
        [[ $file == g.1 ]] && pat=${f//-/\\-}
        grep -qF -- "$pat" "$TMP/$file" || { bad "$f ($w) missing from $file"; }
      done
      grep -qE -- "-l ${f#--}( |$)" "$TMP/c.fish" || bad "$f ($w) missing from fish"
    done
    last=${w##* }
    for file in c.bash c.zsh c.fish g.1; do grep -qw -- "$last" "$TMP/$file" || bad "command '$w' missing from $file"; done
  done
done
ok
# The bash completion works: "gpuplan est<TAB>" and "gpuplan plan --em<TAB>".
out=$(bash -c 'source "$1"; COMP_WORDS=(gpuplan est); COMP_CWORD=1; _gpuplan; echo "${COMPREPLY[*]}"' _ "$TMP/c.bash")
[[ $out == estimate ]] && ok || bad "bash completes 'est' to '$out'"
out=$(bash -c 'source "$1"; COMP_WORDS=(gpuplan plan --em); COMP_CWORD=2; _gpuplan; echo "${COMPREPLY[*]}"' _ "$TMP/c.bash")
[[ $out == --emit ]] && ok || bad "bash completes 'plan --em' to '$out'"
out=$(bash -c 'source "$1"; COMP_WORDS=(gpuplan gpus ""); COMP_CWORD=2; _gpuplan; echo "${COMPREPLY[*]}"' _ "$TMP/c.bash")
[[ $out == *list* ]] && ok || bad "bash completes 'gpus ' to '$out'"
# An enum flag's value: "gpuplan plan --emit to<TAB>" and "gpuplan estimate --method q<TAB>".
out=$(bash -c 'source "$1"; COMP_WORDS=(gpuplan plan --emit to); COMP_CWORD=3; _gpuplan; echo "${COMPREPLY[*]}"' _ "$TMP/c.bash")
[[ $out == "torchrun torchtitan" ]] && ok || bad "bash completes 'plan --emit to' to '$out'"
out=$(bash -c 'source "$1"; COMP_WORDS=(gpuplan estimate --method q); COMP_CWORD=3; _gpuplan; echo "${COMPREPLY[*]}"' _ "$TMP/c.bash")
[[ $out == qlora ]] && ok || bad "bash completes 'estimate --method q' to '$out'"
grep -qF -- "-l emit -x -a 'deepspeed accelerate torchrun skypilot slurm torchtitan megatron'" "$TMP/c.fish" && ok || bad "fish offers --emit's values"
for sh in zsh fish; do
  if command -v $sh >/dev/null; then $sh -n "$TMP/c.$sh" && ok || bad "$sh completion syntax"
  elif [[ ${GPUPLAN_REQUIRE_SERVICES:-0} == 1 ]]; then bad "$sh missing (GPUPLAN_REQUIRE_SERVICES=1)"; fi
done
if command -v groff >/dev/null; then
  groff -man -Tutf8 -ww -z "$TMP/g.1" 2>"$TMP/groff" && [[ ! -s $TMP/groff ]] && ok || { bad "groff warnings"; head "$TMP/groff"; }
fi
finish
