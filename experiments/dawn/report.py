#!/usr/bin/env python3
"""Dawn's study: tables of our numbers beside the paper's (seed 000, §IV).

    report.py RESULTS_ROOT OUT_DIR [PREFIX]

Reads RESULTS_ROOT/PREFIX-{ml,tpch,tez}[, PREFIXemu-*]/<scheduler>/<backend>-s<seed>/
(summary.json, xrack.csv, dawn.txt) and writes OUT_DIR/REPORT.md and its CSVs.
Every sentence is fixed text; every number comes from the runs or the paper."""
import csv, json, os, sys
from collections import defaultdict

ROOT, OUT = sys.argv[1], sys.argv[2]
PREFIX = sys.argv[3] if len(sys.argv) > 3 else "dawn"
WORKLOADS = [("ml", "ML chains (dawn-ml)", ["delay", "sw-delay", "dawn"]),
             ("tpch", "TPC-H on MapReduce (dawn-tpch)", ["delay", "sw-delay", "dawn"]),
             ("tez", "TPC-H on Tez (dawn-tez)", ["delay", "dawn"])]
NAMES = {"delay": "Fair (delay)", "sw-delay": "ShuffleWatcher", "dawn": "Dawn"}
# The paper's ratios (Fig. 3, 4, 5 as its text gives them; the notes' §6.3), Dawn ÷ baseline.
PAPER = {
    ("ml", "delay", "throughput"): 1.51, ("ml", "delay", "jct"): 0.59, ("ml", "delay", "xrack"): 0.51,
    ("ml", "sw-delay", "throughput"): 1.28, ("ml", "sw-delay", "jct"): 0.77, ("ml", "sw-delay", "xrack"): 0.74,
    ("tpch", "delay", "throughput"): 1.42,
    ("tpch", "sw-delay", "throughput"): 1.21, ("tpch", "sw-delay", "jct"): 0.81, ("tpch", "sw-delay", "xrack"): 0.78,
    ("tez", "delay", "throughput"): 1.48, ("tez", "delay", "jct"): 0.61, ("tez", "delay", "xrack"): 0.53,
}
# Fig. 4(b): intermediate cross-rack bytes on ML, ÷ Fair.
PAPER_INTER = {("ml", "dawn"): 0.74, ("ml", "sw-delay"): 0.71}


def load(exp):
    runs = defaultdict(dict)   # sched -> (backend, seed) -> row
    base = os.path.join(ROOT, exp)
    if not os.path.isdir(base):
        return runs
    for sc in sorted(os.listdir(base)):
        for name in sorted(os.listdir(os.path.join(base, sc))):
            d = os.path.join(base, sc, name)
            try:
                s = json.load(open(os.path.join(d, "summary.json")))
            except (OSError, ValueError):
                continue
            if s.get("partial"):
                continue
            row = {"throughput": s["throughput_jobs_per_s"], "jct": s["jct_mean_s"],
                   "xrack": s["cross_rack_bytes"], "makespan": s["makespan_s"], "jobs": s["jobs_finished"],
                   "verdict": s["fidelity"]["verdict"], "input": 0, "inter": 0, "stages": defaultdict(int)}
            try:
                for r in csv.DictReader(open(os.path.join(d, "xrack.csv"))):
                    b = int(r["bytes"])
                    row["input" if r["kind"] == "input" else "inter"] += b
                    row["stages"][r["stage"]] += b
            except OSError:
                row["input"] = row["inter"] = None
            try:
                f = open(os.path.join(d, "dawn.txt")).read().split()
                row["dawn"] = {f[i]: int(f[i + 1]) for i in range(1, len(f) - 1, 2)}
            except (OSError, ValueError, IndexError):
                pass
            be, seed = name.split("-s", 1)
            runs[sc][(be, seed)] = row
    return runs


def mean(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


def fmt(x, f="%.2f"):
    return "–" if x is None else f % x


def mb(x):
    return None if x is None else x / 1e6


def ratio(a, b):
    return None if a is None or not b else a / b


lines = ["# Dawn (seed 000): our numbers beside the paper's", ""]
claims = [["setup", "workload", "measure", "dawn ÷", "ours", "per seed", "paper"]]
os.makedirs(OUT, exist_ok=True)
for setup, px in (("simulator", PREFIX), ("emulator setup", PREFIX + "emu")):
    for wl, title, scheds in WORKLOADS:
        runs = load("%s-%s" % (px, wl))
        if not runs:
            continue
        for be in ("emu", "sim"):
            keys = [set(k for k in runs[sc] if k[0] == be) for sc in scheds]
            common = sorted(set.intersection(*keys), key=lambda k: int(k[1])) if all(keys) else []
            if not common:
                continue
            tag = "%s, %s, %s" % (title, setup, "emulated" if be == "emu" else "simulated")
            lines += ["## %s" % tag, "",
                      "Seeds: %s. Fidelity verdicts: %s." % (
                          " ".join(k[1] for k in common),
                          ", ".join("%s %d" % (v, n) for v, n in sorted(
                              {v: sum(1 for sc in scheds for k in common if runs[sc][k]["verdict"] == v)
                               for v in {runs[sc][k]["verdict"] for sc in scheds for k in common}}.items()))),
                      "",
                      "| scheduler | jobs/s | ÷ Fair | mean JCT s | ÷ Fair | cross-rack MB | ÷ Fair | input MB | intermediate MB | ÷ Fair |",
                      "|---|---|---|---|---|---|---|---|---|---|"]
            table = [["scheduler", "throughput_jobs_per_s", "jct_mean_s", "cross_rack_bytes", "input_bytes",
                      "intermediate_bytes"]]
            m = {sc: {k: mean([runs[sc][s][k] for s in common]) for k in
                      ("throughput", "jct", "xrack", "input", "inter")} for sc in scheds}
            for sc in scheds:
                f = m["delay"]
                lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                    NAMES[sc], fmt(m[sc]["throughput"], "%.4f"), fmt(ratio(m[sc]["throughput"], f["throughput"])),
                    fmt(m[sc]["jct"], "%.1f"), fmt(ratio(m[sc]["jct"], f["jct"])),
                    fmt(mb(m[sc]["xrack"]), "%.0f"), fmt(ratio(m[sc]["xrack"], f["xrack"])),
                    fmt(mb(m[sc]["input"]), "%.0f"), fmt(mb(m[sc]["inter"]), "%.0f"),
                    fmt(ratio(m[sc]["inter"], f["inter"]))))
                table.append([sc] + [m[sc][k] for k in ("throughput", "jct", "xrack", "input", "inter")])
            lines.append("")
            with open(os.path.join(OUT, "%s-%s-%s.csv" % (px, wl, be)), "w", newline="") as fh:
                csv.writer(fh).writerows(table)
            for base in scheds[:-1]:
                for meas in ("throughput", "jct", "xrack"):
                    per = [ratio(runs["dawn"][s][meas], runs[base][s][meas]) for s in common]
                    per = [p for p in per if p is not None]
                    claims.append([tag, wl, meas, NAMES[base], fmt(ratio(m["dawn"][meas], m[base][meas])),
                                   "%s–%s" % (fmt(min(per)), fmt(max(per))) if per else "–",
                                   fmt(PAPER.get((wl, base, meas)))])
            for sc in ("sw-delay", "dawn"):
                if sc in scheds and (wl, sc) in PAPER_INTER:
                    per = [ratio(runs[sc][s]["inter"], runs["delay"][s]["inter"]) for s in common]
                    per = [p for p in per if p is not None]
                    claims.append([tag, wl, "intermediate (%s)" % NAMES[sc], NAMES["delay"],
                                   fmt(ratio(m[sc]["inter"], m["delay"]["inter"])),
                                   "%s–%s" % (fmt(min(per)), fmt(max(per))) if per else "–",
                                   fmt(PAPER_INTER[(wl, sc)])])
            if wl == "tez":
                stages = sorted({st for sc in scheds for s in common for st in runs[sc][s]["stages"]})
                lines += ["Cross-rack MB by the stage that read them (Fig. 5b):", "",
                          "| stage | " + " | ".join(NAMES[sc] for sc in scheds) + " | Dawn ÷ Fair |",
                          "|---|" + "---|" * (len(scheds) + 1)]
                rows = [["stage"] + scheds]
                for st in stages:
                    v = [mean([runs[sc][s]["stages"].get(st, 0) for s in common]) for sc in scheds]
                    lines.append("| %s | %s | %s |" % (st, " | ".join(fmt(x / 1e6, "%.1f") for x in v),
                                                       fmt(ratio(v[-1], v[0]))))
                    rows.append([st] + v)
                lines.append("")
                with open(os.path.join(OUT, "%s-%s-%s-stages.csv" % (px, wl, be)), "w", newline="") as fh:
                    csv.writer(fh).writerows(rows)
            d = [runs["dawn"][s].get("dawn") for s in common if runs["dawn"][s].get("dawn")]
            if d:
                tot = {k: sum(x.get(k, 0) for x in d) for k in d[0]}
                placed = tot.get("algorithm1", 0) + tot.get("relaxed", 0) + tot.get("fair", 0)
                lines += ["Dawn's offers: %d, %s saturated; tasks placed by Algorithm 1 %s, its relaxed pass %s, "
                          "the Fair fallback %s." % (
                              tot.get("offers", 0), fmt(ratio(tot.get("saturated", 0), tot.get("offers", 0)), "%.2f"),
                              fmt(ratio(tot.get("algorithm1", 0), placed)), fmt(ratio(tot.get("relaxed", 0), placed)),
                              fmt(ratio(tot.get("fair", 0), placed))), ""]

lines += ["## The paper's claims", "",
          "Dawn's mean over the seeds ÷ the baseline's; *per seed*: the range of the ratio seed by seed; "
          "*paper*: its text's ratio (– where it gives none).", "",
          "| " + " | ".join(claims[0]) + " |", "|" + "---|" * len(claims[0])]
lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in claims[1:]]
with open(os.path.join(OUT, "claims.csv"), "w", newline="") as fh:
    csv.writer(fh).writerows(claims)
with open(os.path.join(OUT, "REPORT.md"), "w") as fh:
    fh.write("\n".join(lines) + "\n")
