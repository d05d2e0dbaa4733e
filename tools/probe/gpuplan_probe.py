"""gpuplan probe: record one training or serving run as a gpuplan run record (one JSON line).

Drop it into a job; `gpuplan calibrate runs.jsonl` fits the team's constants to the records.
Standard library and torch only; the Hugging Face callback imports transformers when it is made.

    from gpuplan_probe import Probe
    with Probe("runs.jsonl", model=model, method="lora", precision="bf16",
               micro_batch=4, seq_len=2048, checkpointing=True) as probe:
        for batch in loader:
            loss = model(**batch).loss; loss.backward(); opt.step(); opt.zero_grad()
            probe.step()

    trainer.add_callback(gpuplan_trainer_callback("runs.jsonl", method="lora", seq_len=2048))

The record format is docs/run-records.md (JSON Schema: schemas/run-record.schema.json).
Memory peaks are torch's max_memory_allocated / max_memory_reserved on this process's device;
device_bytes adds what the card holds outside torch's allocator (CUDA context, cuBLAS), read
from cudaMemGetInfo, so it assumes the process is alone on its card. On a CPU all three are
null and tokens/s is still measured.
"""

import contextlib
import datetime
import json
import os
import platform
import time

import torch

SCHEMA = "gpuplan-run/1"


def _world_size():
    if torch.distributed.is_available() and torch.distributed.is_initialized():
        return torch.distributed.get_world_size()
    return int(os.environ.get("WORLD_SIZE", "1"))


def _model_fields(model):
    """The model as the record names it: its config.json as a dict, and its name or path."""
    out = {}
    config = getattr(model, "config", None)
    if config is not None and hasattr(config, "to_dict"):
        out["model_config"] = {k: v for k, v in config.to_dict().items() if _jsonable(v)}
        name = getattr(config, "_name_or_path", "") or getattr(model, "name_or_path", "")
        if name:
            out["model"] = name
        attn = getattr(config, "_attn_implementation", None)
        if attn:
            out["attention"] = attn
    return out


def _jsonable(v):
    try:
        json.dumps(v)
        return True
    except (TypeError, ValueError):
        return False


class Probe:
    """Context manager around a run's steps. Call step() after every optimizer step (or every
    decode step when serving). tokens/s is measured over the steps after `warmup_steps`, up to
    `measure_steps` of them (all when None)."""

    def __init__(self, path, *, method, precision, micro_batch, seq_len, model=None, model_name=None,
                 model_config=None, model_config_path=None, model_arch=None, checkpointing=False,
                 attention=None, world_size=None, grad_accum=1, warmup_steps=5, measure_steps=None,
                 tokens_per_step=None, run_id=None, settings=None, device=None, samples_per_step=None, family=None):
        self.path = path
        self.record = {"schema": SCHEMA}
        if run_id:
            self.record["id"] = run_id
        if model is not None:
            self.record.update(_model_fields(model))
        if model_name:
            self.record["model"] = model_name
        if model_config is not None:
            self.record["model_config"] = model_config
        if model_config_path:
            self.record["model_config_path"] = model_config_path
        if model_arch is not None:
            self.record["model_arch"] = model_arch
        self.world_size = world_size or _world_size()
        self.record.update({
            "method": method, "precision": precision, "micro_batch": int(micro_batch), "seq_len": int(seq_len),
            "checkpointing": checkpointing, "world_size": self.world_size, "grad_accum": int(grad_accum),
        })
        if attention:
            self.record["attention"] = attention
        if settings:
            self.record["settings"] = dict(settings)
        # Tokens the whole job processes per step: every rank's micro-batches.
        self.tokens_per_step = tokens_per_step or micro_batch * seq_len * grad_accum * self.world_size
        self.warmup_steps = warmup_steps
        self.measure_steps = measure_steps
        self.device = torch.device(device) if device else (
            torch.device("cuda", torch.cuda.current_device()) if torch.cuda.is_available() else torch.device("cpu"))
        self.steps = 0
        self._t0 = None
        self._t1 = None
        self._measured = 0
        self._tokens = 0
        # Measured outcomes, spelled as the spend ledger spells them (docs/ledger.md).
        self.samples_per_step = samples_per_step
        self._samples = 0
        self._metrics = []
        self._util = []
        self._restore_seconds = None
        if family:
            self.record["family"] = family

    def _sync(self):
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)

    def __enter__(self):
        if self.device.type == "cuda":
            torch.cuda.reset_peak_memory_stats(self.device)
        if self.warmup_steps == 0:
            self._sync()
            self._t0 = time.perf_counter()
        return self

    def step(self, tokens=None):
        """One step done. `tokens`: this step's tokens for the whole job, when not fixed."""
        self.steps += 1
        if self.samples_per_step:
            self._samples += self.samples_per_step
        self._sample_utilization()
        if self.steps < self.warmup_steps:
            return
        if self.steps == self.warmup_steps:
            self._sync()
            self._t0 = time.perf_counter()
            return
        if self.measure_steps is not None and self._measured >= self.measure_steps:
            return
        self._measured += 1
        self._tokens += tokens if tokens is not None else self.tokens_per_step
        self._sync()
        self._t1 = time.perf_counter()

    def metric(self, name, value, better):
        """A validation metric of this run, e.g. metric("eval_loss", 1.82, "lower")."""
        if better not in ("lower", "higher"):
            raise ValueError("better must be 'lower' or 'higher'")
        self._metrics = [m for m in self._metrics if m["name"] != name] + [
            {"name": name, "value": float(value), "better": better}]

    @contextlib.contextmanager
    def restoring(self):
        """Times a checkpoint restore: `with probe.restoring(): model.load_state_dict(...)`."""
        t0 = time.perf_counter()
        yield
        self._restore_seconds = time.perf_counter() - t0

    def _sample_utilization(self):
        # torch.cuda.utilization needs pynvml; without it the record has no utilization.
        if self.device.type != "cuda":
            return
        try:
            self._util.append(torch.cuda.utilization(self.device) / 100.0)
        except Exception:  # noqa: BLE001 - pynvml missing or NVML unavailable
            pass

    def _outcomes(self):
        out = {}
        if self._metrics:
            out["metrics"] = list(self._metrics)
        if self._util:
            out["utilization"] = min(1.0, max(0.0, sum(self._util) / len(self._util)))
        if self._samples:
            out["samples"] = self._samples
        if self._restore_seconds is not None:
            out["restore_seconds"] = self._restore_seconds
        return out

    def finish(self):
        """Measure and append the record; returns it."""
        r = dict(self.record)
        r["date"] = datetime.date.today().isoformat()
        r["torch_version"] = torch.__version__
        r["cuda_version"] = torch.version.cuda
        r["host"] = platform.node()
        r["steps"] = self._measured
        r["warmup_steps"] = self.warmup_steps
        elapsed = (self._t1 - self._t0) if self._t0 is not None and self._t1 is not None else 0.0
        r["tokens_per_second"] = self._tokens / elapsed if self._measured and elapsed > 0 else None
        r.update(self._memory())
        r.update(self._outcomes())
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps(r, sort_keys=True) + "\n")
        return r

    def _memory(self):
        if self.device.type != "cuda":
            return {"gpu": None, "device": str(self.device), "peak_allocated_bytes": None,
                    "peak_reserved_bytes": None, "device_bytes": None}
        self._sync()
        allocated = torch.cuda.max_memory_allocated(self.device)
        reserved = torch.cuda.max_memory_reserved(self.device)
        free, total = torch.cuda.mem_get_info(self.device)
        # Outside the allocator now = context + libraries; the peak adds the allocator's peak.
        outside = (total - free) - torch.cuda.memory_reserved(self.device)
        return {"gpu": torch.cuda.get_device_name(self.device), "device": str(self.device),
                "peak_allocated_bytes": allocated or None, "peak_reserved_bytes": reserved or None,
                "device_bytes": (outside + reserved) if outside > 0 and reserved else None}

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            self.finish()
        return False


def gpuplan_trainer_callback(path, *, method, seq_len, warmup_steps=5, measure_steps=None, **probe_args):
    """A transformers.TrainerCallback that probes the training run. Only rank 0 writes."""
    from transformers import TrainerCallback  # lazily: the module works without transformers

    class GpuplanProbeCallback(TrainerCallback):
        def __init__(self):
            self.probe = None

        def on_train_begin(self, args, state, control, model=None, **kwargs):
            if not state.is_world_process_zero:
                return
            precision = "bf16" if args.bf16 else "fp16" if args.fp16 else "fp32"
            settings = dict(probe_args.pop("settings", {}) or {})
            if args.bf16 or args.fp16:
                settings.setdefault("autocast", True)  # the Trainer's mixed precision is torch.autocast
            self.probe = Probe(path, model=model, method=method, precision=precision,
                               micro_batch=args.per_device_train_batch_size, seq_len=seq_len,
                               checkpointing=bool(args.gradient_checkpointing), world_size=args.world_size,
                               grad_accum=args.gradient_accumulation_steps, warmup_steps=warmup_steps,
                               measure_steps=measure_steps, settings=settings, **probe_args)
            self.probe.__enter__()

        def on_step_end(self, args, state, control, **kwargs):
            if self.probe is not None:
                self.probe.step()

        def on_train_end(self, args, state, control, **kwargs):
            if self.probe is not None:
                self.probe.finish()
                self.probe = None

    return GpuplanProbeCallback()
