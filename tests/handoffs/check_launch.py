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
"""
import json
import sys

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


def main():
    kind, path = sys.argv[1], sys.argv[2]
    if kind == "torchrun-dir":
        check_torchrun_dir(path)
    elif kind == "torchrun":
        check_torchrun(path, *sys.argv[3:])
    elif kind == "deepspeed":
        j = json.load(open(path, encoding="utf-8"))
        only(j, DEEPSPEED, "deepspeed")
        only(j["zero_optimization"], DEEPSPEED_ZERO, "deepspeed zero_optimization")
        if j["train_batch_size"] % (j["train_micro_batch_size_per_gpu"] * j["gradient_accumulation_steps"]):
            fail("train_batch_size is not micro-batch x accumulation x GPUs")
    elif kind == "accelerate":
        y = yaml.safe_load(open(path, encoding="utf-8"))
        only(y, ACCELERATE, "accelerate")
        only(y.get("fsdp_config", {}), ACCELERATE_FSDP, "accelerate fsdp_config")
        only(y.get("deepspeed_config", {}), ACCELERATE_DS, "accelerate deepspeed_config")
        if y["distributed_type"] not in ACCELERATE_TYPES or y["mixed_precision"] not in ACCELERATE_PRECISION:
            fail(f"distributed_type {y['distributed_type']!r} / mixed_precision {y['mixed_precision']!r}")
        if y["num_machines"] > 1 and not (y.get("main_process_ip") and y.get("main_process_port")):
            fail("multi-node without main_process_ip/port")
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


main()
