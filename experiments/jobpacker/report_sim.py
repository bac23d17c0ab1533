#!/usr/bin/env python3
"""The paper-scale simulation study of Chapter 4 (run.sh --backend sim): CSVs for
plots-sim.gp and REPORT-sim.md with our numbers beside the dissertation's.

    report.py --sim RESULTS OUT REPORT.md      (RESULTS = results/jobpacker-sim)

Runs are RESULTS/<scheduler>/<scenario>-<system>-s<seed>/ with summary.json and
jobs.csv; JobPacker's plans are RESULTS/plans/<run>.plan.  Every number is the
mean over the seeded repetitions of a per-run statistic (the paper reports means
of 20 runs); normalised values are per-seed ratios to F-Hybrid, then averaged.
A hand-written analysis, experiments/jobpacker/ANALYSIS-sim.md, is appended
if it exists."""
import csv, glob, json, math, os, re, sys

SYSTEMS = ["JobPacker", "F-Hybrid", "Corral", "F-EPS"]
E_BYTES = 1.125e9   # the elephant threshold at data scale 1
NAN = float("nan")


def pct(xs, q):
    """The q-th percentile (0..100) by linear interpolation; nan if empty."""
    if not xs:
        return NAN
    xs = sorted(xs)
    k = (len(xs) - 1) * q / 100.0
    f = math.floor(k)
    c = min(f + 1, len(xs) - 1)
    return xs[f] + (xs[c] - xs[f]) * (k - f)


def mean(xs):
    xs = [x for x in xs if x == x]
    return sum(xs) / len(xs) if xs else NAN


def rng(xs):
    xs = [x for x in xs if x == x]
    return (min(xs), max(xs)) if xs else (NAN, NAN)


# The paper's values the figures draw beside ours (notes/002 §5: derived from the percentages
# the text states; None where it gives none, as for F-EPS's "≈ JobPacker").
PAPER_FIG = {"batch": {"JobPacker": 0.65, "F-Hybrid": 1.0, "Corral": 0.85, "F-EPS": None},
             "share": {"JobPacker": 0.983, "F-Hybrid": 0.013, "Corral": 0.239, "F-EPS": None},
             "online": {"JobPacker": 0.57, "F-Hybrid": 1.0, "Corral": 0.79, "F-EPS": None},
             "recurring": {"JobPacker": 0.60, "F-Hybrid": 1.0, "Corral": 0.79, "F-EPS": None},
             "adhoc": {"JobPacker": 0.62, "F-Hybrid": 1.0, "Corral": 0.83, "F-EPS": None}}


def number_or_nan(v):
    """A CSV cell gnuplot reads as missing where there is no number."""
    return "NaN" if v is None else "%.4f" % v


def paper_cell(fig, sysn):
    return number_or_nan(PAPER_FIG[fig].get(sysn))


REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def shown(path):
    """A results path as the reports name it: from the repository's root when under it."""
    p = os.path.abspath(path)
    return os.path.relpath(p, REPO) if p.startswith(REPO + os.sep) else p


def f2(x, fmt="%.2f"):
    return "—" if x != x else fmt % x


def summaries(res):
    """Every run under res (RES/<scheduler>/<scenario>-<system>-s<seed>/) as (name, scenario,
    system, seed, summary, jobs rows or None for a partial run), in name order."""
    for path in sorted(glob.glob(os.path.join(res, "*", "*", "summary.json"))):
        d = os.path.dirname(path)
        name = os.path.basename(d)
        m = re.match(r"(.+)-(JobPacker|F-Hybrid|Corral|F-EPS)-s(\d+)$", name)
        if not m:
            continue
        with open(path) as f:
            s = json.load(f)
        jobs = None
        if not s.get("partial"):
            with open(os.path.join(d, "jobs.csv")) as f:
                jobs = list(csv.DictReader(f))
        yield name, m.group(1), m.group(2), int(m.group(3)), s, jobs


def load(res):
    runs = {}
    for name, sc, sysn, seed, s, jobs in summaries(res):
        if jobs is None:
            print("skipping %s: partial (%s)" % (name, s.get("stop_reason")), file=sys.stderr)
            continue
        runs.setdefault((sc, sysn), {})[seed] = {
            "name": name, "s": s, "jobs": jobs, "plan": os.path.join(res, "plans", name + ".plan")}
    return runs


def slowstarts(runs):
    """Each system's slowstart in its main runs (the sweeps vary JobPacker's), from (scenario,
    system, summary) triples: "JobPacker 0.7, F-Hybrid 0.7, ..."."""
    by = {}
    for sc, sysn, s in runs:
        if not sc.startswith("sens-"):
            by.setdefault(sysn, set()).add(str(s.get("parameters", {}).get("slowstart")))
    return ", ".join("%s %s" % (n, "/".join(sorted(by[n]))) for n in SYSTEMS if n in by)


def recorded(runs, key):
    """A parameter's values over the runs, as they recorded it: "hold", "5/1024"."""
    return "/".join(sorted({str(r["s"].get("parameters", {}).get(key)) for v in runs.values() for r in v.values()}))


def workload_kind(runs):
    """What the runs' jobs were: the synthetic workload's, or samples of a trace (run.sh --trace)."""
    synthetic = {str(r["s"].get("parameters", {}).get("workload", "")).startswith("synthetic")
                 for v in runs.values() for r in v.values()}
    if synthetic == {False}:
        return "jobs sampled from a SWIM trace (`--trace`)"
    return "synthetic SWIM-like jobs" if synthetic == {True} else "synthetic and trace-sampled jobs"


def jcts(jobs, pred=lambda r: True):
    return [float(r["jct_s"]) for r in jobs if r["finished"] == "1" and pred(r)]


def write_cdf(path, runs, pred=lambda j: True):
    """The CDF of the JCTs of the jobs `pred` picks, pooled over `runs`, as gnuplot reads it."""
    allj = sorted(j for r in runs for j in jcts(r["jobs"], pred))
    with open(path, "w") as f:
        for i, v in enumerate(allj):
            f.write("%.3f %.5f\n" % (v, (i + 1) / len(allj)))


def plan_stats(path):
    """JobPacker's plan log: planned makespan, jobs planned shuffle-heavy, on one map rack."""
    if not os.path.exists(path):
        return None
    n = sh = one = 0
    end = 0.0
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                if "seq" in line.lower() and n:
                    break
                continue
            p = line.split()
            if len(p) >= 10 and p[0].isdigit() and p[1].startswith("job"):
                n += 1
                sh += p[3] == "1"
                one += p[4] == "1"
                end = max(end, float(p[7]))
    return {"n": n, "sh": sh, "one": one, "end": end} if n else None


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: report.py --sim RESULTS OUT REPORT.md")
    res, out, report = argv
    os.makedirs(out, exist_ok=True)
    runs = load(res)
    L = []
    seeds_all = sorted({sd for v in runs.values() for sd in v})

    def per_seed(sc, sysn, fn):
        return {sd: fn(r) for sd, r in runs.get((sc, sysn), {}).items()}

    def norm_to(sc, sysn, fn, base="F-Hybrid"):
        a, b = per_seed(sc, sysn, fn), per_seed(sc, base, fn)
        return [a[sd] / b[sd] for sd in a if sd in b and b[sd]]

    def have(sc):
        return [s for s in SYSTEMS if (sc, s) in runs]

    mk = lambda r: r["s"]["makespan_s"]
    med = lambda r: pct(jcts(r["jobs"]), 50)
    p5 = lambda r: pct(jcts(r["jobs"]), 5)
    p95 = lambda r: pct(jcts(r["jobs"]), 95)
    share = lambda r: r["s"]["ocs_share"]
    rec = lambda r: pct(jcts(r["jobs"], lambda j: j["recurring"] == "1"), 50)
    adh = lambda r: pct(jcts(r["jobs"], lambda j: j["recurring"] == "0"), 50)
    nseeds = lambda sc, sysn: len(runs.get((sc, sysn), {}))
    shmed = lambda r: pct(jcts(r["jobs"], lambda j: float(j["shuffle_bytes"]) >= E_BYTES), 50)

    any_run = next(iter(next(iter(runs.values())).values()))["s"] if runs else {}
    par = any_run.get("parameters", {})
    L += ["# JobPacker at the dissertation's simulation scale (Figs. 4.9–4.12, 4.17, 4.18, 4.20–4.24)", "",
          "Generated by `experiments/jobpacker/report.py --sim` from the runs in `%s` "
          "(`experiments/jobpacker/run.sh --backend sim`)." % shown(res),
          "",
          "**Setup** (§4.3.1–4.3.2): flow-level simulator, `topologies/paper-20x30.conf` — 20 racks × 30 servers, "
          "20 containers and 10 Gb/s per server, 30 Gb/s EPS uplinks (10:1), one 100 Gb/s OCS port per rack; "
          "F-EPS on `paper-20x30-eps.conf` (100 Gb/s EPS uplinks, no OCS). "
          "%s %s per run (all recurring, or 50%% ad hoc in *mixed*), data scale 1, "
          "time scale %s (task durations and arrival times; run.sh's TS: calibrated so that F-EPS ÷ F-Hybrid "
          "is near the paper's, see run.sh), elephant threshold 1.125 GB, OCS interval 1 s, δ 10 ms, %s mode, "
          "%s copiers per reduce, slowstart %s, B = 5, ρ = 0 (1.0 in *mixed*), online "
          "arrivals uniform over 90 min × the time scale, bandwidth quantum %s s. Seeds %s (one per repetition; "
          "the paper averages 20 runs)."
          % (par.get("jobs", any_run.get("jobs", "?")), workload_kind(runs), par.get("time_scale", "?"),
             recorded(runs, "ocs_mode"), recorded(runs, "copiers"),
             slowstarts((sc, n, r["s"]) for (sc, n), v in runs.items() for r in v.values()),
             par.get("sim_quantum_s", "0.01"),
             ", ".join(map(str, seeds_all))),
          ""]

    # ---- batch: 4.9, 4.10
    brows = []
    for s in have("batch"):
        nm = norm_to("batch", s, mk)
        lo, hi = rng(nm)
        brows.append((s, mean(per_seed("batch", s, mk).values()), mean(nm), lo, hi,
                      mean(per_seed("batch", s, share).values()), nseeds("batch", s)))
    with open(os.path.join(out, "batch.csv"), "w") as f:
        f.write("system,makespan_s,makespan_norm,norm_min,norm_max,ocs_share,eps_share,reps,paper_norm,paper_share\n")
        for s, m, n, lo, hi, sh, k in brows:
            f.write("%s,%.1f,%.4f,%.4f,%.4f,%.4f,%.4f,%d,%s,%s\n" % (s, m, n, lo, hi, sh, 1 - sh if s != "F-EPS" else 1, k,
                                                                     paper_cell("batch", s), paper_cell("share", s)))

    # ---- online: 4.11, 4.12
    orows = []
    for s in have("online"):
        write_cdf(os.path.join(out, "cdf_online_%s.csv" % s), runs[("online", s)].values())
        nm = norm_to("online", s, med)
        orows.append((s, mean(per_seed("online", s, med).values()), mean(nm), rng(nm),
                      mean(per_seed("online", s, p5).values()), mean(per_seed("online", s, p95).values()),
                      mean(per_seed("online", s, lambda r: mean(jcts(r["jobs"]))).values()),
                      mean(per_seed("online", s, share).values()), nseeds("online", s)))
    with open(os.path.join(out, "online.csv"), "w") as f:
        f.write("system,median_jct_s,median_norm,p5_s,p95_s,mean_jct_s,ocs_share,eps_share,reps,norm_min,norm_max,"
                "paper_norm\n")
        for s, m, n, (lo, hi), a, b, mn, sh, k in orows:
            f.write("%s,%.3f,%.4f,%.3f,%.3f,%.3f,%.4f,%.4f,%d,%.4f,%.4f,%s\n" % (
                s, m, n, a, b, mn, sh, 1 - sh if s != "F-EPS" else 1, k, lo, hi, paper_cell("online", s)))

    # ---- mixed: 4.17
    mrows = []
    for s in have("mixed"):
        for kind, pred in (("rec", lambda j: j["recurring"] == "1"), ("adhoc", lambda j: j["recurring"] == "0")):
            write_cdf(os.path.join(out, "cdf_mixed-%s_%s.csv" % (kind, s)), runs[("mixed", s)].values(), pred)
        mrows.append((s, mean(per_seed("mixed", s, rec).values()), mean(per_seed("mixed", s, adh).values()),
                      mean(norm_to("mixed", s, rec)), mean(norm_to("mixed", s, adh)),
                      mean(per_seed("mixed", s, share).values()), nseeds("mixed", s),
                      rng(norm_to("mixed", s, rec)) + rng(norm_to("mixed", s, adh))))
    with open(os.path.join(out, "mixed.csv"), "w") as f:
        f.write("system,median_recurring_s,median_adhoc_s,norm_recurring,norm_adhoc,ocs_share,reps,"
                "rec_min,rec_max,adhoc_min,adhoc_max,paper_recurring,paper_adhoc\n")
        for s, a, b, na, nb, sh, k, r in mrows:
            f.write("%s,%.3f,%.3f,%.4f,%.4f,%.4f,%d,%.4f,%.4f,%.4f,%.4f,%s,%s\n" % (
                s, a, b, na, nb, sh, k, *r, paper_cell("recurring", s), paper_cell("adhoc", s)))

    # ---- the ad-hoc aggregation trial: 4.18 (JobPacker's mixed runs with and without it, same seeds)
    mixed_jp = runs.get(("mixed", "JobPacker"), {})
    agg = {sd: r for sd, r in runs.get(("adhocagg", "JobPacker"), {}).items() if sd in mixed_jp}
    arows = []   # (class, [median, mean, 90th pct] without, the same with, the per-seed ratios' means)
    stats = (lambda x: pct(x, 50), mean, lambda x: pct(x, 90))
    for kind, val in (("rec", "1"), ("adhoc", "0")) if agg else ():
        pred = lambda j, val=val: j["recurring"] == val
        for sc, rs in (("mixed", mixed_jp), ("adhocagg", agg)):
            write_cdf(os.path.join(out, "cdf_4.18-%s_%s.csv" % (kind, sc)), [rs[sd] for sd in agg], pred)
        pairs = [[(st(jcts(mixed_jp[sd]["jobs"], pred)), st(jcts(agg[sd]["jobs"], pred))) for sd in agg]
                 for st in stats]
        arows.append((kind, [mean([a for a, _ in p]) for p in pairs], [mean([b for _, b in p]) for p in pairs],
                      [mean([b / a for a, b in p if a]) for p in pairs]))

    # ---- sensitivity: 4.20-4.24
    base_of = {"shuffleerr": ("online", 0.0), "arrerr": ("online", 0.0), "slowstart": ("online", 0.7),
               "rho": ("mixed", 1.0), "interval": ("online", 1.0), "B": ("batch", 5.0)}
    sens = {}
    for (sc, s), rs in runs.items():
        m = re.match(r"sens-(shuffleerr|arrerr|slowstart|rho|interval|B)([0-9.]+)$", sc)
        if m and s == "JobPacker":
            sens.setdefault(m.group(1), {})[float(m.group(2))] = (sc, rs)
    for p, (sc, v) in base_of.items():
        if p in sens and (sc, "JobPacker") in runs:
            # The default point from the main scenario, on the sweep's seeds only.
            sds = {sd for _, rs in sens[p].values() for sd in rs}
            sens[p].setdefault(v, (sc, {sd: r for sd, r in runs[(sc, "JobPacker")].items() if sd in sds}))
    fh_online = per_seed("online", "F-Hybrid", med)
    co_online = per_seed("online", "Corral", med)
    fh_mixed = per_seed("mixed", "F-Hybrid", med)
    fh_batch = per_seed("batch", "F-Hybrid", mk)
    srows = {}
    for p, pts in sorted(sens.items()):
        rows = []
        for v in sorted(pts):
            sc, rs = pts[v]
            if not rs:
                continue
            if p == "B":
                nm = [mk(r) / fh_batch[sd] for sd, r in rs.items() if sd in fh_batch]
                rows.append((v, mean([mk(r) for r in rs.values()]), mean(nm), rng(nm), len(rs)))
            else:
                base = fh_mixed if p == "rho" else fh_online
                nm = [med(r) / base[sd] for sd, r in rs.items() if sd in base]
                nc = [med(r) / co_online[sd] for sd, r in rs.items() if sd in co_online] if p != "rho" else []
                rows.append((v, mean([med(r) for r in rs.values()]), mean([p5(r) for r in rs.values()]),
                             mean([p95(r) for r in rs.values()]), mean(nm), mean(nc), len(rs),
                             mean([shmed(r) for r in rs.values()]), mean([mean(jcts(r["jobs"])) for r in rs.values()])))
        srows[p] = rows
        with open(os.path.join(out, "sens_%s.csv" % p), "w") as f:
            if p == "B":
                f.write("B,makespan_s,makespan_norm,norm_min,norm_max,reps\n")
                for v, m, n, (lo, hi), k in rows:
                    f.write("%g,%.1f,%.4f,%.4f,%.4f,%d\n" % (v, m, n, lo, hi, k))
            else:
                f.write("%s,median_s,p5_s,p95_s,median_norm_fhybrid,median_norm_corral,reps,median_sh_s,mean_s\n" % p)
                for v, m, a, b, n, nc, k, sm, mj in rows:
                    f.write("%g,%.3f,%.3f,%.3f,%.4f,%.4f,%d,%.3f,%.3f\n" % (v * 100 if p in ("shuffleerr", "arrerr", "slowstart") else v,
                                                                   m, a, b, n, nc, k, sm, mj))
    # Baselines' online percentiles, for the reference lines of Figs. 4.20-4.23.
    with open(os.path.join(out, "sens_baselines.csv"), "w") as f:
        f.write("system,median_s,p5_s,p95_s\n")
        for s in have("online"):
            f.write("%s,%.3f,%.3f,%.3f\n" % (s, mean(per_seed("online", s, med).values()),
                                            mean(per_seed("online", s, p5).values()),
                                            mean(per_seed("online", s, p95).values())))

    # The baselines' online medians as gnuplot variables (reference lines of Figs. 4.20-4.23).
    with open(os.path.join(out, "baselines.gp"), "w") as f:
        for s, var in (("F-Hybrid", "FH"), ("Corral", "CO"), ("F-EPS", "FE")):
            v = mean(per_seed("online", s, med).values())
            f.write("%s_MED = %s\n" % (var, "NaN" if v != v else "%.3f" % v))
            v = mean(per_seed("mixed", s, med).values())
            f.write("%s_MIXMED = %s\n" % (var, "NaN" if v != v else "%.3f" % v))

    # ---- summary table
    def row(fig, what, ours, paper):
        L.append("| %s | %s | %s | %s |" % (fig, what, ours, paper))

    bn = {r[0]: r for r in brows}
    on = {r[0]: r for r in orows}
    mn = {r[0]: r for r in mrows}
    L += ["## Our numbers beside the paper's", "",
          "Normalised = JobPacker (or the named system) ÷ F-Hybrid, per seed, averaged; the paper's "
          "normalised values are derived from the percentages it states (notes/002 §5).", "",
          "| Fig. | metric | ours | paper |", "|---|---|---|---|"]
    def g(d, s, i, fmt="%.2f"):
        return f2(d[s][i], fmt) if s in d else "—"
    row("4.9", "batch makespan ÷ F-Hybrid: JobPacker / Corral / F-EPS",
        "%s / %s / %s" % (g(bn, "JobPacker", 2), g(bn, "Corral", 2), g(bn, "F-EPS", 2)),
        "0.65 / ≈0.85 / ≈0.62–0.68 (within 5% of JobPacker)")
    if "JobPacker" in bn and "Corral" in bn:
        row("4.9", "JobPacker ÷ Corral (batch makespan)", f2(bn["JobPacker"][1] / bn["Corral"][1]), "0.765 (−23.5%)")
    row("4.10", "batch OCS share: JobPacker / F-Hybrid / Corral",
        "%s / %s / %s" % tuple(g(bn, s, 5, "%.1f%%") if s not in bn else "%.1f%%" % (100 * bn[s][5])
                               for s in ("JobPacker", "F-Hybrid", "Corral")), "98.3% / 1.3% / 23.9%")
    row("4.11", "online median JCT ÷ F-Hybrid: JobPacker / Corral / F-EPS",
        "%s / %s / %s" % (g(on, "JobPacker", 2), g(on, "Corral", 2), g(on, "F-EPS", 2)),
        "0.57 / ≈0.79 / ≈ JobPacker")
    row("4.11", "online median JCT (s): JobPacker / F-Hybrid / Corral / F-EPS",
        " / ".join(g(on, s, 1, "%.1f") for s in SYSTEMS), "not stated")
    row("4.11", "online mean JCT ÷ F-Hybrid: JobPacker / Corral / F-EPS",
        " / ".join(f2(mean(norm_to("online", s, lambda r: mean(jcts(r["jobs"]))))) for s in ("JobPacker", "Corral", "F-EPS")),
        "not stated")
    row("4.11", "(extra) online median JCT of the shuffle-heavy jobs (shuffle ≥ E) ÷ F-Hybrid: JobPacker / Corral / F-EPS",
        " / ".join(f2(mean(norm_to("online", s, shmed))) for s in ("JobPacker", "Corral", "F-EPS")), "not stated")
    row("4.12", "online OCS share: JobPacker / F-Hybrid / Corral",
        " / ".join("%.1f%%" % (100 * on[s][7]) if s in on else "—" for s in ("JobPacker", "F-Hybrid", "Corral")),
        "JobPacker \"much higher\" (no numbers)")
    row("4.17", "mixed median JCT ÷ F-Hybrid, recurring / ad hoc: JobPacker",
        "%s / %s" % (g(mn, "JobPacker", 3), g(mn, "JobPacker", 4)), "0.60 / 0.62")
    row("4.17", "same, Corral", "%s / %s" % (g(mn, "Corral", 3), g(mn, "Corral", 4)), "≈0.79 / ≈0.83")
    row("4.17", "same, F-EPS", "%s / %s" % (g(mn, "F-EPS", 3), g(mn, "F-EPS", 4)), "≈ JobPacker")
    if arows:
        a = {x[0]: x for x in arows}
        row("4.18", "with ÷ without ad-hoc jobs on a few racks (JobPacker, mixed): median JCT recurring / ad hoc",
            "%s / %s" % (f2(a["rec"][3][0], "%.3f"), f2(a["adhoc"][3][0], "%.3f")), "both > 1 (\"degraded\", no numbers)")
        row("4.18", "same, mean JCT recurring / ad hoc",
            "%s / %s" % (f2(a["rec"][3][1], "%.3f"), f2(a["adhoc"][3][1], "%.3f")), "not stated")
    else:
        row("4.18", "ad-hoc jobs on a few racks (JobPacker, mixed)", "not run (run.sh's adhocagg runs)",
            "both classes degrade")

    def sens_at(p, v, col):
        for r in srows.get(p, []):
            if abs(r[0] - v) < 1e-9:
                return r[col]
        return NAN
    row("4.20a", "median JCT at 50% shuffle-size error ÷ F-Hybrid / ÷ Corral",
        "%s / %s" % (f2(sens_at("shuffleerr", 0.5, 4)), f2(sens_at("shuffleerr", 0.5, 5))), "0.67 / 0.75")
    row("4.20b", "median JCT with 50% of arrivals ±200 s off ÷ F-Hybrid / ÷ Corral",
        "%s / %s" % (f2(sens_at("arrerr", 0.5, 4)), f2(sens_at("arrerr", 0.5, 5))), "0.77 / 0.78")
    if srows.get("slowstart"):
        ss = {r[0]: r[1] for r in srows["slowstart"]}
        row("4.21", "median JCT (s) at slowstart 20 / 40 / 50 / 70 / 80%",
            " / ".join(f2(ss.get(v, NAN), "%.1f") for v in (0.2, 0.4, 0.5, 0.7, 0.8)),
            "flat over 50–80%, slightly higher at ≤ 40%")
    if srows.get("rho"):
        rr = {r[0]: r[1] for r in srows["rho"]}
        row("4.22", "median JCT (s), mixed, at ρ = 0 / 0.5 / 1 / 1.5 / 2",
            " / ".join(f2(rr.get(v, NAN), "%.1f") for v in (0, 0.5, 1, 1.5, 2)),
            "much worse at low ρ, flat at larger ρ")
    if srows.get("interval"):
        iv = {r[0]: r[1] for r in srows["interval"]}
        row("4.23", "median JCT (s) at interval 0.1 / 0.5 / 1 / 2 / 3 s",
            " / ".join(f2(iv.get(v, NAN), "%.1f") for v in (0.1, 0.5, 1, 2, 3)), "minimal impact")
        row("4.23", "median JCT at 3 s ÷ F-Hybrid (1 s)", f2(sens_at("interval", 3, 4)), "0.62 (−38%)")
    if srows.get("B"):
        bb = {r[0]: r[2] for r in srows["B"]}
        row("4.24", "batch makespan ÷ F-Hybrid at B = 1 / 2 / 3 / 5 / 10 / 20",
            " / ".join(f2(bb.get(v, NAN)) for v in (1, 2, 3, 5, 10, 20)),
            "falls from B = 1 to 5, about flat for B ≥ 5")
    L.append("")

    # ---- details
    L += ["## Batch (Figs. 4.9, 4.10)", "",
          "| system | makespan (s) | ÷ F-Hybrid (range over seeds) | OCS share | runs |", "|---|---|---|---|---|"]
    for s, m, n, lo, hi, sh, k in brows:
        L.append("| %s | %.0f | %s (%s–%s) | %s | %d |" % (s, m, f2(n, "%.3f"), f2(lo), f2(hi),
                 "—" if s == "F-EPS" else "%.1f%%" % (100 * sh), k))
    L += ["", "## Online, arrivals uniform over 90 min (Figs. 4.11, 4.12)", "",
          "| system | median JCT (s) | ÷ F-Hybrid (range) | 5th / 95th pct (s) | mean JCT (s) | OCS share | runs |",
          "|---|---|---|---|---|---|---|"]
    for s, m, n, (lo, hi), a, b, mnj, sh, k in orows:
        L.append("| %s | %.1f | %s (%s–%s) | %.1f / %.0f | %.1f | %s | %d |" % (
            s, m, f2(n, "%.3f"), f2(lo), f2(hi), a, b, mnj, "—" if s == "F-EPS" else "%.1f%%" % (100 * sh), k))
    L += ["", "## Mixed: 50% ad hoc, online, ρ = 1.0 (Fig. 4.17)", "",
          "| system | median JCT recurring / ad hoc (s) | ÷ F-Hybrid | OCS share | runs |", "|---|---|---|---|---|"]
    for s, a, b, na, nb, sh, k, _ in mrows:
        L.append("| %s | %.1f / %.1f | %.3f / %.3f | %s | %d |" % (s, a, b, na, nb,
                 "—" if s == "F-EPS" else "%.1f%%" % (100 * sh), k))
    if arows:
        L += ["", "## Ad-hoc jobs on a few racks: the trial §4.2.4 dropped (Fig. 4.18)", "",
              "JobPacker's mixed runs again with `JOBPACKER_ADHOC_AGG=1` (`emu/sched/jobpacker_adhoc.c`): an "
              "ad-hoc job gets ⌈maps × r_map⌉ racks for its input and maps and ⌈reduces × r_red⌉ for its "
              "reduces, r the mean best width ÷ tasks of the planned shuffle-heavy jobs, the racks with the "
              "most free containers when its first map (reduce) may start (L1023–L1027).  The paper: recurring "
              "and ad-hoc jobs both get slower.  Per-seed values averaged over %d seed(s); the ratio is per "
              "seed, then averaged." % len(agg), "",
              "| jobs | median JCT without / with (s) | ÷ | mean JCT without / with (s) | ÷ | 90th pct without / with (s) | ÷ |",
              "|---|---|---|---|---|---|---|"]
        for kind, wo, wi, rt in arows:
            L.append("| %s | %.2f / %.2f | %.3f | %.2f / %.2f | %.3f | %.1f / %.1f | %.3f |" % (
                "recurring" if kind == "rec" else "ad hoc", wo[0], wi[0], rt[0], wo[1], wi[1], rt[1], wo[2], wi[2], rt[2]))
        L.append("")

    titles = {"shuffleerr": ("Shuffle-size prediction error (Fig. 4.20a), online", "error"),
              "arrerr": ("Arrival-time error ±200 s on a fraction of jobs (Fig. 4.20b), online", "fraction"),
              "slowstart": ("Slowstart (Fig. 4.21), online", "slowstart"),
              "rho": ("Over-provisioning ratio ρ (Fig. 4.22), mixed", "ρ"),
              "interval": ("OCS reconfiguration interval (Fig. 4.23), online", "interval (s)")}
    L += ["## Sensitivity (Figs. 4.20–4.24), JobPacker only", "",
          "Median, 5th and 95th percentile JCT per run, averaged over seeds (the default point, from the main "
          "scenario, on the sweep's seeds only); ÷ F-Hybrid and ÷ Corral divide "
          "the median by the baselines' online median (mixed for ρ), which use no predictions and are not "
          "rerun (as in the paper). Baselines' online median / 5th / 95th (s): " +
          "; ".join("%s %.1f / %.1f / %.0f" % (s, on[s][1], on[s][4], on[s][5]) for s in SYSTEMS if s in on) + ".", ""]
    for p in ("shuffleerr", "arrerr", "slowstart", "rho", "interval"):
        if p not in srows:
            continue
        t, col = titles[p]
        L += ["### " + t, "", "| %s | median (s) | 5th / 95th (s) | median ÷ F-Hybrid | ÷ Corral | median of SH jobs (s) | mean (s) | runs |" % col,
              "|---|---|---|---|---|---|---|---|"]
        for v, m, a, b, n, nc, k, sm, mj in srows[p]:
            L.append("| %g | %.1f | %.1f / %.0f | %s | %s | %.1f | %.1f | %d |" % (v, m, a, b, f2(n, "%.3f"), f2(nc, "%.3f"), sm, mj, k))
        L.append("")
    if "B" in srows:
        L += ["### Number of sub-batches B (Fig. 4.24), batch", "",
              "| B | makespan (s) | ÷ F-Hybrid (range) | runs |", "|---|---|---|---|"]
        for v, m, n, (lo, hi), k in srows["B"]:
            L.append("| %g | %.0f | %s (%s–%s) | %d |" % (v, m, f2(n, "%.3f"), f2(lo), f2(hi), k))
        L.append("")

    # ---- diagnostics from per-job results and plans
    classes = [("1–10 maps", 1, 10), ("11–100", 11, 100), ("101–1000", 101, 1000), (">1000", 1001, 10 ** 9)]
    L += ["## Diagnostics", "",
          "Per-job results pooled over seeds. *Wait* = first task start − submit; *run* = end − first "
          "start. *SH* = jobs whose shuffle ≥ E = 1.125 GB (the circuit-eligible ones).", ""]
    for sc in ("batch", "online"):
        if not have(sc):
            continue
        L += ["### %s: median JCT (s) by job size, and where the time goes" % sc, "",
              "| system | " + " | ".join("%s" % c[0] for c in classes) + " | SH jobs | mean wait / run (s) | node-local maps | cross-rack TB |",
              "|---|" + "---|" * (len(classes) + 4)]
        for s in have(sc):
            rs = list(runs[(sc, s)].values())
            jobs = [j for r in rs for j in r["jobs"] if j["finished"] == "1"]
            cells = []
            for _, lo, hi in classes:
                xs = [float(j["jct_s"]) for j in jobs if lo <= int(j["maps"]) <= hi]
                cells.append("%s (%d)" % (f2(pct(xs, 50), "%.1f"), len(xs) // max(1, len(rs))))
            shj = [float(j["jct_s"]) for j in jobs if float(j["shuffle_bytes"]) >= E_BYTES]
            cells.append("%s (%d)" % (f2(pct(shj, 50), "%.1f"), len(shj) // max(1, len(rs))))
            wait = mean([float(j["start_s"]) - float(j["submit_s"]) for j in jobs])
            run = mean([float(j["end_s"]) - float(j["start_s"]) for j in jobs])
            loc = mean([r["s"].get("locality", {}).get("node_local", NAN) for r in rs])
            xr = mean([r["s"]["cross_rack_bytes"] / 1e12 for r in rs])
            L.append("| %s | %s | %.1f / %.1f | %s | %.1f |" % (s, " | ".join(cells), wait, run, f2(loc, "%.2f"), xr))
        L += ["", "(In parentheses: jobs per run in the class.)", ""]
    # What sets the batch makespan: the job that ends last, split into its phases.
    if have("batch"):
        L += ["### batch: the job that ends last", "",
              "*Shuffle end* = its last reduce's end minus that reduce's compute time (its last fetch). "
              "*OCS use* = bytes on circuits ÷ (run time × racks × port rate); *circuits* = mean circuits "
              "per OCS configuration (20 at most).", "",
              "| system | seed | job (maps, shuffle) | map racks / reduce racks | reduces start | shuffle end | reduce compute | end | OCS use | circuits |",
              "|---|---|---|---|---|---|---|---|---|---|"]
        for s in have("batch"):
            for sd, r in sorted(runs[("batch", s)].items()):
                rd = os.path.join(res, r["s"]["scheduler"], r["name"])
                last = max(r["jobs"], key=lambda j: float(j["end_s"]))
                jid = last["job"]
                mr, rr, r0, fe, comp = set(), set(), 1e18, 0.0, 0.0
                try:
                    with open(os.path.join(rd, "tasks.csv")) as f:
                        for t in csv.DictReader(f):
                            if t["job"] != jid:
                                continue
                            if t["kind"] == "map":
                                mr.add(t["rack"])
                            else:
                                rr.add(t["rack"])
                                r0 = min(r0, float(t["start_s"]))
                                e, du = float(t["end_s"]), float(t["duration_s"])
                                if e - du > fe:
                                    fe, comp = e - du, du
                except OSError:
                    continue
                par_r = r["s"].get("parameters", {})
                ports = par_r.get("ocs_rate_bps", 0) / 8 * 20
                use = r["s"]["ocs_bytes"] / (r["s"]["run_s"] * ports) if ports and s != "F-EPS" else NAN
                nconf = ncirc = 0
                try:
                    with open(os.path.join(rd, "ocs.csv")) as f:
                        for o in csv.DictReader(f):
                            nconf += 1
                            ncirc += len(o["config"].split())
                except OSError:
                    pass
                L.append("| %s | %d | job%s (%s, %.0f GB) | %d / %d | %.0f | %.0f | %.0f | %.0f | %s | %s |" % (
                    s, sd, jid, last["maps"], float(last["shuffle_bytes"]) / 1e9, len(mr), len(rr),
                    r0 if r0 < 1e18 else NAN, fe, comp, float(last["end_s"]), f2(100 * use, "%.1f%%"),
                    f2(ncirc / nconf if nconf else NAN, "%.1f")))
        L.append("")
    pl = [(sd, plan_stats(r["plan"]), r) for sd, r in runs.get(("batch", "JobPacker"), {}).items()]
    pl = [(sd, p, r) for sd, p, r in pl if p]
    if pl:
        L += ["### JobPacker's batch plan against the run", "",
              "| seed | planned jobs | planned shuffle-heavy | map width 1 | planned makespan (s) | actual (s) |",
              "|---|---|---|---|---|---|"]
        for sd, p, r in sorted(pl, key=lambda x: x[0]):
            L.append("| %d | %d | %d | %d | %.0f | %.0f |" % (sd, p["n"], p["sh"], p["one"], p["end"], mk(r)))
        L.append("")

    # ---- provenance: which binary ran each run (run.sh writes plans/<run>.bin)
    prov = {}
    for v in runs.values():
        for r in v.values():
            b = r["plan"][:-len(".plan")] + ".bin"
            lab = open(b).read().strip() if os.path.exists(b) else "unknown"
            lab = re.sub(r", started \S+", "", lab)
            prov.setdefault(lab, []).append(r["name"])
    if prov:
        L += ["## Provenance: the binary behind each run", "",
              "| binary | runs |", "|---|---|"]
        for lab, names in sorted(prov.items()):
            L.append("| %s | %d: %s |" % (lab, len(names), ", ".join(sorted(names))))
        L.append("")

    ana = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ANALYSIS-sim.md")
    if os.path.exists(ana):
        with open(ana) as f:
            L += [f.read().rstrip(), ""]
    with open(report, "w") as f:
        f.write("\n".join(L) + "\n")
    print("\n".join(L[:60]))


if __name__ == "__main__":
    main(sys.argv[1:])
