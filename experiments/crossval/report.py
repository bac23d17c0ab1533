#!/usr/bin/env python3
"""Cross-validation report: the same runs on the simulator and the emulator, compared by
the ratios (system / F-Hybrid on the same seed and backend) of throughput and of average
JCT, and by the OCS share.  Tables only.

usage: report.py RESULTS_DIR OUT_DIR

RESULTS_DIR holds <scheduler>/<backend>-<system>-s<seed>/summary.json (run.sh: RES/crossval).
Writes OUT_DIR/REPORT.md, OUT_DIR/crossval.csv (per backend and system), OUT_DIR/comparison.csv
(the simulator against the emulator) and OUT_DIR/runs.csv (every run).  A value that cannot be computed is written "–".  Python 3 standard library only."""
import csv, json, math, os, re, sys
from collections import Counter

SYSTEMS = ["F-Hybrid", "JobPacker", "Corral", "F-EPS"]
BACKENDS = ["sim", "emu"]
TOLERANCE = 0.05     # |simulator - emulator| of a ratio that counts as agreeing
DASH = "–"
NAN = float("nan")


def fin(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def fnum(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return NAN


def div(a, b):
    return a / b if fin(a) and fin(b) and b != 0 else NAN


def mean(xs):
    xs = [x for x in xs if fin(x)]
    return sum(xs) / len(xs) if xs else NAN


def num(x, fmt="%.3f"):
    return fmt % x if fin(x) else DASH


def rng(xs, fmt="%.3f"):
    xs = [x for x in xs if fin(x)]
    return (fmt + "–" + fmt) % (min(xs), max(xs)) if len(xs) > 1 else DASH


def load(res):
    """(backend, system, seed) -> run; every run found, partial ones too."""
    runs = {}
    for sched in sorted(os.listdir(res)) if os.path.isdir(res) else []:
        if not os.path.isdir(os.path.join(res, sched)):
            continue
        for name in sorted(os.listdir(os.path.join(res, sched))):
            m = re.match(r"(emu|sim)-(.+)-s(\d+)$", name)
            p = os.path.join(res, sched, name, "summary.json")
            if not m or not os.path.exists(p):
                continue
            try:
                with open(p) as f:
                    s = json.load(f)
            except ValueError:
                continue
            runs[(m.group(1), m.group(2), int(m.group(3)))] = {
                "run": "%s/%s" % (sched, name), "summary": s, "partial": bool(s.get("partial")),
                "stop": s.get("stop_reason", ""), "fidelity": s.get("fidelity", {}).get("verdict", DASH),
                "makespan": fnum(s.get("makespan_s")), "thr": fnum(s.get("throughput_jobs_per_s")),
                "jct": fnum(s.get("jct_mean_s")), "xrack": fnum(s.get("cross_rack_bytes")),
                "eps": fnum(s.get("eps_bytes")), "ocs": fnum(s.get("ocs_bytes")),
                "share": fnum(s.get("ocs_share"))}
    return runs


def write_csv(path, header, rows, fmt="%.6g"):
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        for r in rows:
            w.writerow([(fmt % x if fin(x) else DASH) if isinstance(x, float) else x for x in r])


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) < 2:
        sys.exit(__doc__)
    res, out = args[0], args[1]
    os.makedirs(out, exist_ok=True)
    runs = load(res)
    done = {k: r for k, r in runs.items() if not r["partial"]}

    # per run: its ratios to F-Hybrid's run of the same backend and seed
    for (be, system, seed), r in runs.items():
        base = done.get((be, "F-Hybrid", seed))
        ok = base is not None and not r["partial"]
        r["thr_ratio"] = div(r["thr"], base["thr"]) if ok else NAN
        r["jct_ratio"] = div(r["jct"], base["jct"]) if ok else NAN
    order = lambda k: (BACKENDS.index(k[0]) if k[0] in BACKENDS else 9,
                       SYSTEMS.index(k[1]) if k[1] in SYSTEMS else 9, k[1], k[2])
    write_csv(os.path.join(out, "runs.csv"),
              ["run", "backend", "system", "seed", "partial", "fidelity", "makespan_s", "throughput_jobs_s",
               "jct_mean_s", "cross_rack_bytes", "eps_bytes", "ocs_bytes", "ocs_share", "throughput_ratio",
               "jct_ratio"],
              [[r["run"], be, system, seed, "yes" if r["partial"] else "no", r["fidelity"], r["makespan"], r["thr"],
                r["jct"], r["xrack"], r["eps"], r["ocs"], r["share"], r["thr_ratio"], r["jct_ratio"]]
               for (be, system, seed), r in sorted(runs.items(), key=lambda kv: order(kv[0]))], fmt="%.10g")

    # per backend and system: means over the seeds whose pair (system, F-Hybrid) is complete
    agg = {}
    for be in BACKENDS:
        for system in SYSTEMS:
            rs = [r for (b, s, _), r in sorted(done.items()) if b == be and s == system and fin(r["thr_ratio"])]
            if rs:
                agg[(be, system)] = {
                    "runs": len(rs),
                    "thr": mean([r["thr_ratio"] for r in rs]), "jct": mean([r["jct_ratio"] for r in rs]),
                    "share": mean([r["share"] for r in rs]),
                    "thr_seed": [r["thr_ratio"] for r in rs], "jct_seed": [r["jct_ratio"] for r in rs],
                    "share_seed": [r["share"] for r in rs]}
    rows = []
    for be in BACKENDS:
        for system in SYSTEMS:
            a = agg.get((be, system))
            if a:
                rows.append([be, system, a["runs"], a["thr"], a["jct"], a["share"],
                             min(a["thr_seed"]), max(a["thr_seed"]), min(a["jct_seed"]), max(a["jct_seed"])])
    write_csv(os.path.join(out, "crossval.csv"),
              ["backend", "system", "runs", "throughput_ratio", "jct_ratio", "ocs_share", "throughput_ratio_min",
               "throughput_ratio_max", "jct_ratio_min", "jct_ratio_max"], rows)

    L = ["# Cross-validation: simulator against emulator", "",
         "Generated by `experiments/crossval/report.py` from the runs under `%s`. How to read it: "
         "`experiments/crossval/README.md`; what the differences come from: `docs/reproduction.md`."
         % os.path.relpath(os.path.abspath(res), os.path.dirname(os.path.dirname(os.path.dirname(
             os.path.abspath(__file__))))), "",
         "A ratio is the system's throughput or avg JCT ÷ F-Hybrid's on the same seed and backend, averaged over "
         "the seeds (Eq. 6.1); *holds*: |simulator − emulator| ≤ %.2f; – is a value the runs cannot give." % TOLERANCE,
         ""]

    # setup, recorded by the runs
    L += ["## Setup (recorded by the runs)", "",
          "| backend | system | seeds | jobs | topology | workload | data scale | time scale | slowstart | "
          "fidelity |", "|---|---|---|---|---|---|---|---|---|---|"]
    for be in BACKENDS:
        for system in SYSTEMS:
            rs = [(k[2], r) for k, r in sorted(done.items()) if k[0] == be and k[1] == system]
            if not rs:
                continue
            vals = lambda key: "/".join(sorted(set(re.sub(r"seed=\d+,?", "", str(r["summary"].get(
                "parameters", {}).get(key, DASH))) for _, r in rs)))
            L.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                be, system, " ".join(str(s) for s, _ in rs),
                "/".join(sorted(set(str(r["summary"].get("jobs", DASH)) for _, r in rs))),
                vals("topology"), vals("workload"), vals("data_scale"), vals("time_scale"), vals("slowstart"),
                "; ".join("%s %d" % kv for kv in sorted(Counter(r["fidelity"] for _, r in rs).items()))))
    L.append("")

    # the comparison
    L += ["## Simulator against emulator", "",
          "| system | measure | simulator | emulator | simulator − emulator | holds | simulator per seed | "
          "emulator per seed | seeds simulator / emulator |",
          "|---|---|---|---|---|---|---|---|---|"]
    nhold = ncount = 0
    comparison = []
    for system in SYSTEMS:
        s, e = agg.get(("sim", system)), agg.get(("emu", system))
        if not s and not e:
            continue
        for key, what in [("thr", "throughput ÷ F-Hybrid"), ("jct", "avg JCT ÷ F-Hybrid"), ("share", "OCS share")]:
            if system == "F-Hybrid" and key != "share":
                continue
            sv, ev = (s or {}).get(key, NAN), (e or {}).get(key, NAN)
            d = round(round(sv, 3) - round(ev, 3), 3) if fin(sv) and fin(ev) else NAN   # as shown
            h = DASH if not fin(d) else "yes" if abs(d) <= TOLERANCE else "no"
            nhold += h == "yes"
            ncount += h != DASH
            comparison.append([system, key, sv, ev, d, h, (s or {}).get("runs", 0), (e or {}).get("runs", 0)])
            L.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s / %s |" % (
                system, what, num(sv), num(ev), num(d, "%+.3f"), h, rng((s or {}).get(key + "_seed", [])),
                rng((e or {}).get(key + "_seed", [])), (s or {}).get("runs", 0), (e or {}).get("runs", 0)))
    L += ["", "%d of %d hold." % (nhold, ncount), ""]
    write_csv(os.path.join(out, "comparison.csv"),
              ["system", "measure", "sim", "emu", "diff", "holds", "runs_sim", "runs_emu"], comparison)

    # run by run
    twins = [(system, seed) for (be, system, seed) in sorted(done, key=order) if be == "sim"
             and ("emu", system, seed) in done]
    if twins:
        L += ["## Run by run", "",
              "| system | seed | makespan sim / emu (s) | emu ÷ sim | avg JCT sim / emu (s) | emu ÷ sim | "
              "OCS share sim / emu | emulator fidelity |",
              "|---|---|---|---|---|---|---|---|"]
        for system, seed in twins:
            s, e = done[("sim", system, seed)], done[("emu", system, seed)]
            L.append("| %s | %d | %s / %s | %s | %s / %s | %s | %s / %s | %s |" % (
                system, seed, num(s["makespan"], "%.1f"), num(e["makespan"], "%.1f"),
                num(div(e["makespan"], s["makespan"])), num(s["jct"], "%.2f"), num(e["jct"], "%.2f"),
                num(div(e["jct"], s["jct"])), num(s["share"]), num(e["share"]), e["fidelity"]))
        L.append("")

    left = [r for r in runs.values() if r["partial"]]
    if left:
        L += ["## Runs left out (partial)", "", "| run | stop reason |", "|---|---|"]
        L += ["| %s | %s |" % (r["run"], r["stop"].replace("|", "/") or DASH) for r in sorted(left, key=lambda r: r["run"])]
        L.append("")
    with open(os.path.join(out, "REPORT.md"), "w") as f:
        f.write("\n".join(L).rstrip("\n") + "\n")
    print("read %d runs (%d partial); wrote REPORT.md, crossval.csv, comparison.csv, runs.csv in %s" % (len(runs), len(left), out),
          file=sys.stderr)


if __name__ == "__main__":
    main()
