#!/usr/bin/env python3
"""Every command x every flag it registers: no flag is accepted and silently ignored.

For each (command, flag) the test runs the command twice on the same inputs, once as is and
once with the flag given a value that must matter, and requires the JSON output to differ (or,
for the few flags that only shape how a table looks, that the flag is named in DISPLAY_ONLY).
The list of commands and flags comes from the binary itself (`gpuplan flags`), so a new flag
without a row here fails the test: write the row, or do not register the flag.

Usage: flag_walk_test.py GPUPLAN REPO_ROOT [COMMAND ...]
"""
import atexit
import concurrent.futures
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import threading

GP, ROOT = sys.argv[1], sys.argv[2]
ONLY = set(sys.argv[3:])
FIX = os.path.join(ROOT, "tests", "fixtures")
EX = os.path.join(ROOT, "examples", "ci")
TMP = tempfile.mkdtemp(prefix="flagwalk.")
atexit.register(shutil.rmtree, TMP, ignore_errors=True)  # every run left its inputs in /tmp
ST = os.path.join(TMP, "model.safetensors")
PROFILE = os.path.join(TMP, "profile.yaml")
CONTENDED = os.path.join(TMP, "contended_jobs.csv")  # replay: two teams wait for the same GPUs at once
ANSWERS = os.path.join(TMP, "answers.yaml")         # advise: other answers than the fixture's
ANSWERS_NO_HOURS = os.path.join(TMP, "answers_no_hours.yaml")  # advise: question 1 left to --demand
LEDGER = os.path.join(TMP, "spend.jsonl")
OUTCOMES = os.path.join(TMP, "outcomes.jsonl")  # runs with measured outcomes: report decides on them
TEAM = os.path.join(TMP, "team_catalog.yaml")      # a team's own catalog: cheap offers, a model, rates
MY_SHEET = os.path.join(TMP, "my_sheet.yaml")
MY_RUNS = os.path.join(TMP, "my_runs.jsonl")      # measured runs, one on a GPU only the team catalog has     # a sheet naming a GPU only the team catalog has
TEAM_YAML = """gpus:
  - {id: my-card, name: My Card, vendor: nvidia, architecture: ada, form: workstation, memory_gib: 48,
     memory_bandwidth_gbps: 960, tflops: {fp32: 91.1, bf16: 181.0}, tdp_watts: 300,
     interconnect: {kind: pcie4, bandwidth_gbps: 32}, ecc: true}
models:
  - {id: tiny-llama, name: Tiny Llama, family: llama, layers: 4, hidden_size: 512, intermediate_size: 1408,
     attention_heads: 8, kv_heads: 8, head_dim: 64, vocab_size: 32000, mlp: gated, norm: rmsnorm, max_context: 4096,
     tied_embeddings: false, params: 45617664}
fx: {as_of: 2026-12-01, base: USD, rates: {INR: 10.0}}
providers:
  - id: cheap-cloud
    name: Cheap Cloud
    currency: USD
    prices_as_of: 2026-12-01
    source: the flag-walk test
    billing_increment_seconds: 60
    offers:
""" + "".join(f"      - {{id: {g}-x1, gpu: {g}, gpus: 1, region: us, on_demand_per_gpu_hour: 0.01, spot_per_gpu_hour: 0.005}}\n"
              for g in ("rtx-4090", "l4", "a100-80gb-sxm", "h100-sxm", "l40s"))


# Flags that change how a table looks or where output goes, never what is computed.
DISPLAY_ONLY = {"--help", "--format", "--wide", "--no-color", "--quiet", "--out", "--html", "--grouping"}
# (command, flag) pairs that only add or cut table rows: the JSON always carries every row.
# Flags whose effect needs state this test does not make, each with the test that covers it.
COVERED_ELSEWHERE = {"--offline": "changes prices only over a `prices update` cache: tests/cli/prices_update_test.sh",
                     "--config": "reads .gpuplan.yaml: tests/cli/gate_test.sh",
                     "--changed": "needs a git base: tests/cli/gate_test.sh"}
DISPLAY_ONLY_IN = {("compare", "--explain"), ("serve", "--explain"), ("demand", "--top")}
# Display-only flags are checked the other way round: JSON must not change with them. Money in
# JSON prose keeps the automatic grouping, so --grouping runs in INR (Indian by default) where
# the command takes --currency, and in USD otherwise.
DISPLAY_VALUES = {"--grouping": [["--grouping", "none"], ["--grouping", "intl"], ["--grouping", "indian"]],
                  "--wide": [["--wide"]], "--no-color": [["--no-color"]]}
COMMAND_FLAGS = set()  # (command, flag) for every flag `gpuplan flags` lists

M8 = ["--model", "llama-3.1-8b"]
M1 = ["--model", "llama-3.2-1b"]
TRAIN = M1 + ["--method", "lora", "--tokens", "100M"]
BASE = {
    "estimate": TRAIN + ["--gpu", "h100-sxm"],
    "compare": TRAIN + ["--provider", "runpod"],
    "plan": M1 + ["--tokens", "100M", "--provider", "runpod", "--methods", "lora,qlora"],
    "serve": M8 + ["--requests-per-second", "5", "--prompt-tokens", "512", "--output-tokens", "256", "--provider", "runpod"],
    "buy-vs-rent": ["--gpu", "rtx-4090", "--gpu-hours-per-month", "300"],
    "demand": [os.path.join(FIX, "jobs.csv")],
    "replay": [os.path.join(FIX, "jobs.csv"), "--gpu", "a100-80gb-sxm", "--gpu-price", "15000", "--owned", "0,2", "--max-p95-queue", "4h"],
    "advise": ["--gpu", "rtx-4090", "--answers", os.path.join(FIX, "advise_answers.yaml")],
    "check": [os.path.join(EX, "passing", "experiments"), "--date", "2026-06-15"],
    "diff": [os.path.join(EX, "passing", "experiments"), os.path.join(EX, "failing", "experiments")],
    "report": ["--ledger", LEDGER, "--date", "2026-06-15"],
    "gpus list": [],
    "gpus show": ["rtx-4090"],
    "models list": [],
    "models show": ["llama-3.1-8b"],
    "providers list": [],
    "providers show": ["runpod"],
    "catalog validate": [os.path.join(FIX, "good_catalog.yaml")],
    "calibrate": [os.path.join(ROOT, "data", "measured", "throughput.jsonl"), "--partial"],
    "ledger report": ["--ledger", LEDGER],
    "ledger export": ["-", "--ledger", LEDGER],
}


def row(set_, ctx=(), drop=(), drop_with=(), base_refused=False):
    """A mutation. Without it: the base, less `drop`, plus `ctx`. With it: the same less
    `drop_with`, with `set_` added (a flag in `set_` replaces the same flag there). With
    `base_refused`, the run without it may be refused (exit 2): the flag is what makes it valid."""
    return {"set": list(set_), "ctx": list(ctx), "drop": list(drop), "drop_with": list(drop_with), "base_refused": base_refused}


R = row
HF = os.path.join(FIX, "hf", "gemma-3-1b", "config.json")


def make_inputs():
    """A Llama-shaped safetensors header (2 layers), a fitted profile, and a small ledger."""
    h, f, v, layers = 256, 688, 1000, 2
    shapes = {"model.embed_tokens.weight": [v, h], "model.norm.weight": [h], "lm_head.weight": [v, h]}
    for i in range(layers):
        pre = f"model.layers.{i}."
        shapes.update({pre + "self_attn.q_proj.weight": [h, h], pre + "self_attn.k_proj.weight": [h // 4, h],
                       pre + "self_attn.v_proj.weight": [h // 4, h], pre + "self_attn.o_proj.weight": [h, h],
                       pre + "mlp.gate_proj.weight": [f, h], pre + "mlp.up_proj.weight": [f, h],
                       pre + "mlp.down_proj.weight": [h, f], pre + "input_layernorm.weight": [h],
                       pre + "post_attention_layernorm.weight": [h]})
    header, offset = {}, 0
    for name, shape in shapes.items():
        size = 2
        for d in shape:
            size *= d
        header[name] = {"dtype": "BF16", "shape": shape, "data_offsets": [offset, offset + size]}
        offset += size
    blob = json.dumps(header).encode()
    with open(ST, "wb") as out:
        out.write(struct.pack("<Q", len(blob)) + blob)
        out.truncate(8 + len(blob) + offset)
    with open(TEAM, "w") as out:
        out.write(TEAM_YAML)
    with open(CONTENDED, "w") as out:
        out.write("id,name,user,team,partition,submit,start,end,gpus,state\n")
        for i, (team, hours) in enumerate((("nlp", 5), ("vision", 9), ("nlp", 1))):
            out.write(f"{i + 1},j{i},u{i},{team},gpu,2026-03-02T00:00:00,2026-03-02T00:00:00,2026-03-02T{hours:02d}:00:00,2,COMPLETED\n")
    with open(os.path.join(FIX, "advise_answers.yaml")) as src:
        fixture = src.read()
    with open(ANSWERS, "w") as out:
        out.write(fixture.replace("gpu_hours_per_week: 300", "gpu_hours_per_week: 900").replace("churn: 18", "churn: 3"))
    with open(ANSWERS_NO_HOURS, "w") as out:
        out.write("\n".join(l for l in fixture.splitlines() if not l.startswith("gpu_hours_per_week")) + "\n")
    with open(MY_SHEET, "w") as out:
        out.write("providers:\n  - {id: mine, name: Mine, currency: USD, prices_as_of: 2026-12-01, source: test,\n     billing_increment_seconds: 60,\n"
                  "     offers: [{id: a, gpu: my-card, gpus: 1, region: us, on_demand_per_gpu_hour: 1}]}\n")
    runs = os.path.join(ROOT, "data", "measured", "throughput.jsonl")
    with open(runs) as src, open(MY_RUNS, "w") as out:
        for i, line in enumerate(src):
            rec = json.loads(line)
            if i == 0:
                rec["gpu"] = "my-card"
            out.write(json.dumps(rec) + "\n")
    subprocess.run([GP, "calibrate", runs, "--partial", "--out", PROFILE], capture_output=True, check=True)
    # Loss 2.0, 1.8, 1.75 (a dear last gain: change method at 2x, continue at 100x), then a run
    # off the frontier (stop after 1 run, not after 3); utilization 65% (flagged below 70%, not 60%).
    for i, (cost, loss) in enumerate((("10", "2.0"), ("10", "1.8"), ("30", "1.75"), ("40", "1.9"))):
        subprocess.run([GP, "ledger", "add", "--ledger", OUTCOMES, "--experiment", f"sft/run{i}", "--cost", cost, "--date", f"2026-06-0{i + 1}",
                        "--metric", f"eval_loss={loss}:lower", "--utilization", "65%"], capture_output=True, check=True)
    for cost, exp, day in (("120", "llama8b-lora", "2026-06-02"), ("40", "qwen-sft", "2026-06-09"), ("75", "llama8b-lora", "2026-05-20")):
        subprocess.run([GP, "ledger", "add", "--ledger", LEDGER, "--experiment", exp, "--cost", cost, "--gpu-hours", "10",
                        "--date", day, "--team", "nlp", "--tokens", "50M"], capture_output=True, check=True)
SPOT = ["--pricing", "spot"]
NO_FIT = ["--gpu", "h100-sxm"]
# One row per flag, for every command that registers it; COMMAND_ROWS below overrides.
ROWS = {
    "--model": R(["--model", "qwen2.5-0.5b"]),
    "--model-config": R(["--model-config", HF], drop_with=["--model"]),
    "--safetensors": R(["--safetensors", ST], drop_with=["--model"]),
    "--params": R(["--params", "3B"], drop_with=["--model"]),
    "--method": R(["--method", "full"]),
    "--precision": R(["--precision", "fp32"], ctx=["--method", "full"], drop=["--method"]),
    "--pure-bf16": R(["--pure-bf16"], ctx=["--method", "full"], drop=["--method"]),
    "--quant": R(["--quant", "int8"], ctx=["--method", "qlora"], drop=["--method"]),
    "--double-quant": R(["--double-quant"], ctx=["--method", "qlora"], drop=["--method"]),
    "--qlora-backend": R(["--qlora-backend", "fused"], ctx=["--method", "qlora"], drop=["--method"]),
    "--optimizer": R(["--optimizer", "sgd"], ctx=["--method", "full"], drop=["--method"]),
    "--optimizer-in-backward": R(["--optimizer-in-backward"], ctx=["--method", "full"], drop=["--method"]),
    "--autocast": R(["--autocast"], ctx=["--method", "full"], drop=["--method"]),
    "--dropout": R(["--dropout"]),
    "--lora-rank": R(["--lora-rank", "128"]),
    "--lora-targets": R(["--lora-targets", "q,v"]),
    "--lora-dropout": R(["--lora-dropout"]),
    "--train-embeddings": R(["--train-embeddings"]),
    "--trainable-layers": R(["--trainable-layers", "8"], ctx=["--method", "freeze", "--trainable-layers", "4"], drop=["--method"]),
    "--micro-batch": R(["--micro-batch", "4"]),
    "--seq-len": R(["--seq-len", "4096"]),
    "--allow-long-context": R(["--allow-long-context", "--seq-len", "200000"]),
    "--attention": R(["--attention", "eager"]),
    "--checkpointing": R(["--checkpointing", "full"]),
    "--loss": R(["--loss", "chunked"]),
    "--activations": R(["--activations", "megatron"], ctx=["--method", "full"], drop=["--method", "--methods"]),
    "--kv-cache-dtype": R(["--kv-cache-dtype", "fp8"], ctx=["--method", "inference", "--micro-batch", "16"], drop=["--method"]),
    "--overhead": R(["--overhead", "3GiB"]),
    "--fragmentation": R(["--fragmentation", "30%"]),
    "--gpus": R(["--gpus", "2"]),
    "--sharding": R(["--sharding", "zero3"], ctx=["--gpus", "2"]),
    "--offload": R(["--offload", "optimizer"], ctx=["--gpus", "2", "--sharding", "zero3"]),
    "--tensor-parallel": R(["--tensor-parallel", "2"], ctx=["--gpus", "2"]),
    "--pipeline-parallel": R(["--pipeline-parallel", "2"], ctx=["--gpus", "2"]),
    "--virtual-pipeline": R(["--virtual-pipeline", "2"], ctx=["--gpus", "2", "--pipeline-parallel", "2", "--micro-batch", "4"]),
    "--context-parallel": R(["--context-parallel", "2"], ctx=["--gpus", "2"]),
    "--sequence-parallel": R(["--sequence-parallel"], ctx=["--gpus", "2", "--tensor-parallel", "2"]),
    "--expert-parallel": R(["--expert-parallel", "2"], ctx=["--model", "mixtral-8x7b", "--gpus", "2"], drop=["--model"]),
    "--tokens": R(["--tokens", "300M"]),
    "--dataset-tokens": R(["--dataset-tokens", "50M", "--epochs", "3"], drop_with=["--tokens"]),
    "--epochs": R(["--epochs", "3"], ctx=["--dataset-tokens", "50M"], drop=["--tokens"]),
    "--steps": R(["--steps", "500"], drop_with=["--tokens"]),
    "--nodes": R(["--nodes", "2"], ctx=["--gpus", "8", "--gpu", "h100-sxm", "--method", "full"], drop=["--provider", "--methods"]),
    "--node-shape": R(["--node-shape", "8xpcie4"], ctx=["--gpus", "8", "--gpu", "rtx-4090", "--method", "full"], drop=["--provider", "--methods"]),
    "--network": R(["--network", "100Gbps"], ctx=["--gpus", "8", "--gpu", "rtx-4090", "--method", "full", "--node-shape", "4xpcie4"], drop=["--provider", "--methods"]),
    "--grad-accum": R(["--grad-accum", "8"]),
    "--packing": R(["--packing", "off"], ctx=["--mean-sample-tokens", "500"]),
    "--mean-sample-tokens": R(["--mean-sample-tokens", "300"], ctx=["--packing", "off", "--mean-sample-tokens", "1000"]),
    "--mfu": R(["--mfu", "20%"]),
    "--pricing": R(["--pricing", "spot"], ctx=["--gpu", "h100-sxm", "--provider", "aws"], drop=["--gpu", "--provider"]),
    "--tax": R(["--tax", "18%"]),
    "--stale-after": R(["--stale-after", "1"]),
    "--tax-basis": R(["--tax-basis", "exclusive"], ctx=["--tax", "18%"]),
    "--input-tax-credit": R(["--input-tax-credit"], ctx=["--provider", "e2e", "--gpu", "a100-80gb-pcie"], drop=["--provider", "--gpu"]),
    "--currency": R(["--currency", "INR"]),
    "--fx": R(["--fx", "USD:INR=100"], ctx=["--currency", "INR"]),
    "--deadline": R(["--deadline", "1h"]),
    "--budget": R(["--budget", "1"]),
    "--preemptions-per-hour": R(["--preemptions-per-hour", "0.5"], ctx=SPOT + ["--gpu", "h100-sxm", "--provider", "runpod", "--tokens", "5B"], drop=["--gpu", "--provider", "--tokens"]),
    "--checkpoint-every": R(["--checkpoint-every", "5m"], ctx=SPOT + ["--gpu", "h100-sxm", "--provider", "runpod", "--preemptions-per-hour", "0.2", "--tokens", "5B"], drop=["--gpu", "--provider", "--tokens"]),
    "--checkpoint-write-speed": R(["--checkpoint-write-speed", "10MB"], ctx=SPOT + ["--gpu", "h100-sxm", "--provider", "runpod", "--preemptions-per-hour", "0.2", "--tokens", "5B"], drop=["--gpu", "--provider"]),
    "--restart-time": R(["--restart-time", "1h"], ctx=SPOT + ["--gpu", "h100-sxm", "--provider", "runpod", "--preemptions-per-hour", "0.2", "--tokens", "5B"], drop=["--gpu", "--provider"]),
    "--max-restarts": R(["--max-restarts", "0"], ctx=SPOT + ["--gpu", "h100-sxm", "--provider", "runpod", "--preemptions-per-hour", "0.2", "--tokens", "5B"], drop=["--gpu", "--provider", "--tokens"]),
    "--keep-checkpoints": R(["--keep-checkpoints", "5"], ctx=["--provider", "aws", "--gpu", "h100-sxm"], drop=["--provider", "--gpu"]),
    "--idle": R(["--idle", "20%"]),
    "--startup": R(["--startup", "2h"]),
    "--dataset-size": R(["--dataset-size", "500GB"], ctx=["--provider", "aws", "--gpu", "h100-sxm"], drop=["--provider", "--gpu"]),
    "--storage-bandwidth": R(["--storage-bandwidth", "1MB"]),
    "--cpu-cores": R(["--cpu-cores", "1"]),
    "--pretokenized": R(["--pretokenized"]),
    "--tokenize-rate": R(["--tokenize-rate", "10"], ctx=["--cpu-cores", "1"]),
    "--no-egress": R(["--no-egress"], ctx=["--provider", "aws", "--gpu", "h100-sxm", "--dataset-size", "500GB"], drop=["--provider", "--gpu"]),
    "--provider": R(["--provider", "lambda"]),
    "--gpu": R(["--gpu", "a100-80gb-sxm"]),
    "--region": R(["--region", "india"], drop_with=["--provider"]),
    "--country": R(["--country", "IN"], drop_with=["--provider"]),
    "--offer": R(["--offer", "runpod/h100-sxm-x1"]),
    "--max-gpus": R(["--max-gpus", "1"], drop_with=["--provider"]),
    "--catalog": R(["--catalog", TEAM], drop_with=["--provider"]),
    "--profile": R(["--profile", PROFILE]),
    "--top": R(["--top", "1"]),
    "--sort": R(["--sort", "time"]),
    "--sheet": R(["--sheet", os.path.join(FIX, "skypilot", "lambda_vms.csv")], drop_with=["--provider"]),
    "--explain": R(["--explain"]),
}
# The owner's side of buy-vs-rent, replay and advise: one row each, for all three.
TCO_ROWS = {
    "--count": R(["--count", "8"]),
    "--gpu-hours-per-month": R(["--gpu-hours-per-month", "600"], drop_with=["--gpu-hours-per-week"]),
    "--gpu-hours-per-week": R(["--gpu-hours-per-week", "150"], drop_with=["--gpu-hours-per-month"]),
    "--utilization": R(["--utilization", "90%"], drop_with=["--gpu-hours-per-month"]),
    "--demand": R(["--demand", os.path.join(FIX, "jobs.csv")], drop_with=["--gpu-hours-per-month", "--gpu-hours-per-week"]),
    "--uncertainty": R(["--uncertainty", "40%"]),
    "--offer": R(["--offer", "runpod-serverless/rtx-4090-flex"]),
    "--pricing": R(["--pricing", "spot"], ctx=["--gpu", "h100-sxm", "--gpu-price", "25000"]),
    "--horizon": R(["--horizon", "1y"]),
    "--gpu-price": R(["--gpu-price", "5000"]),
    "--rest-of-machine": R(["--rest-of-machine", "20000"]),
    "--gpus-per-build": R(["--gpus-per-build", "1"]),
    "--power-price": R(["--power-price", "0.90/kWh"]),
    "--load-factor": R(["--load-factor", "2.0"]),
    "--idle-power": R(["--idle-power", "60%"]),
    "--pue": R(["--pue", "2.0"]),
    "--maintenance": R(["--maintenance", "30%"]),
    "--failure-rate": R(["--failure-rate", "30%"]),
    "--colo": R(["--colo", "900/kW"]),
    "--ops-hours-per-month": R(["--ops-hours-per-month", "40"], ctx=["--engineer-rate", "80/h", "--ops-hours-per-month", "10"]),
    "--engineer-rate": R(["--engineer-rate", "300/h"], ctx=["--ops-hours-per-month", "10", "--engineer-rate", "80/h"]),
    "--resale": R(["--resale", "10%"]),
    "--financing": R(["--financing", "20%"]),
    "--tax": R(["--tax", "30%"]),
    "--tax-basis": R(["--tax-basis", "exclusive"], ctx=["--buyer-country", "IN"]),
    "--input-tax-credit": R(["--input-tax-credit"], ctx=["--buyer-country", "IN"]),
    "--buyer-country": R(["--buyer-country", "IN"]),
    "--country": R(["--country", "IN"]),
    "--region": R(["--region", "india"]),
    "--provider": R(["--provider", "lambda"], ctx=["--gpu", "h100-sxm", "--gpu-price", "25000"]),
    "--owned": R(["--owned", "0,4"]),
    "--burst-after": R(["--burst-after", "never"]),
    "--max-p95-queue": R(["--max-p95-queue", "1m"]),
    "--quota": R(["--quota", "nlp=1"]),
    "--priority": R(["--priority", "vision=10"]),
    "--checkpointing-teams": R(["--checkpointing-teams", "nlp"]),
    "--steady-share": R(["--steady-share", "90%"]),
    "--interruptible": R(["--interruptible", "90%"]),
    "--checkpoints": R(["--checkpoints", "yes"], ctx=["--interruptible", "90%"]),
    "--low-latency-inference": R(["--low-latency-inference", "yes"], ctx=["--inference-gpus", "2"]),
    "--inference-gpus": R(["--inference-gpus", "8"], ctx=["--low-latency-inference", "yes"]),
    "--cost-of-waiting": R(["--cost-of-waiting", "high"]),
    "--churn": R(["--churn", "3"]),
    "--ops": R(["--ops", "slurm"]),
    "--answers": R(["--answers", os.path.join(FIX, "advise_answers.yaml")], drop=["--gpu-hours-per-week"]),
    "--purchase": R(["--purchase", "incl-gst"], ctx=["--buyer-country", "IN"]),
    "--hs-code": R(["--hs-code", "8471"], ctx=["--buyer-country", "IN", "--purchase", "import"]),
    "--customs-duty": R(["--customs-duty", "30%"], ctx=["--buyer-country", "IN", "--purchase", "import"]),
    "--currency": R(["--currency", "INR"]),
    "--fx": R(["--fx", "USD:INR=100"], ctx=["--currency", "INR"]),
    "--preemptions-per-hour": R(["--preemptions-per-hour", "1"], ctx=["--pricing", "spot", "--gpu", "h100-sxm", "--gpu-price", "25000"]),
    "--checkpoint-time": R(["--checkpoint-time", "20m"], ctx=["--pricing", "spot", "--gpu", "h100-sxm", "--gpu-price", "25000", "--preemptions-per-hour", "0.5"]),
    "--restart-time": R(["--restart-time", "30m"], ctx=["--pricing", "spot", "--gpu", "h100-sxm", "--gpu-price", "25000", "--preemptions-per-hour", "0.5"]),
    "--gpu": R(["--gpu", "l4", "--gpu-price", "2500"]),
    "--catalog": R(["--catalog", TEAM]),
}
SPECS = os.path.join(EX, "passing", "experiments")
COMMAND_ROWS = {}
for cmd in ("buy-vs-rent", "replay", "advise"):
    for flag, r in TCO_ROWS.items():
        COMMAND_ROWS[(cmd, flag)] = r
# replay rents on-demand, and on spot only for the teams that checkpoint: spot terms need those.
REPLAY_SPOT = ["--checkpointing-teams", "all", "--gpu", "h100-sxm", "--gpu-price", "25000", "--burst-after", "0"]
COMMAND_ROWS.update({
    ("replay", "--priority"): R(["--priority", "vision=10"], ctx=[CONTENDED], drop=[os.path.join(FIX, "jobs.csv")]),
    ("replay", "--preemptions-per-hour"): R(["--preemptions-per-hour", "1"], ctx=REPLAY_SPOT),
    ("replay", "--checkpoint-time"): R(["--checkpoint-time", "20m"], ctx=REPLAY_SPOT + ["--preemptions-per-hour", "0.5"]),
    ("replay", "--restart-time"): R(["--restart-time", "30m"], ctx=REPLAY_SPOT + ["--preemptions-per-hour", "0.5"]),
    # Answers come from flags, then --answers, then --demand: each row leaves its source the deciding one.
    ("advise", "--answers"): R(["--answers", ANSWERS]),
    ("advise", "--demand"): R(["--demand", os.path.join(FIX, "jobs.csv")], ctx=["--answers", ANSWERS_NO_HOURS, "--gpu-hours-per-week", "300"],
                              drop_with=["--gpu-hours-per-week"]),
    ("advise", "--inference-gpus"): R(["--inference-gpus", "8"], ctx=["--low-latency-inference", "yes", "--inference-gpus", "2"]),
    ("advise", "--low-latency-inference"): R(["--low-latency-inference", "yes", "--inference-gpus", "2"]),
})
# --owned GPU[xN] of estimate, compare and plan, and the owner's flags it reads (buy-vs-rent's):
# each with the owned offer present; its figures are in the JSON's "owned".
OWNED = ["--owned", "rtx-4090", "--owned-utilization", "30%"]
OWNED_ROWS = {
    "--owned": R(OWNED),
    "--owned-utilization": R(["--owned-utilization", "90%"], ctx=OWNED),
    "--owned-marginal": R(["--owned-marginal"], ctx=OWNED),
    "--gpus-per-build": R(["--gpus-per-build", "1"], ctx=["--owned", "rtx-4090x2", "--owned-utilization", "30%"]),
    "--buyer-country": R(["--buyer-country", "IN"], ctx=OWNED),
    "--purchase": R(["--purchase", "incl-gst"], ctx=OWNED + ["--buyer-country", "IN"]),
    "--hs-code": R(["--hs-code", "8471"], ctx=OWNED + ["--buyer-country", "IN", "--purchase", "import"]),
    "--customs-duty": R(["--customs-duty", "30%"], ctx=OWNED + ["--buyer-country", "IN", "--purchase", "import"]),
}
for flag in ("--horizon", "--gpu-price", "--rest-of-machine", "--power-price", "--load-factor", "--idle-power", "--pue", "--maintenance",
             "--failure-rate", "--colo", "--ops-hours-per-month", "--engineer-rate", "--resale", "--financing"):
    t = TCO_ROWS[flag]
    OWNED_ROWS[flag] = R(t["set"], ctx=OWNED + t["ctx"])
for cmd in ("estimate", "compare", "plan"):
    for flag, r in OWNED_ROWS.items():
        COMMAND_ROWS[(cmd, flag)] = r
SERVE_ROWS = {
    "--route": R(["--route", "small=llama-3.2-1b:70%,large=llama-3.1-8b"], drop_with=["--model"]),
    "--requests-per-second": R(["--requests-per-second", "50"]),
    "--requests-per-day": R(["--requests-per-day", "20000"], drop_with=["--requests-per-second"]),
    "--peak-factor": R(["--peak-factor", "4"]),
    "--prompt-tokens": R(["--prompt-tokens", "4000"]),
    "--output-tokens": R(["--output-tokens", "1000"]),
    "--max-output-tokens": R(["--max-output-tokens", "4000"], ctx=["--batching", "static"]),
    "--shared-prefix-tokens": R(["--shared-prefix-tokens", "400"]),
    "--ttft-p95": R(["--ttft-p95", "100ms"]),
    "--tpot": R(["--tpot", "20ms"]),
    "--batching": R(["--batching", "static"]),
    "--memory-utilization": R(drop=["--requests-per-second"], set_=["--memory-utilization", "50%"], ctx=["--requests-per-second", "50"]),
    "--max-batch": R(drop=["--requests-per-second"], set_=["--max-batch", "4"], ctx=["--requests-per-second", "50"]),
    "--max-batched-tokens": R(["--max-batched-tokens", "100000"]),
    "--bandwidth-efficiency": R(["--bandwidth-efficiency", "30%"]),
    "--compute-utilization": R(["--compute-utilization", "20%"]),
    "--step-overhead": R(["--step-overhead", "20ms"]),
    "--max-utilization": R(drop=["--requests-per-second"], set_=["--max-utilization", "30%"], ctx=["--requests-per-second", "50"]),
    "--autoscale": R(["--autoscale"], ctx=["--peak-factor", "4"]),
    "--min-replicas": R(["--min-replicas", "3"], ctx=["--autoscale"]),
    "--scale-to-zero": R(["--scale-to-zero"], ctx=["--requests-per-second", "0.01"], drop=["--requests-per-second"]),
    "--keep-warm": R(["--keep-warm", "1h"], ctx=["--scale-to-zero", "--requests-per-second", "0.01"], drop=["--requests-per-second"]),
    "--cold-start": R(["--cold-start", "5m"], ctx=["--scale-to-zero", "--requests-per-second", "0.01"], drop=["--requests-per-second"]),
    "--cpu-memory": R(["--cpu-memory", "768GB"], ctx=["--cpu-memory-bandwidth", "460GB", "--cpu-tflops", "50", "--cpu-price-per-hour", "3.5", "--cpu-memory", "384GB", "--top", "20"]),
    "--cpu-memory-bandwidth": R(["--cpu-memory-bandwidth", "900GB"], ctx=["--cpu-memory", "384GB", "--cpu-tflops", "50", "--cpu-price-per-hour", "3.5", "--cpu-memory-bandwidth", "460GB", "--top", "20"]),
    "--cpu-tflops": R(["--cpu-tflops", "5"], ctx=["--cpu-memory", "384GB", "--cpu-memory-bandwidth", "460GB", "--cpu-price-per-hour", "3.5", "--cpu-tflops", "50", "--top", "20"]),
    "--cpu-price-per-hour": R(["--cpu-price-per-hour", "0.5"], ctx=["--cpu-memory", "384GB", "--cpu-memory-bandwidth", "460GB", "--cpu-tflops", "50", "--cpu-price-per-hour", "3.5", "--top", "20"]),
    "--explain": R(["--explain"], ctx=["--model", "llama-3.1-70b"], drop=["--model"]),
}
for flag, r in SERVE_ROWS.items():
    COMMAND_ROWS[("serve", flag)] = r
COMMAND_ROWS.update({
    ("serve", "--precision"): R(["--precision", "fp32"]),
    ("serve", "--quant"): R(["--quant", "int4-awq"]),
    ("serve", "--kv-cache-dtype"): R(["--kv-cache-dtype", "fp8"]),
    ("serve", "--tensor-parallel"): R(["--tensor-parallel", "2"]),
    # TP 8 on 8-GPU H100 instances: stated as a box of 8 on PCIe 4.0, its all-reduces slow down.
    ("serve", "--node-shape"): R(["--node-shape", "8xpcie4"], ctx=["--model", "llama-3.1-70b", "--gpu", "h100-sxm", "--tensor-parallel", "8"], drop=["--model", "--provider"]),
    ("serve", "--overhead"): R(["--overhead", "6GiB"]),
    ("serve", "--top"): R(["--top", "1"]),
    ("serve", "--max-gpus"): R(["--max-gpus", "1"], drop=["--provider"]),
    ("serve", "--startup"): R(["--startup", "2h"], ctx=["--scale-to-zero"]),
    ("demand", "--baseline-percentile"): R(["--baseline-percentile", "90%"]),
    ("demand", "--top"): R(["--top", "1"]),
    ("check", "--policy"): R(["--policy", os.path.join(EX, "failing", "budget.yaml")]),
    ("check", "--ledger"): R(["--ledger", LEDGER], ctx=["--policy", os.path.join(EX, "passing", "budget.yaml")]),
    ("check", "--date"): R(["--date", "2027-01-15"], ctx=["--policy", os.path.join(EX, "passing", "budget.yaml"), "--ledger", os.path.join(EX, "passing", "ledger.jsonl")], drop=["--date"]),
    ("check", "--currency"): R(["--currency", "INR"]),
    ("diff", "--currency"): R(["--currency", "INR"]),
    ("report", "--ledger"): R(["--ledger", os.path.join(EX, "failing", "ledger.jsonl")]),
    ("report", "--policy"): R(["--policy", os.path.join(EX, "passing", "budget.yaml")]),
    ("report", "--specs"): R(["--specs", SPECS], ctx=["--policy", os.path.join(EX, "passing", "budget.yaml")]),
    ("report", "--date"): R(["--date", "2026-05-15"], drop=["--date"]),
    ("report", "--currency"): R(["--currency", "INR"]),
    ("report", "--stop-after-runs"): R(["--stop-after-runs", "1"], ctx=["--ledger", OUTCOMES]),
    ("report", "--change-ratio"): R(["--change-ratio", "100"], ctx=["--ledger", OUTCOMES, "--stop-after-runs", "5"]),
    ("report", "--min-utilization"): R(["--min-utilization", "60%"], ctx=["--ledger", OUTCOMES]),
    ("plan", "--objective"): R(["--objective", "time"]),
    ("plan", "--methods"): R(["--methods", "full"]),
    ("plan", "--precisions"): R(["--precisions", "fp32"], ctx=["--methods", "full"]),
    ("plan", "--optimizers"): R(["--optimizers", "sgd"], ctx=["--methods", "full"]),
    ("plan", "--checkpointing-options"): R(["--checkpointing-options", "full"], ctx=["--methods", "full"]),
    ("plan", "--shardings"): R(["--shardings", "fsdp"], ctx=["--methods", "full", "--gpu", "h100-sxm", "--objective", "time"], drop=["--provider"]),
    ("plan", "--micro-batches"): R(["--micro-batches", "1"]),
    ("plan", "--pricings"): R(["--pricings", "spot"]),
    ("plan", "--tensor-parallels"): R(["--tensor-parallels", "2"], ctx=["--methods", "full", "--gpu", "h100-sxm"], drop=["--provider"]),
    ("plan", "--pipeline-parallels"): R(["--pipeline-parallels", "2"], ctx=["--methods", "full", "--gpu", "h100-sxm"], drop=["--provider"]),
    ("plan", "--max-nodes"): R(["--max-nodes", "1"], ctx=["--objective", "time"]),
    ("plan", "--global-batch"): R(["--global-batch", "64"]),
    ("plan", "--emit"): R(["--emit", "deepspeed"]),
    ("plan", "--head-address"): R(["--head-address", "10.0.0.2"], ctx=["--emit", "accelerate", "--gpus", "2", "--nodes", "2", "--head-address", "10.0.0.1"]),
    ("plan", "--port"): R(["--port", "29999"], ctx=["--emit", "accelerate", "--gpus", "2", "--nodes", "2", "--head-address", "10.0.0.1"]),
    ("plan", "--node-rank"): R(["--node-rank", "1"], ctx=["--emit", "accelerate", "--gpus", "2", "--nodes", "2", "--head-address", "10.0.0.1"]),
    ("calibrate", "--partial"): R(["--partial"], drop=["--partial"], base_refused=True),
    ("calibrate", "--catalog"): R(["--catalog", TEAM], ctx=[MY_RUNS], drop=[os.path.join(ROOT, "data", "measured", "throughput.jsonl")], base_refused=True),
    ("gpus list", "--catalog"): R(["--catalog", TEAM]),
    ("models list", "--catalog"): R(["--catalog", TEAM]),
    ("providers list", "--catalog"): R(["--catalog", TEAM]),
    ("catalog validate", "--catalog"): R(["--catalog", TEAM], ctx=[MY_SHEET], drop=[os.path.join(FIX, "good_catalog.yaml")], base_refused=True),
    ("check", "--catalog"): R(["--catalog", TEAM]),
    ("diff", "--catalog"): R(["--catalog", TEAM]),
    ("report", "--catalog"): R(["--catalog", TEAM], ctx=["--specs", SPECS]),
    ("report", "--profile"): R(["--profile", PROFILE], ctx=["--specs", SPECS]),
    ("gpus show", "--catalog"): R(["my-card", "--catalog", os.path.join(FIX, "good_catalog.yaml")], drop_with=["rtx-4090"], base_refused=True),
    ("providers show", "--catalog"): R(["my-cloud", "--catalog", os.path.join(FIX, "good_catalog.yaml")], drop_with=["runpod"], base_refused=True),
    ("models show", "--catalog"): R(["tiny-llama", "--catalog", TEAM], drop_with=["llama-3.1-8b"], base_refused=True),
    ("ledger report", "--ledger"): R(["--ledger", os.path.join(EX, "passing", "ledger.jsonl")]),
    ("ledger report", "--by"): R(["--by", "team"]),
    ("ledger report", "--currency"): R(["--currency", "INR"]),
    ("ledger report", "--period"): R(["--period", "2026-06"]),
    ("ledger report", "--catalog"): R(["--catalog", TEAM], ctx=["--currency", "INR"]),
    ("ledger export", "--ledger"): R(["--ledger", os.path.join(EX, "passing", "ledger.jsonl")]),
    ("compare", "--explain"): R(["--explain"], ctx=["--model", "llama-3.1-70b"], drop=["--model"]),
    ("models show", "--model-config"): R(["--model-config", HF], drop_with=["llama-3.1-8b"]),
    ("models show", "--params"): R(["--params", "3B"], drop_with=["llama-3.1-8b"]),
    ("models show", "--safetensors"): R(["--safetensors", ST], drop_with=["llama-3.1-8b"]),
    ("plan", "--sequence-parallel"): R(["--sequence-parallel"], ctx=["--gpus", "8", "--tensor-parallel", "2", "--gpu", "h100-sxm", "--method", "full"], drop=["--provider", "--methods"]),
})


def without_flags(args, flags):
    args = list(args)
    for flag in flags:
        while flag in args:
            i = args.index(flag)
            takes_value = i + 1 < len(args) and not args[i + 1].startswith("--")
            del args[i:i + (2 if takes_value else 1)]
    return args


def expand(cmd, r):
    if cmd == "plan" and ("--method" in r["ctx"] or "--method" in r["set"]):
        r = dict(r, drop=r["drop"] + ["--methods"])
    ctx_flags = [a for a in r["ctx"] if a.startswith("--")]
    without = without_flags(BASE[cmd], r["drop"] + ctx_flags) + r["ctx"]
    replaced = [a for a in r["set"] if a.startswith("--")]
    return without, without_flags(without, r["drop_with"] + replaced) + r["set"]


def run(cmd, args):
    p = subprocess.run([GP] + cmd.split() + args + ["--format", "json"], capture_output=True, text=True, timeout=120)
    collect_keys(cmd, p.stdout)
    return p.returncode, p.stdout, p.stderr


# Every JSON key any run of the walk printed (bases and mutations: --owned, --explain, ...).
SEEN_KEYS, SEEN_LOCK = set(), threading.Lock()


def collect_keys(cmd, out):
    keys = set()
    for doc in out.splitlines() if cmd == "ledger export" else [out]:  # export writes JSON Lines
        if doc.strip().startswith(("{", "[")):
            try:
                json_keys(json.loads(doc), keys)
            except ValueError:
                pass  # not JSON: the flag's own check reports the run
    with SEEN_LOCK:
        SEEN_KEYS.update(keys)


def check_display_only(cmd, flag):
    base = list(BASE[cmd]) + (["--currency", "INR"] if (cmd, "--currency") in COMMAND_FLAGS else [])
    rc0, out0, _ = run(cmd, base)
    if rc0 == 2:
        base = list(BASE[cmd])
        rc0, out0, err0 = run(cmd, base)
        if rc0 == 2:
            return f"{cmd} {flag}: the base run failed, so the display-only check tests nothing: {' '.join(base)}: {err0.strip()[:300]}"
    for extra in DISPLAY_VALUES[flag]:
        rc1, out1, err1 = run(cmd, base + extra)
        if rc1 != rc0 or out1 != out0:
            return f"{cmd} {flag}: display-only, yet the JSON changes with {' '.join(extra)} ({' '.join(base)}): {err1.strip()[:200]}"
    return None


def check(cmd, flag):
    if flag in DISPLAY_VALUES:
        return check_display_only(cmd, flag)
    if flag in DISPLAY_ONLY or (cmd, flag) in DISPLAY_ONLY_IN or flag in COVERED_ELSEWHERE:
        return None
    r = COMMAND_ROWS[(cmd, flag)] if (cmd, flag) in COMMAND_ROWS else ROWS.get(flag)
    if r is None:
        return f"{cmd} {flag}: no row in tests/cli/flag_walk_test.py (add one, or do not register the flag)"
    without, with_ = expand(cmd, r)
    rc0, out0, err0 = run(cmd, without)
    rc1, out1, err1 = run(cmd, with_)
    if rc0 == 2 and not (r["base_refused"] and rc1 != 2):
        return f"{cmd} {flag}: the base run failed: {' '.join(without)}: {err0.strip()[:300]}"
    if rc1 == 2:
        return f"{cmd} {flag}: refused: {' '.join(with_)}: {err1.strip()[:300]}"
    if rc0 == rc1 and out0 == out1:
        return f"{cmd} {flag}: silent no-op: the JSON is the same with {' '.join(r['set'])}"
    return None


# Commands whose rows are not written yet: printed, not hidden.
NOT_WALKED_YET = {}


def check_choice(cmd, flag, choice):
    """Completions offer the values an enum flag's help lists: the command must take each one."""
    args = without_flags(BASE[cmd], [flag]) + [flag, choice]
    rc, _, err = run(cmd, args)
    if rc == 2 and ("unknown value" in err or " not in " in err):
        return f"{cmd} {flag} {choice}: listed in its help (and so in the completions) but refused: {err.strip()[:300]}"
    return None


def json_keys(node, out):
    if isinstance(node, dict):
        for k, v in node.items():
            out.add(k)
            json_keys(v, out)
    elif isinstance(node, list):
        for v in node:
            json_keys(v, out)
    return out


# JSON keys in one spelling: the flags' (--utilization, --memory-utilization), never the other.
OTHER_SPELLINGS = ("utilis", "normalis", "optimis", "behaviour", "colour", "amortis")


# Keys published under the other spelling first: printed beside the new one until schema 2.
# Each must be in docs/json.md's table of deprecated keys.
DEPRECATED = {"utilisation": "utilization"}


def check_spelling():
    for cmd in BASE:
        run(cmd, BASE[cmd])  # with a command list given, the bases still count
    with open(os.path.join(ROOT, "docs", "json.md")) as f:
        doc = f.read()
    fails = [f"deprecated JSON key {k!r} is not in docs/json.md's table of deprecated keys"
             for k in DEPRECATED if f"| `{k}` | `{DEPRECATED[k]}` |" not in doc]
    bad = sorted(k for k in SEEN_KEYS if any(s in k for s in OTHER_SPELLINGS) and k not in DEPRECATED)
    fails += [f"JSON key {k!r}: spelt unlike the flags (US spelling, as --utilization)" for k in bad]
    fails += [f"deprecated JSON key {k!r} printed without its new spelling {DEPRECATED[k]!r}"
              for k in DEPRECATED if k in SEEN_KEYS and DEPRECATED[k] not in SEEN_KEYS]
    return fails


def main():
    for cmd, why in NOT_WALKED_YET.items():
        print(f"not walked yet: {cmd}: {why}")
    make_inputs()
    listing = json.loads(subprocess.run([GP, "flags"], capture_output=True, text=True, check=True).stdout)
    jobs, choices = [], []
    for c in listing:
        if c["command"] not in BASE or c["command"] in NOT_WALKED_YET or (ONLY and c["command"] not in ONLY):
            continue
        for f in c["flags"]:
            long_names = [n for n in f["names"] if n.startswith("--")]
            name = long_names[0] if long_names else f["names"][0]
            jobs.append((c["command"], name))
            COMMAND_FLAGS.add((c["command"], name))
            if name != "--format":  # CLI11 itself checks --format against the same list
                choices += [(c["command"], name, v) for v in f["choices"]]
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as ex:
        results = list(ex.map(lambda j: check(*j), jobs)) + list(ex.map(lambda j: check_choice(*j), choices))
    fails = [r for r in results if r] + check_spelling()
    for r in fails:
        print("FAIL:", r)
    print(f"flag walk: {len(jobs) + len(choices) - len(fails)} passed ({len(jobs)} flags, {len(choices)} listed values), {len(fails)} failed")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
