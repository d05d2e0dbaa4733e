#!/usr/bin/python3
"""Checks one emitted launch file with the engines' own parsers and documented keys.

  check_launch.py torchrun ARGS_FILE MODEL NNODES [RDZV_ID ENDPOINT]
      ARGS_FILE holds the words torchrun received (NUL-separated, as a fake torchrun saved
      them after the shell expanded the emitted line); torch.distributed.run's own argument
      parser must accept them and train.py must get MODEL unchanged.
  check_launch.py torchrun-dir DIR
      the same for every N.args in DIR, with N.model (the name) and N.meta ("NNODES [RDZV_ID
      ENDPOINT]"): one process, so torch is imported once.
  check_launch.py deepspeed|accelerate|skypilot FILE [MODEL]
      parses the file and checks every key against the engine's documented keys.
  check_launch.py torchtitan FILE WORLD
      every key, type and choice against torchtitan's JobConfig, and the degrees against WORLD GPUs.
  check_launch.py megatron ARGS_FILE WORLD
      every flag pretrain_gpt.py received (NUL-separated, captured by a fake torchrun) against
      Megatron-LM's argument parser, and the checks its validate_args makes on the layout.
  check_launch.py readback ENGINE FILE [ARGS_FILE]
      prints the `gpuplan estimate` flags the file carries (one per line), for the round trip.
"""
import json
import sys
import tomllib

import yaml

# DeepSpeed: https://www.deepspeed.ai/docs/config-json/
DEEPSPEED = {"train_batch_size", "train_micro_batch_size_per_gpu", "gradient_accumulation_steps", "gradient_clipping",
             "bf16", "fp16", "zero_optimization", "activation_checkpointing", "wall_clock_breakdown"}
DEEPSPEED_ZERO = {"stage", "overlap_comm", "contiguous_gradients", "offload_optimizer", "offload_param"}
# accelerate: ClusterConfig and its fsdp_config / deepspeed_config dicts,
# https://github.com/huggingface/accelerate/blob/main/src/accelerate/commands/config/config_args.py
# and https://huggingface.co/docs/accelerate/usage_guides/fsdp, .../deepspeed
ACCELERATE = {"compute_environment", "distributed_type", "mixed_precision", "num_machines", "num_processes", "machine_rank",
              "main_process_ip", "main_process_port", "rdzv_backend", "same_network", "main_training_function",
              "fsdp_config", "deepspeed_config"}
ACCELERATE_FSDP = {"fsdp_sharding_strategy", "fsdp_auto_wrap_policy", "fsdp_offload_params", "fsdp_activation_checkpointing",
                   "fsdp_state_dict_type"}
ACCELERATE_DS = {"zero_stage", "gradient_accumulation_steps", "offload_optimizer_device", "offload_param_device", "zero3_init_flag"}
ACCELERATE_TYPES = {"NO", "MULTI_GPU", "FSDP", "DEEPSPEED"}
ACCELERATE_PRECISION = {"no", "fp16", "bf16", "fp8"}
# accelerate's deepspeed_config also takes deepspeed_multinode_launcher (pdsh | standard):
# accelerate/commands/config/config_args.py and utils/constants.py DEEPSPEED_MULTINODE_LAUNCHERS.
ACCELERATE_DS |= {"deepspeed_multinode_launcher"}
DEEPSPEED |= {"zero_force_ds_cpu_optimizer"}  # deepspeed/runtime/config.py get_zero_force_ds_cpu_optimizer
# torchtitan v0.2.2 (pytorch/torchtitan 73a0e6979dd10b6b1904098eb3c8f62c18ab87ce), JobConfig in
# torchtitan/config/job_config.py, the last release that reads TOML: section -> {key: type or
# choices}. Registered models from torchtitan/models/{llama3,qwen3}/__init__.py; the float8
# converter's name from torchtitan/components/quantization/float8.py.
TORCHTITAN = {
    "job": {"description": str},
    "model": {"name": {"llama3", "qwen3"}, "flavor": str, "converters": list},
    "optimizer": {"name": {"AdamW", "Adam"}},
    "training": {"local_batch_size": int, "global_batch_size": int, "seq_len": int, "steps": int,
                 "enable_cpu_offload": bool, "mixed_precision_param": {"bfloat16", "float32"}},
    "parallelism": {"data_parallel_replicate_degree": int, "data_parallel_shard_degree": int,
                    "tensor_parallel_degree": int, "pipeline_parallel_degree": int, "context_parallel_degree": int,
                    "expert_parallel_degree": int, "pipeline_parallel_schedule": {"1F1B", "Interleaved1F1B", "GPipe"},
                    "pipeline_parallel_microbatch_size": int},
    "activation_checkpoint": {"mode": {"selective", "full", "memory_budget", "none"}, "selective_ac_option": str},
    "compile": {"enable": bool},
    "quantize.linear.float8": {"recipe_name": {"tensorwise", "rowwise", "rowwise_with_gw_hp"}},
}
TORCHTITAN_FLAVORS = {"llama3": {"8B", "70B", "405B"}, "qwen3": {"0.6B", "1.7B", "4B", "8B", "14B", "32B"}}
TORCHTITAN_CONVERTERS = {"quantize.linear.float8"}
# Megatron-LM (NVIDIA/Megatron-LM d98e8a64ddf34856e74b24714e3bedb2f5a39553): the flags gpuplan
# writes, as megatron/training/arguments.py registers them (directly, or from the
# TransformerConfig / ModelParallelConfig / TrainingConfig / DistributedDataParallelConfig fields
# through ArgumentGroupFactory): None = a store_true flag, a type, or a set of choices.
MEGATRON = {
    "--num-layers": int, "--hidden-size": int, "--ffn-hidden-size": int, "--num-attention-heads": int,
    "--group-query-attention": None, "--num-query-groups": int, "--kv-channels": int, "--seq-length": int,
    "--max-position-embeddings": int, "--position-embedding-type": {"learned_absolute", "rope", "yarn", "mrope", "relative", "none"},
    "--normalization": {"LayerNorm", "RMSNorm"}, "--swiglu": None, "--untie-embeddings-and-output-weights": None,
    "--disable-bias-linear": None, "--add-qkv-bias": None, "--qk-layernorm": None, "--num-experts": int,
    "--moe-router-topk": int, "--tensor-model-parallel-size": int, "--pipeline-model-parallel-size": int,
    "--num-layers-per-virtual-pipeline-stage": int, "--context-parallel-size": int, "--expert-model-parallel-size": int,
    "--sequence-parallel": None, "--use-distributed-optimizer": None, "--use-megatron-fsdp": None,
    "--data-parallel-sharding-strategy": {"no_shard", "optim", "optim_grads", "optim_grads_params"},
    "--optimizer-cpu-offload": None, "--use-precision-aware-optimizer": None, "--micro-batch-size": int,
    "--global-batch-size": int, "--train-iters": int, "--bf16": None, "--fp16": None, "--fp8-format": {"e4m3", "hybrid"},
    "--recompute-granularity": {"full", "selective"}, "--recompute-method": {"uniform", "block"},
    "--recompute-num-layers": int, "--attention-backend": {"flash", "fused", "unfused", "local", "auto"},
    "--optimizer": {"adam", "sgd"}, "--tokenizer-type": {"HuggingFaceTokenizer"}, "--tokenizer-model": str,
}

# SkyPilot task YAML: https://docs.skypilot.co/en/latest/reference/yaml-spec.html
SKYPILOT = {"name", "num_nodes", "resources", "envs", "run"}
SKYPILOT_RESOURCES = {"cloud", "region", "instance_type", "accelerators", "use_spot", "disk_size", "job_recovery"}


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def only(keys, allowed, where):
    extra = set(keys) - allowed
    if extra:
        fail(f"{where}: undocumented keys {sorted(extra)}")


def check_torchrun(args_file, model, nnodes, rdzv_id=None, endpoint=None):
    from torch.distributed.run import get_args_parser
    words = open(args_file, "rb").read().decode("utf-8").split("\0")[:-1]
    a = get_args_parser().parse_args(words)
    if a.training_script != "train.py":
        fail(f"training script {a.training_script!r}")
    if str(a.nnodes) != nnodes:
        fail(f"nnodes {a.nnodes!r}, expected {nnodes}")
    rest = a.training_script_args
    got = rest[rest.index("--model") + 1]
    if got != model:
        fail(f"train.py got --model {got!r}, expected {model!r}")
    if rdzv_id is not None and (a.rdzv_id != rdzv_id or a.rdzv_endpoint != endpoint or a.rdzv_backend != "c10d"):
        fail(f"rendezvous {a.rdzv_backend} {a.rdzv_id} {a.rdzv_endpoint}, expected c10d {rdzv_id} {endpoint}")
    if nnodes == "1" and not a.standalone:
        fail("one node without --standalone")


def check_torchrun_dir(d):
    import os
    names = sorted(f[:-5] for f in os.listdir(d) if f.endswith(".args"))
    if not names:
        fail("no torchrun lines were captured")
    for n in names:
        model = open(os.path.join(d, n + ".model"), "rb").read().decode("utf-8")
        meta = open(os.path.join(d, n + ".meta")).read().split()
        check_torchrun(os.path.join(d, n + ".args"), model, *meta)
    print(f"{len(names)} torchrun lines parsed")


def check_torchtitan(path, world):
    t = tomllib.load(open(path, "rb"))
    tables = {}
    for section, body in t.items():  # [quantize.linear.float8] nests as quantize -> linear -> float8
        if section == "quantize":
            tables["quantize.linear.float8"] = body["linear"]["float8"]
        else:
            tables[section] = body
    for section, body in tables.items():
        if section not in TORCHTITAN:
            fail(f"torchtitan: unknown section [{section}]")
        for key, value in body.items():
            want = TORCHTITAN[section].get(key)
            if want is None:
                fail(f"torchtitan: [{section}] has no key {key!r}")
            if isinstance(want, set):
                if value not in want:
                    fail(f"torchtitan: [{section}] {key} = {value!r}, expected one of {sorted(want)}")
            elif type(value) is not want:
                fail(f"torchtitan: [{section}] {key} = {value!r} is not {want.__name__}")
    m, tr, pa = t["model"], t["training"], t["parallelism"]
    if m["flavor"] not in TORCHTITAN_FLAVORS[m["name"]]:
        fail(f"torchtitan: {m['name']} has no flavor {m['flavor']!r}")
    if set(m.get("converters", [])) - TORCHTITAN_CONVERTERS:
        fail(f"torchtitan: unknown converters {m['converters']}")
    degrees = [pa.get(k, 1) for k in ("data_parallel_replicate_degree", "data_parallel_shard_degree", "tensor_parallel_degree",
                                      "pipeline_parallel_degree", "context_parallel_degree")]
    product = 1
    for d in degrees:
        product *= d
    if product != int(world):  # ParallelDims._validate: the degrees multiply to the world size
        fail(f"torchtitan: degrees {degrees} multiply to {product}, not {world} GPUs")
    dp = degrees[0] * degrees[1]
    if tr["global_batch_size"] % (tr["local_batch_size"] * dp):
        fail("torchtitan: global_batch_size is not a multiple of local_batch_size x data parallel")
    if pa.get("pipeline_parallel_degree", 1) > 1 and tr["local_batch_size"] % pa["pipeline_parallel_microbatch_size"]:
        fail("torchtitan: local_batch_size is not a multiple of the pipeline micro-batch")


def megatron_words(args_file):
    words = open(args_file, "rb").read().decode("utf-8").split("\0")[:-1]
    cut = words.index("pretrain_gpt.py")
    return words[:cut], words[cut + 1:]


def parse_megatron(words):
    args, i = {}, 0
    while i < len(words):
        flag = words[i]
        if flag not in MEGATRON:
            fail(f"megatron: pretrain_gpt.py has no flag {flag}")
        kind = MEGATRON[flag]
        if kind is None:
            args[flag] = True
            i += 1
            continue
        value = words[i + 1]
        if isinstance(kind, set) and value not in kind:
            fail(f"megatron: {flag} {value!r}, expected one of {sorted(kind)}")
        if kind is int:
            value = int(value)
        args[flag] = value
        i += 2
    return args


def launcher_gpus(words):
    nnodes = int(words[words.index("--nnodes") + 1])
    return nnodes * int(words[words.index("--nproc_per_node") + 1])


def check_megatron(args_file, world):
    launcher, words = megatron_words(args_file)
    a = parse_megatron(words)
    gpus = launcher_gpus(launcher)
    if gpus != int(world):
        fail(f"megatron: torchrun starts {gpus} processes, expected {world}")
    tp, pp = a["--tensor-model-parallel-size"], a["--pipeline-model-parallel-size"]
    cp = a.get("--context-parallel-size", 1)
    # The checks megatron/training/arguments.py validate_args makes on these values.
    if gpus % (tp * pp * cp):
        fail("megatron: world size is not divisible by tensor x pipeline x context parallel")
    dp = gpus // (tp * pp * cp)
    if a["--global-batch-size"] % (a["--micro-batch-size"] * dp):
        fail("megatron: global batch is not a multiple of micro-batch x data parallel")
    if a["--num-layers"] % pp:
        fail("megatron: layers do not divide into the pipeline stages")
    if a["--num-attention-heads"] % tp or a.get("--num-query-groups", a["--num-attention-heads"]) % tp:
        fail("megatron: attention heads or query groups do not divide by tensor parallel")
    if cp > 1 and a["--seq-length"] % (2 * cp):
        fail("megatron: seq-length must be a multiple of 2 x context parallel")
    if "--optimizer-cpu-offload" in a and "--use-precision-aware-optimizer" not in a:
        fail("megatron: --optimizer-cpu-offload needs --use-precision-aware-optimizer")
    if "--sequence-parallel" in a and tp == 1:
        fail("megatron: --sequence-parallel without tensor parallel")
    if "--group-query-attention" in a and "--num-query-groups" not in a:
        fail("megatron: --group-query-attention without --num-query-groups")


def main():
    kind, path = sys.argv[1], sys.argv[2]
    if kind == "torchrun-dir":
        check_torchrun_dir(path)
    elif kind == "torchrun":
        check_torchrun(path, *sys.argv[3:])
    elif kind == "torchtitan":
        check_torchtitan(path, sys.argv[3])
    elif kind == "megatron":
        check_megatron(path, sys.argv[3])
    elif kind == "readback":
        from readback import readback
        print("\n".join(readback(path, *sys.argv[3:])))
    elif kind == "deepspeed":
        j = json.load(open(path, encoding="utf-8"))
        only(j, DEEPSPEED, "deepspeed")
        only(j["zero_optimization"], DEEPSPEED_ZERO, "deepspeed zero_optimization")
        if j["train_batch_size"] % (j["train_micro_batch_size_per_gpu"] * j["gradient_accumulation_steps"]):
            fail("train_batch_size is not micro-batch x accumulation x GPUs")
        zero = j["zero_optimization"]
        if "offload_optimizer" in zero and j.get("zero_force_ds_cpu_optimizer", True):
            # deepspeed.initialize raises ZeRORuntimeException for a client optimizer otherwise.
            fail("offload without zero_force_ds_cpu_optimizer: false")
        if ("offload_optimizer" in zero and zero["stage"] < 1) or ("offload_param" in zero and zero["stage"] != 3):
            fail(f"offload at ZeRO stage {zero['stage']}")
    elif kind == "accelerate":
        y = yaml.safe_load(open(path, encoding="utf-8"))
        only(y, ACCELERATE, "accelerate")
        only(y.get("fsdp_config", {}), ACCELERATE_FSDP, "accelerate fsdp_config")
        only(y.get("deepspeed_config", {}), ACCELERATE_DS, "accelerate deepspeed_config")
        if y["distributed_type"] not in ACCELERATE_TYPES or y["mixed_precision"] not in ACCELERATE_PRECISION:
            fail(f"distributed_type {y['distributed_type']!r} / mixed_precision {y['mixed_precision']!r}")
        if y["num_machines"] > 1 and not (y.get("main_process_ip") and y.get("main_process_port")):
            fail("multi-node without main_process_ip/port")
        if y["num_machines"] > 1 and y["distributed_type"] == "DEEPSPEED" and \
                y["deepspeed_config"].get("deepspeed_multinode_launcher") != "standard":
            fail("multi-node DeepSpeed without deepspeed_multinode_launcher: standard (pdsh runs each node alone)")
    elif kind == "skypilot":
        y = yaml.safe_load(open(path, encoding="utf-8"))
        only(y, SKYPILOT, "skypilot")
        only(y["resources"], SKYPILOT_RESOURCES, "skypilot resources")
        if len(sys.argv) > 3 and y["envs"]["MODEL"] != sys.argv[3]:
            fail(f"envs.MODEL {y['envs']['MODEL']!r}, expected {sys.argv[3]!r}")
        if not all(isinstance(v, str) for v in y["envs"].values()):
            fail("an env value is not a string")
        print(y["run"], end="", file=open(path + ".run.sh", "w", encoding="utf-8"))
    else:
        fail("unknown kind " + kind)


if __name__ == "__main__":
    main()
