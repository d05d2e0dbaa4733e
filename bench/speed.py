#!/usr/bin/env python3
"""Process-level speed figures for gpuplan, each as a ratio to floors measured in the same run.

Every round runs every command once, in a rotating order (paired, interleaved runs), so a
machine that is busier in one moment slows the floors and the subjects alike; each figure is the
median over the rounds of (command's wall time / floor's wall time in the same round). Floors:
an empty compiled C++ program (`int main(){}`), /bin/true, and `python3 -c pass`. Wall time is
spawn to exit (posix_spawn + wait4); peak RSS is one extra run under /usr/bin/time.

Usage: bench/speed.py [--gpuplan build/gpuplan] [--runs 21] [--quick] [--only NAME ...]
  --quick   leaves out the 10,000-spec check and the 1M-row SkyPilot imports (bench/skypilot_1m.py:
            100,000 offers, and with --distinct 1,000,000)
It prints one line per figure and the command that produced it. Nothing here is a test: the
figures vary with the machine; the README quotes one run of this script.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SPEC = """name: {name}
owner: asha
team: nlp
model: {model}
method: {method}
micro_batch: 4
seq_len: 2048
checkpointing: full
tokens: 200M
gpu: {gpu}
max_cost: 60
deadline: 3d
"""
MODELS = ["llama-3.1-8b", "qwen2.5-7b", "mistral-7b", "llama-3.2-1b"]
METHODS = ["lora", "qlora", "full"]
GPUS = ["rtx-4090", "h100-sxm", "a100-80gb-sxm", "l40s"]


def write_specs(folder, n):
    os.makedirs(folder, exist_ok=True)
    for i in range(n):
        with open(os.path.join(folder, "exp%05d.yaml" % i), "w") as f:
            f.write(SPEC.format(name="exp%05d" % i, model=MODELS[i % len(MODELS)],
                                method=METHODS[i % len(METHODS)], gpu=GPUS[i % len(GPUS)]))


def run_once(argv, env):
    """Wall seconds and peak RSS (KiB) of one run; output goes to /dev/null."""
    with open(os.devnull, "wb") as null:
        fa = [(os.POSIX_SPAWN_DUP2, null.fileno(), 1), (os.POSIX_SPAWN_DUP2, null.fileno(), 2)]
        t0 = time.perf_counter()
        pid = os.posix_spawn(argv[0], argv, env, file_actions=fa)
        _, status, _ = os.wait4(pid, 0)
        wall = time.perf_counter() - t0
    return wall, os.waitstatus_to_exitcode(status)


def peak_rss_kib(argv, env):
    """Peak RSS of one run, through /usr/bin/time: a child of this Python process would report
    Python's own RSS (ru_maxrss survives exec)."""
    if not os.path.exists("/usr/bin/time"):
        return float("nan")
    with open(os.devnull, "wb") as null:
        r = subprocess.run(["/usr/bin/time", "-f", "%M"] + argv, env=env, stdout=null, stderr=subprocess.PIPE, text=True)
    try:
        return float(r.stderr.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gpuplan", default=os.path.join(ROOT, "build", "gpuplan"))
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", nargs="*", default=None)
    args = ap.parse_args()
    gp = os.path.abspath(args.gpuplan)
    tmp = tempfile.mkdtemp(prefix="gpuplan-speed-")
    try:
        empty = os.path.join(tmp, "empty")
        with open(empty + ".cpp", "w") as f:
            f.write("int main() {}\n")
        subprocess.run(["c++", "-O2", empty + ".cpp", "-o", empty], check=True)
        specs500, specs10k = os.path.join(tmp, "specs500"), os.path.join(tmp, "specs10k")
        write_specs(specs500, 500)
        env = dict(os.environ)
        env.pop("GPUPLAN_DATA_DIR", None)
        env["XDG_CACHE_HOME"] = os.path.join(tmp, "cache")
        data_env = dict(env, GPUPLAN_DATA_DIR=os.path.join(ROOT, "data"))
        py = shutil.which("python3")
        floors = [("empty C++ main", [empty], env), ("/bin/true", ["/bin/true"], env),
                  ("python3 -c pass", [py, "-c", "pass"], env)]
        est = [gp, "estimate", "--model", "llama-3.1-8b", "--method", "lora", "--gpu", "rtx-4090"]
        subjects = [
            ("estimate", est, env),
            ("version", [gp, "--version"], env),
            ("estimate, GPUPLAN_DATA_DIR", est, data_env),
            ("check 500 specs", [gp, "check", specs500, "--quiet"], env),
        ]
        if not args.quick:
            write_specs(specs10k, 10000)
            csv, distinct = os.path.join(tmp, "vms_1m.csv"), os.path.join(tmp, "vms_1m_distinct.csv")
            subprocess.run([sys.executable, os.path.join(ROOT, "bench", "skypilot_1m.py"), csv], check=True)
            subprocess.run([sys.executable, os.path.join(ROOT, "bench", "skypilot_1m.py"), distinct, "--distinct"], check=True)
            subjects += [("check 10,000 specs", [gp, "check", specs10k, "--quiet"], env),
                         ("SkyPilot 1M rows (100k)", [gp, "catalog", "validate", csv], env),
                         ("SkyPilot 1M rows (1M)", [gp, "catalog", "validate", distinct], env)]
        if args.only:
            subjects = [s for s in subjects if s[0] in args.only]
        allcmds = floors + subjects
        rss = {}
        failed = False
        for name, argv, e in allcmds:  # warm the page cache and the data-dir cache; report failures
            _, code = run_once(argv, e)
            if code not in (0, 1):
                print("error: %s exited %d" % (" ".join(argv), code), file=sys.stderr)
                failed = True
            rss[name] = peak_rss_kib(argv, e)
        if failed:
            sys.exit(1)
        times = {name: [] for name, _, _ in allcmds}
        for r in range(args.runs):
            k = r % len(allcmds)
            for name, argv, e in allcmds[k:] + allcmds[:k]:
                times[name].append(run_once(argv, e)[0])
        print("gpuplan speed: median of %d paired rounds; ratios are per round (command / floor)" % args.runs)
        print("command: %s" % " ".join(["bench/speed.py"] + sys.argv[1:]))
        print("%-28s %10s %9s %8s %8s %8s" % ("figure", "median_ms", "rss_MiB", "x_empty", "x_true", "x_python"))
        for name, argv, _ in allcmds:
            ratios = [statistics.median(t / f for t, f in zip(times[name], times[fl])) for fl, _, _ in floors]
            print("%-28s %10.3f %9.1f %8.2f %8.2f %8.3f" % (name, 1000 * statistics.median(times[name]),
                                                        rss[name] / 1024, *ratios))
        print("\ncommands:")
        for name, argv, e in allcmds:
            prefix = "GPUPLAN_DATA_DIR=data " if "GPUPLAN_DATA_DIR" in e else ""
            print("  %-26s %s%s" % (name, prefix, " ".join(a.replace(tmp, "$TMP") for a in argv)))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
