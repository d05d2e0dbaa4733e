#!/usr/bin/env python3
"""Issue 31, "linear at scale": each workload at two sizes 10x apart, on inputs this script
generates; prints the median wall time, the peak RSS and the growth exponent
log(t_big / t_small) / log(10) (1.0 is linear, 2.0 quadratic).

Workloads (small / big):
  compare  `compare --sheet` over a SkyPilot vms.csv whose every row is its own offer
           (100,000 / 1,000,000 rows; AWS's column layout, as bench/skypilot_1m.py --distinct)
  demand   `demand` on a job CSV (100,000 / 1,000,000 jobs, one year, 40 users, 8 teams, 10% failed)
  sacct    `demand` on the same jobs as a Slurm `sacct --parsable2` log, each job followed by its
           .batch step line (100,000 / 1,000,000 jobs: 200 MB of log at the big size)
  replay   `replay` on the same kind of log (20,000 / 200,000 jobs), default --owned sweep
  import   `ledger import` of JSON Lines into a fresh SQLite file (100,000 / 1,000,000 records)
  report   `ledger report --by team` on that SQLite file and on the JSON Lines file
  html     `report --html` (the dashboard, a policy with caps) on that SQLite file, as of 2026-12-15
  gate     `check` of examples/ci/passing against that SQLite file, as of 2026-12-15
  check    `check --quiet` over spec files (8,000 / 80,000)

Wall time is spawn to exit; CPU time is user + system from /usr/bin/time, the steadier figure on
a busy shared machine; load is the mean 1-minute load average before each run. Usage: bench/scale.py [--gpuplan build/gpuplan] [--runs 3] [--only compare demand ...] [--small]
  (html and gate need import: --only import html gate)
  --small  divides every size by 10 (a smoke run; ctest does not run this script)
Figures, not a test: the README's "Speed" section quotes one run of this script.
"""
import argparse
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GPUS = ["H100", "A100", "L4", "T4", "A10G", "H200", "L40S", "V100"]
STATES = ["COMPLETED"] * 8 + ["FAILED", "CANCELLED"]


def write_sheet(path, rows):
    """A SkyPilot vms.csv of `rows` rows, each its own offer (region = zone)."""
    with open(path, "w") as out:
        out.write("InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,Region,AvailabilityZone,Arch\n")
        types = rows // 500
        for t in range(types):
            gpu, count = GPUS[t % len(GPUS)], [1, 2, 4, 8][t % 4]
            info = '"{\'Gpus\': [{\'Name\': \'%s\', \'Count\': %d, \'MemoryInfo\': {\'SizeInMiB\': 81920}}]}"' % (gpu, count)
            price = 1.0 + count * (2 + (t % 7) * 0.5)
            for r in range(50):
                for z in range(10):
                    out.write("x%d.%dxlarge,%s,%d,%d.0,%d.0,%s,%.4f,%.6f,reg-%d-az%d,reg-%d-az%d,x86_64\n" %
                              (t, count, gpu, count, 8 * count, 64 * count, info, price, price * (0.2 + 0.05 * z), r, z, r, z))


def stamp(seconds):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))


def write_jobs(path, n):
    """n jobs over a year from 2026-01-01: 1-8 GPUs, 10 minutes to 20 hours, some retried."""
    t0 = 1767225600  # 2026-01-01T00:00:00Z
    span = 365 * 86400
    with open(path, "w") as out:
        out.write("id,name,user,team,partition,submit,start,end,gpus,state\n")
        for i in range(n):
            submit = t0 + (i * 7919 % n) * span // n
            start = submit + (i * 31 % 7200)
            end = start + 600 + (i * 104729 % 72000)
            out.write("%d,job%d,user%d,team%d,gpu,%s,%s,%s,%d,%s\n" % (i, i % 997, i % 40, i % 8, stamp(submit), stamp(start),
                                                                     stamp(end), [1, 2, 4, 8][i % 4], STATES[i % 10]))


def write_sacct(path, n):
    """The jobs of write_jobs as `sacct --parsable2` lines, each with a .batch step."""
    t0, span = 1767225600, 365 * 86400
    with open(path, "w") as out:
        out.write("JobID|JobName|Partition|Account|User|Submit|Start|End|Elapsed|AllocTRES|State\n")
        for i in range(n):
            submit = t0 + (i * 7919 % n) * span // n
            start = submit + (i * 31 % 7200)
            end = start + 600 + (i * 104729 % 72000)
            g = [1, 2, 4, 8][i % 4]
            times = "%s|%s|%s|00:00:00" % (stamp(submit), stamp(start), stamp(end))
            out.write("%d|job%d|gpu|team%d|user%d|%s|billing=%d,cpu=%d,gres/gpu=%d,mem=64G,node=1|%s\n"
                      % (i, i % 997, i % 8, i % 40, times, 8 * g, 8 * g, g, STATES[i % 10]))
            out.write("%d.batch|batch||team%d||%s|cpu=%d,gres/gpu=%d,mem=64G,node=1|%s\n" % (i, i % 8, times, 8 * g, g, STATES[i % 10]))


POLICY = "currency: USD\nperiod: month\ntotal: 500000\nper_experiment: 9000\nteams:\n  team1: 40000\nusers:\n  user3: 9000\n"


def write_ledger(path, n):
    with open(path, "w") as out:
        for i in range(n):
            out.write('{"date":"2026-%02d-%02d","experiment":"exp%d","team":"team%d","user":"user%d","cost":%.2f,"currency":"USD","id":"r%d"}\n'
                      % (i % 12 + 1, i % 28 + 1, i % 500, i % 8, i % 40, (i % 1000 + 1) / 100, i))


SPEC = "name: {n}\nowner: asha\nteam: nlp\nmodel: llama-3.1-8b\nmethod: lora\nmicro_batch: 4\nseq_len: 2048\ntokens: 200M\ngpu: {g}\nmax_cost: 60\n"


def write_specs(folder, n):
    os.makedirs(folder, exist_ok=True)
    for i in range(n):
        with open(os.path.join(folder, "exp%06d.yaml" % i), "w") as f:
            f.write(SPEC.format(n="exp%06d" % i, g=["rtx-4090", "h100-sxm", "a100-80gb-sxm", "l40s"][i % 4]))


def run(argv, prepare=None):
    """Wall seconds, CPU seconds (user + system) and peak RSS (MiB) of one run under
    /usr/bin/time; output to /dev/null. On a shared machine the CPU time is the steadier figure."""
    if prepare:
        prepare()
    t = time.perf_counter()
    r = subprocess.run(["/usr/bin/time", "-f", "%M %U %S"] + argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t
    if r.returncode not in (0, 1):
        sys.exit("error: %s exited %d:\n%s" % (" ".join(argv), r.returncode, r.stderr[-2000:]))
    rss, user, system = (float(x) for x in r.stderr.strip().splitlines()[-1].split())
    return wall, user + system, rss / 1024


def measure(argv, runs, prepare=None):
    """Medians of wall and CPU time, the largest peak RSS, and the mean 1-minute load average
    seen before each run (the machine is shared: a figure is read with its load)."""
    got, load = [], []
    for _ in range(runs):
        load.append(os.getloadavg()[0])
        got.append(run(argv, prepare))
    return (statistics.median(w for w, _, _ in got), statistics.median(c for _, c, _ in got), max(m for _, _, m in got),
            statistics.mean(load))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gpuplan", default=os.path.join(ROOT, "build", "gpuplan"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--small", action="store_true")
    args = ap.parse_args()
    gp = os.path.abspath(args.gpuplan)
    div = 10 if args.small else 1
    want = lambda name: not args.only or name in args.only
    tmp = tempfile.mkdtemp(prefix="gpuplan-scale-")
    env_cache = os.path.join(tmp, "cache")
    os.environ["XDG_CACHE_HOME"] = env_cache
    rows = []  # (workload, size, wall_s, cpu_s, rss_MiB, load, command)
    print("gpuplan at scale: median of %d runs per size; exponent = log(t_big/t_small)/log(size ratio)" % args.runs)
    print("command: %s" % " ".join(["bench/scale.py"] + sys.argv[1:]))
    print("%-14s %10s %10s %9s %9s %9s %9s %6s" % ("workload", "size", "wall_s", "cpu_s", "rss_MiB", "exp_wall", "exp_cpu", "load"), flush=True)

    def pair(name, sizes, make, argv_of, prepare_of=None):
        for size in sizes:
            make(size)
            argv = argv_of(size)
            med, cpu, rss, load = measure(argv, args.runs, prepare_of(size) if prepare_of else None)
            rows.append((name, size, med, cpu, rss, load, " ".join(a.replace(tmp, "$TMP") for a in argv)))
            exp = ["", ""]
            if len(rows) > 1 and rows[-2][0] == name:  # printed as measured: a long run shows its progress
                ratio = math.log(size / rows[-2][1])
                exp = ["%.2f" % (math.log(med / rows[-2][2]) / ratio),
                       "%.2f" % (math.log(max(cpu, 0.01) / max(rows[-2][3], 0.01)) / ratio)]
            print("%-14s %10d %10.3f %9.2f %9.1f %9s %9s %6.2f" % (name, size, med, cpu, rss, exp[0], exp[1], load), flush=True)

    try:
        job = ["--model", "llama-3.1-8b", "--method", "lora", "--tokens", "200M"]
        if want("compare"):
            pair("compare", [100000 // div, 1000000 // div], lambda n: write_sheet("%s/vms_%d.csv" % (tmp, n), n),
                 lambda n: [gp, "compare"] + job + ["--sheet", "%s/vms_%d.csv" % (tmp, n)])
        if want("demand"):
            pair("demand", [100000 // div, 1000000 // div], lambda n: write_jobs("%s/jobs_%d.csv" % (tmp, n), n),
                 lambda n: [gp, "demand", "%s/jobs_%d.csv" % (tmp, n)])
        if want("sacct"):
            pair("sacct", [100000 // div, 1000000 // div], lambda n: write_sacct("%s/sacct_%d.txt" % (tmp, n), n),
                 lambda n: [gp, "demand", "%s/sacct_%d.txt" % (tmp, n)])
            for n in [100000 // div, 1000000 // div]:
                os.remove("%s/sacct_%d.txt" % (tmp, n))
        if want("replay"):
            pair("replay", [20000 // div, 200000 // div], lambda n: write_jobs("%s/jobs_%d.csv" % (tmp, n), n),
                 lambda n: [gp, "replay", "%s/jobs_%d.csv" % (tmp, n), "--gpu", "a100-80gb", "--gpu-price", "15000",
                            "--max-p95-queue", "4h"])
            # The default sweep grows with the log's peak (84 fleets at 20k jobs, 244 at 200k), so
            # its exponent counts fleets too; the same 31 fleet sizes at both sizes show the growth in jobs.
            pair("replay fixed", [20000 // div, 200000 // div], lambda n: None,
                 lambda n: [gp, "replay", "%s/jobs_%d.csv" % (tmp, n), "--gpu", "a100-80gb", "--gpu-price", "15000",
                            "--max-p95-queue", "4h", "--owned", "0:480:16"])
        if want("import") or want("report") or want("html") or want("gate"):
            for n in [100000 // div, 1000000 // div]:
                write_ledger("%s/ledger_%d.jsonl" % (tmp, n), n)
            db = lambda n: "%s/ledger_%d.db" % (tmp, n)
            fresh = lambda n: (lambda: [os.remove(p) for p in (db(n), db(n) + "-wal", db(n) + "-shm") if os.path.exists(p)])
            pair("import", [100000 // div, 1000000 // div], lambda n: None,
                 lambda n: [gp, "ledger", "import", "%s/ledger_%d.jsonl" % (tmp, n), "--ledger", db(n), "-q"], fresh)
            if want("report"):
                pair("report sqlite", [100000 // div, 1000000 // div], lambda n: None,
                     lambda n: [gp, "ledger", "report", "--ledger", db(n), "--by", "team"])
                pair("report jsonl", [100000 // div, 1000000 // div], lambda n: None,
                     lambda n: [gp, "ledger", "report", "--ledger", "%s/ledger_%d.jsonl" % (tmp, n), "--by", "team"])
            if want("html"):
                with open("%s/budget.yaml" % tmp, "w") as f:
                    f.write(POLICY)
                pair("html sqlite", [100000 // div, 1000000 // div], lambda n: None,
                     lambda n: [gp, "report", "--ledger", db(n), "--policy", "%s/budget.yaml" % tmp, "--date", "2026-12-15",
                                "--html", "%s/report_%d.html" % (tmp, n)])
                pair("html jsonl", [100000 // div, 1000000 // div], lambda n: None,
                     lambda n: [gp, "report", "--ledger", "%s/ledger_%d.jsonl" % (tmp, n), "--policy", "%s/budget.yaml" % tmp,
                                "--date", "2026-12-15", "--html", "%s/report_jsonl_%d.html" % (tmp, n)])
            if want("gate"):
                ex = os.path.join(ROOT, "examples", "ci", "passing")
                pair("gate sqlite", [100000 // div, 1000000 // div], lambda n: None,
                     lambda n: [gp, "check", os.path.join(ex, "experiments"), "--policy", os.path.join(ex, "budget.yaml"),
                                "--ledger", db(n), "--date", "2026-12-15"])
                pair("gate jsonl", [100000 // div, 1000000 // div], lambda n: None,
                     lambda n: [gp, "check", os.path.join(ex, "experiments"), "--policy", os.path.join(ex, "budget.yaml"),
                                "--ledger", "%s/ledger_%d.jsonl" % (tmp, n), "--date", "2026-12-15"])
        if want("check"):
            pair("check", [8000 // div, 80000 // div], lambda n: write_specs("%s/specs_%d" % (tmp, n), n),
                 lambda n: [gp, "check", "%s/specs_%d" % (tmp, n), "--quiet"])
        print("\ncommands:")
        for name, size, _, _, _, _, cmd in rows:
            print("  %-14s %s" % (name, cmd))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
