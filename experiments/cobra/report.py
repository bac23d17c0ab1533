#!/usr/bin/env python3
"""COBRA's study: tables of our numbers beside the paper's (seed 001, §VII).

    report.py RESULTS_ROOT OUT_DIR [PREFIX]

Reads RESULTS_ROOT/PREFIX-{sim,load,batch,dep}[, PREFIXemu-dep]/<scheduler>/<backend>-s<seed>/
(summary.json, jobs.csv, tasks.csv) and the workload beside each run
(<backend>-s<seed>-workload.json: the tasks' asks and work), and writes
OUT_DIR/REPORT.md and its CSVs.  Every sentence is fixed text; every number
comes from the runs or the paper."""
import csv, json, os, sys
from collections import defaultdict

ROOT, OUT = sys.argv[1], sys.argv[2]
PREFIX = sys.argv[3] if len(sys.argv) > 3 else "cobra"
NAMES = {"cobra-default": "Default", "tetris": "Tetris", "cobra": "COBRA", "srs": "SRS", "drs": "DRS"}
# The paper's reductions (prose of §VII-B/C; notes §6): COBRA against a baseline,
# (baseline - COBRA) / baseline; against Tetris, (COBRA - Tetris) / Tetris.
PAPER = {("cobra-default", "jrt"): "−35%", ("cobra-default", "makespan"): "≈ −40%",
         ("tetris", "jrt"): "within +7%", ("tetris", "makespan"): "within +9%",
         ("srs", "jrt"): "−37%", ("srs", "makespan"): "≈ −38%",
         ("drs", "jrt"): "better (no number)", ("drs", "makespan"): "–"}


def workload_asks(path):
    """Per job name: per stage name, (cpu, mem_gb, work)."""
    try:
        w = json.load(open(path))
    except (OSError, ValueError):
        return None
    out = {}
    for j in w["jobs"]:
        out[j["name"]] = {s["name"]: (s.get("cpu", j.get("cpu", 1)), s.get("mem_gb", j.get("mem_gb", 1)),
                                      s.get("work", 0), s.get("tasks", 1)) for s in j.get("stages", [])}
    return out


def load_run(d, wpath):
    try:
        s = json.load(open(os.path.join(d, "summary.json")))
    except (OSError, ValueError):
        return None
    if s.get("partial"):
        return None
    classes = s["parameters"]["server_classes"]
    cores = sum(c["servers"] * c["cores"] for c in classes)
    mem = sum(c["servers"] * c["memory_bytes"] / 1e9 for c in classes)
    row = {"jrt": s["jct_mean_s"], "makespan": s["makespan_s"], "verdict": s["fidelity"]["verdict"],
           "cpu_util": None, "mem_util": None, "peak": None, "ramp": None, "short": None}
    asks = workload_asks(wpath)
    jobs = list(csv.DictReader(open(os.path.join(d, "jobs.csv"))))
    names = {r["job"]: r["name"] for r in jobs}
    tasks = list(csv.DictReader(open(os.path.join(d, "tasks.csv"))))
    if asks is not None:
        cpu = mem_t = 0.0
        for t in tasks:
            a = asks.get(names.get(t["job"]), {}).get(t["stage"])
            if a and t["state"] == "done":
                dur = float(t["end_s"]) - float(t["start_s"])
                cpu += a[0] * dur
                mem_t += a[1] * dur
        span = s["makespan_s"] or 1
        row["cpu_util"] = cpu / (cores * span)
        row["mem_util"] = mem_t / (mem * span)
        # Short jobs: the half with the least work (tasks x work over its stages).
        work = {r["job"]: sum(v[2] * v[3] for v in asks.get(r["name"], {}).values()) for r in jobs}
        order = sorted(work, key=lambda j: (work[j], int(j)))
        short = set(order[:len(order) // 2])
        jr = [float(r["jct_s"]) for r in jobs if r["job"] in short and r["finished"] == "1"]
        row["short"] = sum(jr) / len(jr) if jr else None
    # Running tasks over time (Fig. 6): the peak, and when it first reached 90% of it.
    ev = []
    for t in tasks:
        if t["state"] == "done":
            ev += [(float(t["start_s"]), 1), (float(t["end_s"]), -1)]
    ev.sort(key=lambda e: (e[0], e[1]))
    run = peak = 0
    curve = []
    for at, k in ev:
        run += k
        curve.append((at, run))
        peak = max(peak, run)
    row["peak"] = peak
    row["ramp"] = next((at for at, n in curve if n >= 0.9 * peak), None) if peak else None
    return row


def load(exp):
    runs = defaultdict(dict)   # sched -> (backend, seed) -> row
    base = os.path.join(ROOT, exp)
    if not os.path.isdir(base):
        return runs
    for sc in sorted(os.listdir(base)):
        if not os.path.isdir(os.path.join(base, sc)):
            continue
        for name in sorted(os.listdir(os.path.join(base, sc))):
            d = os.path.join(base, sc, name)
            if not os.path.isdir(d):
                continue
            row = load_run(d, d + "-workload.json")
            if row:
                be, seed = name.split("-s", 1)
                runs[sc][(be, seed)] = row
    return runs


def mean(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


def fmt(x, f="%.1f"):
    return "–" if x is None else f % x


def pct(x):
    return "–" if x is None else "%+.0f%%" % (100 * x)


def common(runs, scheds, be):
    """Seeds every scheduler finished (so means compare the same workloads)."""
    keys = None
    for sc in scheds:
        k = {key for key in runs.get(sc, {}) if key[0] == be}
        keys = k if keys is None else keys & k
    return sorted(keys or [], key=lambda k: int(k[1]) if k[1].isdigit() else k[1])


def table(runs, scheds, be, base, md, rows_csv, title, cmp_to):
    keys = common(runs, scheds, be)
    md.append("### " + title + "\n")
    if not keys:
        md.append("No finished runs.\n")
        return
    md.append("%d seed(s). Means over seeds; utilisation is what the tasks asked (cores, memory) times "
              "their run time over the cluster's over the makespan.\n" % len(keys))
    md.append("| scheduler | mean JRT (s) | makespan (s) | CPU util. | memory util. | short half's JRT (s) |")
    md.append("|---|---|---|---|---|---|")
    m = {}
    for sc in scheds:
        vals = [runs[sc][k] for k in keys]
        m[sc] = {f: mean([v[f] for v in vals]) for f in ("jrt", "makespan", "cpu_util", "mem_util", "short")}
        md.append("| %s | %s | %s | %s | %s | %s |" % (NAMES.get(sc, sc), fmt(m[sc]["jrt"]), fmt(m[sc]["makespan"]),
                                                   fmt(m[sc]["cpu_util"], "%.2f"), fmt(m[sc]["mem_util"], "%.2f"),
                                                   fmt(m[sc]["short"])))
        rows_csv.append([base, sc, be, len(keys)] + [m[sc][f] for f in ("jrt", "makespan", "cpu_util", "mem_util", "short")])
    md.append("")
    md.append("| COBRA against | mean JRT, ours | per seed | paper | makespan, ours | per seed | paper |")
    md.append("|---|---|---|---|---|---|---|")
    for sc in cmp_to:
        cells = []
        for f in ("jrt", "makespan"):
            # a reduction against a baseline; against Tetris, how far behind the clairvoyant packer
            r = (m["cobra"][f] - m[sc][f]) / m[sc][f] if m[sc][f] else None
            per = [(runs["cobra"][k][f] - runs[sc][k][f]) / runs[sc][k][f] for k in keys if runs[sc][k][f]]
            rng = "%s to %s" % (pct(min(per)), pct(max(per))) if per else "–"
            cells += [pct(r), rng, PAPER.get((sc, f), "–")]
        md.append("| %s | %s |" % (NAMES.get(sc, sc), " | ".join(cells)))
    md.append("")


def batch_table(runs, be, md):
    scheds = ["cobra-default", "tetris", "cobra"]
    keys = common(runs, scheds, be)
    md.append("### Fig. 6: large jobs at t = 0\n")
    if not keys:
        md.append("No finished runs.\n")
        return
    md.append("%d seed(s). The most tasks running at once, and when the count first reached 90%% of that "
              "(the paper: COBRA's peak about Tetris's, both much above Default's; COBRA ramps up "
              "exponentially; no numbers).\n" % len(keys))
    md.append("| scheduler | peak running tasks | at 90% of it (s) | mean JRT (s) | makespan (s) |")
    md.append("|---|---|---|---|---|")
    for sc in scheds:
        vals = [runs[sc][k] for k in keys]
        md.append("| %s | %s | %s | %s | %s |" % (NAMES[sc], fmt(mean([v["peak"] for v in vals]), "%.0f"),
                                                 fmt(mean([v["ramp"] for v in vals])),
                                                 fmt(mean([v["jrt"] for v in vals])),
                                                 fmt(mean([v["makespan"] for v in vals]))))
    md.append("")


def main():
    os.makedirs(OUT, exist_ok=True)
    md = ["# COBRA (seed 001): our numbers beside the paper's\n",
          "Made by `experiments/cobra/report.py` from the runs of `experiments/cobra/run.sh` "
          "(prefix `%s`). The setup and every choice the paper leaves open: `docs/reproduction.md`, "
          "*COBRA*. The Fig. 2 examples are unit tests (`tests/unit/test_cobra.c`).\n" % PREFIX,
          "## Simulation: 100 machines, 8 cores, 16 GB, 1 Gb/s (Fig. 5)\n"]
    rows = [["study", "scheduler", "backend", "seeds", "jrt_mean_s", "makespan_s", "cpu_util", "mem_util",
             "short_jrt_s"]]
    sim = ["cobra-default", "tetris", "cobra"]
    table(load(PREFIX + "-sim"), sim, "sim", "sim", md, rows,
          "Google-like jobs, Poisson arrivals 60 s apart (the generator's default)", ["cobra-default", "tetris"])
    table(load(PREFIX + "-load"), sim, "sim", "load", md, rows,
          "The same jobs 10 s apart (a loaded cluster)", ["cobra-default", "tetris"])
    batch_table(load(PREFIX + "-batch"), "sim", md)
    md.append("## Deployment: 28 nodes, 2 cores, 4 GB, 1 Gb/s (Fig. 8)\n")
    dep = ["srs", "drs", "cobra"]
    table(load(PREFIX + "-dep"), dep, "sim", "dep", md, rows, "On the simulator", ["srs", "drs"])
    emu = load(PREFIX + "emu-dep")
    if emu:
        table(emu, dep, "emu", "emu-dep", md, rows, "On the emulator", ["srs", "drs"])
        table(emu, dep, "sim", "emu-dep-sim", md, rows, "The emulator's runs on the simulator", ["srs", "drs"])
        verdicts = defaultdict(int)
        for sc in dep:
            for (be, _), r in emu.get(sc, {}).items():
                if be == "emu":
                    verdicts[r["verdict"]] += 1
        md.append("Emulated runs' fidelity: %s.\n" % (", ".join("%s %d" % kv for kv in sorted(verdicts.items())) or "none"))
    with open(os.path.join(OUT, "REPORT.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    with open(os.path.join(OUT, "summary.csv"), "w", newline="") as f:
        csv.writer(f).writerows(rows)


main()
