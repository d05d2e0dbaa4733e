"""Reads a launch file's settings back as `gpuplan estimate` flags, for the round trip: the
estimate of what the file launches must equal the plan's per-GPU memory and step time.

readback(engine, file, args_file) returns the flags the file itself carries. args_file holds the
words a fake torchrun received (NUL-separated) for the script engines. Settings an engine's file
has no place for (a DeepSpeed JSON names no model or sequence length) are not returned: the
caller takes those from the plan, and the test says which.
"""
import json
import shlex
import tomllib

import yaml

# train.py's flags that are estimate's flags under the same name.
TRAIN_FLAGS = {"--method", "--precision", "--optimizer", "--micro-batch", "--grad-accum", "--seq-len", "--sharding", "--offload",
               "--checkpointing", "--attention", "--tensor-parallel", "--pipeline-parallel", "--context-parallel",
               "--virtual-pipeline", "--expert-parallel", "--lora-rank"}


def words_of(args_file):
    return open(args_file, "rb").read().decode("utf-8").split("\0")[:-1]


def launcher_gpus(words):
    return int(words[words.index("--nnodes") + 1]) * int(words[words.index("--nproc_per_node") + 1])


def train_flags(words):
    out, i = [], words.index("train.py") + 1
    while i < len(words):
        w = words[i]
        if w == "--sequence-parallel":
            out.append(w)
            i += 1
        elif w in TRAIN_FLAGS:
            out += [w, words[i + 1]]
            i += 2
        else:
            i += 2 if w in ("--model", "--global-batch") else 1
    return out


def from_script(args_file):
    w = words_of(args_file)
    return ["--gpus", str(launcher_gpus(w))] + train_flags(w)


def from_deepspeed(path):
    j = json.load(open(path, encoding="utf-8"))
    z = j["zero_optimization"]
    micro, accum = j["train_micro_batch_size_per_gpu"], j["gradient_accumulation_steps"]
    offload = "optimizer+params" if "offload_param" in z else "optimizer" if "offload_optimizer" in z else "none"
    # ZeRO-2 with offload on one GPU is how a DDP plan with offload is written.
    dp = j["train_batch_size"] // (micro * accum)
    sharding = "ddp" if z["stage"] == 0 or (dp == 1 and z["stage"] == 2 and offload != "none") else f"zero{z['stage']}"
    precision = "bf16" if j["bf16"]["enabled"] else "fp16" if j["fp16"]["enabled"] else "fp32"
    return ["--gpus", str(dp), "--micro-batch", str(micro), "--grad-accum", str(accum), "--sharding", sharding,
            "--offload", offload, "--precision", precision]


def from_accelerate(path):
    text = open(path, encoding="utf-8").read()
    header = next(line for line in text.splitlines() if line.startswith("# train.py's settings: "))
    words = shlex.split(header[len("# train.py's settings: "):])
    y = yaml.safe_load(text)
    flags = ["--gpus", str(y["num_processes"])] + train_flags(words)
    # The YAML's own keys must say what train.py's flags say.
    got = dict(zip(flags[::2], flags[1::2]))
    if y["distributed_type"] == "DEEPSPEED":
        ds = y["deepspeed_config"]
        want = "ddp" if ds["zero_stage"] == 2 and y["num_processes"] == 1 and got["--offload"] != "none" else f"zero{ds['zero_stage']}"
        if got["--sharding"] not in (want, "fsdp" if want == "zero3" else want):
            raise SystemExit(f"accelerate: zero_stage {ds['zero_stage']} against --sharding {got['--sharding']}")
        if str(ds["gradient_accumulation_steps"]) != got["--grad-accum"]:
            raise SystemExit("accelerate: gradient_accumulation_steps differs from train.py's")
    return flags


def from_torchtitan(path):
    t = tomllib.load(open(path, "rb"))
    tr, pa, ac = t["training"], t["parallelism"], t["activation_checkpoint"]
    rep, shard = pa.get("data_parallel_replicate_degree", 1), pa.get("data_parallel_shard_degree", 1)
    tp, pp, cp = pa.get("tensor_parallel_degree", 1), pa.get("pipeline_parallel_degree", 1), pa.get("context_parallel_degree", 1)
    dp = rep * shard
    micro = pa["pipeline_parallel_microbatch_size"] if pp > 1 else tr["local_batch_size"]
    accum = tr["global_batch_size"] // (micro * dp)
    fp8 = "quantize.linear.float8" in t["model"].get("converters", [])
    precision = "fp8" if fp8 else "bf16" if tr.get("mixed_precision_param") == "bfloat16" else "fp32"
    flags = ["--gpus", str(dp * tp * pp * cp), "--method", "full", "--optimizer", "adamw", "--precision", precision,
             "--micro-batch", str(micro), "--grad-accum", str(accum), "--seq-len", str(tr["seq_len"]),
             "--sharding", "fsdp" if shard > 1 else "ddp", "--offload", "optimizer+params" if tr["enable_cpu_offload"] else "none",
             "--checkpointing", ac["mode"], "--attention", "flash", "--tensor-parallel", str(tp), "--pipeline-parallel", str(pp),
             "--context-parallel", str(cp), "--expert-parallel", str(pa.get("expert_parallel_degree", 1))]
    if pa.get("pipeline_parallel_schedule") == "Interleaved1F1B":
        raise SystemExit("torchtitan: the interleaved schedule's virtual stages are not in the file")
    if tp > 1:
        flags.append("--sequence-parallel")  # torchtitan's TP always shards along the sequence
    return flags


def from_megatron(args_file):
    from check_launch import megatron_words, parse_megatron
    launcher, words = megatron_words(args_file)
    a = parse_megatron(words)
    gpus = launcher_gpus(launcher)
    tp, pp = a["--tensor-model-parallel-size"], a["--pipeline-model-parallel-size"]
    cp = a.get("--context-parallel-size", 1)
    dp = gpus // (tp * pp * cp)
    micro = a["--micro-batch-size"]
    if "--use-megatron-fsdp" in a:
        sharding = {"optim_grads": "zero2", "optim_grads_params": "zero3"}[a["--data-parallel-sharding-strategy"]]
    else:
        sharding = "zero1" if "--use-distributed-optimizer" in a else "ddp"
    precision = "fp8" if "--fp8-format" in a else "bf16" if "--bf16" in a else "fp16" if "--fp16" in a else "fp32"
    flags = ["--gpus", str(gpus), "--method", "full", "--precision", precision, "--micro-batch", str(micro),
             "--grad-accum", str(a["--global-batch-size"] // (micro * dp)), "--seq-len", str(a["--seq-length"]),
             "--sharding", sharding, "--offload", "optimizer" if "--optimizer-cpu-offload" in a else "none",
             "--checkpointing", a.get("--recompute-granularity", "none"),
             "--attention", {"flash": "flash", "unfused": "eager"}.get(a["--attention-backend"], "sdpa"),
             "--optimizer", "adamw" if a["--optimizer"] == "adam" else "sgd",
             "--tensor-parallel", str(tp), "--pipeline-parallel", str(pp), "--context-parallel", str(cp),
             "--expert-parallel", str(a.get("--expert-model-parallel-size", 1))]
    if "--num-layers-per-virtual-pipeline-stage" in a:
        flags += ["--virtual-pipeline", str(a["--num-layers"] // (pp * a["--num-layers-per-virtual-pipeline-stage"]))]
    if "--sequence-parallel" in a:
        flags.append("--sequence-parallel")
    return flags


def readback(engine, path, args_file=None):
    if engine in ("torchrun", "slurm", "skypilot"):
        return from_script(args_file)
    if engine == "megatron":
        return from_megatron(args_file)
    return {"deepspeed": from_deepspeed, "accelerate": from_accelerate, "torchtitan": from_torchtitan}[engine](path)
