#!/usr/bin/env python3
"""Runs every gpuplan example the README and the commands' --help footers show, in a scratch
folder that holds the files they name (built from the shipped examples and test fixtures).

An example passes when it exits 0 or 1 (1: a gate answered "no", e.g. a failing budget check)
and writes no error. Examples that need a server (postgresql://) are skipped and counted.
Usage: readme_examples_test.py GPUPLAN REPO_ROOT
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

G, ROOT = sys.argv[1], sys.argv[2]


def readme_examples():
    out, block, pending = [], False, ""
    for line in open(os.path.join(ROOT, "README.md"), encoding="utf-8"):
        if line.startswith("```"):
            block = not block
            continue
        if not block:
            continue
        line = pending + line.rstrip("\n")
        if line.endswith("\\"):
            pending = line[:-1] + " "
            continue
        pending = ""
        if line.strip().startswith("gpuplan "):
            out.append(("README", line.strip()))
    return out


def help_examples():
    out, seen = [], set()
    top = subprocess.run([G, "--help"], capture_output=True, text=True).stdout
    commands = re.findall(r"^  ([a-z-]+)\s{2,}", top, re.M)
    for cmd in [""] + commands:
        text = subprocess.run([G] + ([cmd] if cmd else []) + ["--help"], capture_output=True, text=True).stdout
        if "Examples:" not in text:
            continue
        for line in text.split("Examples:", 1)[1].splitlines():
            line = line.strip()
            if line.startswith("gpuplan ") and line not in seen:
                seen.add(line)
                out.append(((cmd or "gpuplan") + " --help", line))
    return out


def split_shorthand(cmd):
    """`gpuplan gpus list | gpus show "RTX 4090"` is README shorthand for two commands."""
    cmd = re.sub(r"\s+#.*$", "", cmd)
    parts = [p.strip() for p in cmd.split(" | ")]
    return [p if p.startswith("gpuplan ") else "gpuplan " + p for p in parts]


def safetensors_model(folder):
    """A two-shard Llama-shaped checkpoint (hidden 64, 2 layers) with its index."""
    h, inter, layers, vocab, kv = 64, 256, 2, 1000, 16
    shapes = {"model.embed_tokens.weight": [vocab, h], "model.norm.weight": [h], "lm_head.weight": [vocab, h]}
    for i in range(layers):
        p = f"model.layers.{i}."
        shapes.update({p + "self_attn.q_proj.weight": [h, h], p + "self_attn.k_proj.weight": [kv, h],
                       p + "self_attn.v_proj.weight": [kv, h], p + "self_attn.o_proj.weight": [h, h],
                       p + "mlp.gate_proj.weight": [inter, h], p + "mlp.up_proj.weight": [inter, h],
                       p + "mlp.down_proj.weight": [h, inter], p + "input_layernorm.weight": [h],
                       p + "post_attention_layernorm.weight": [h]})
    names = sorted(shapes)
    shards = [names[: len(names) // 2], names[len(names) // 2:]]
    weight_map = {}
    for k, shard in enumerate(shards):
        fname = f"model-{k + 1:05d}-of-00002.safetensors"
        header, offset = {}, 0
        for n in shard:
            size = 2
            for d in shapes[n]:
                size *= d
            header[n] = {"dtype": "BF16", "shape": shapes[n], "data_offsets": [offset, offset + size]}
            offset += size
            weight_map[n] = fname
        blob = json.dumps(header).encode()
        with open(os.path.join(folder, fname), "wb") as f:
            f.write(struct.pack("<Q", len(blob)) + blob + bytes(offset))
    with open(os.path.join(folder, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {}, "weight_map": weight_map}, f)


def scratch():
    d = tempfile.mkdtemp()
    ex, fx = os.path.join(ROOT, "examples", "ci"), os.path.join(ROOT, "tests", "fixtures")
    os.makedirs(os.path.join(d, "path", "to"))
    with open(os.path.join(d, "path", "to", "config.json"), "w") as f:
        json.dump({"model_type": "llama", "num_hidden_layers": 32, "hidden_size": 4096, "intermediate_size": 14336,
                   "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256,
                   "max_position_embeddings": 131072}, f)
    shutil.copy(os.path.join(d, "path", "to", "config.json"), os.path.join(d, "config.json"))
    safetensors_model(os.path.join(d, "path", "to"))
    shutil.copytree(os.path.join(ex, "failing", "experiments"), os.path.join(d, "experiments"))
    shutil.copytree(os.path.join(ex, "passing", "experiments"), os.path.join(d, "base", "experiments"))
    shutil.copy(os.path.join(ex, "failing", "budget.yaml"), os.path.join(d, "budget.yaml"))
    shutil.copy(os.path.join(ex, "failing", "ledger.jsonl"), os.path.join(d, "spend.jsonl"))
    shutil.copy(os.path.join(fx, "price_sheet_hourly.yaml"), os.path.join(d, "ours.yaml"))
    shutil.copy(os.path.join(fx, "price_sheet_hourly.yaml"), os.path.join(d, "my-prices.yaml"))
    shutil.copy(os.path.join(fx, "price_sheet_hourly.yaml"), os.path.join(d, "a.yaml"))
    shutil.copy(os.path.join(fx, "skypilot", "lambda_vms.csv"), os.path.join(d, "b.csv"))
    shutil.copy(os.path.join(fx, "jobs.csv"), os.path.join(d, "jobs.csv"))
    shutil.copy(os.path.join(fx, "skypilot", "lambda_vms.csv"), os.path.join(d, "lambda_vms.csv"))
    shutil.copy(os.path.join(fx, "sacct_jobs.txt"), os.path.join(d, "jobs.txt"))
    shutil.copy(os.path.join(fx, "jobs.csv"), os.path.join(d, "usage.csv"))
    shutil.copy(os.path.join(fx, "advise_answers.yaml"), os.path.join(d, "answers.yaml"))
    # Measured memory runs: enough of them to fit every constant they measure.
    shutil.copy(os.path.join(ROOT, "data", "measured", "memory.jsonl"), os.path.join(d, "runs.jsonl"))
    subprocess.run([G, "ledger", "import", "spend.jsonl", "--ledger", "spend.db"], cwd=d, check=True, capture_output=True)
    return d


def main():
    examples = readme_examples() + help_examples()
    d = scratch()
    env = dict(os.environ, GITHUB_RUN_ID="101", GITHUB_JOB="train", NO_COLOR="1",
               XDG_CACHE_HOME=os.path.join(d, ".cache"))  # the shipped prices, not the user's cache
    failed = skipped = ran = 0
    for where, line in examples:
        for cmd in split_shorthand(line):
            if "postgresql://" in cmd or "prices update" in cmd:  # a database, the internet
                skipped += 1
                continue
            shell = G + " " + cmd[len("gpuplan "):]
            try:
                p = subprocess.run(["bash", "-c", shell], cwd=d, env=env, capture_output=True, text=True, timeout=120)
                rc, err = p.returncode, p.stderr
            except subprocess.TimeoutExpired:
                rc, err = "timeout", ""
            ran += 1
            if rc not in (0, 1) or "error:" in err:
                failed += 1
                print(f"FAIL ({where}): {cmd}\n  exit {rc}: {err.strip()[:400]}")
    shutil.rmtree(d)
    print(f"{ran} examples ran, {failed} failed, {skipped} skipped (need a server)")
    sys.exit(1 if failed or ran < 40 else 0)


main()
