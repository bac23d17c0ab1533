#!/usr/bin/env python3
"""Collect the Chapter 3 / Table 6.1-6.2 runs written by experiments/nas/run.sh into CSVs,
plots and OUT_DIR/REPORT.md: our numbers beside the dissertation's, as tables only.

    report.py RESULTS_ROOT OUT_DIR [PREFIX] [--no-plots]

Runs are RESULTS_ROOT/<PREFIX>-<experiment>/<scheduler>/<backend>-s<seed>[-<tag>]/
(PREFIX nas by default; run.sh uses nasquick, nastrace for --quick, --trace), experiments:
  cloudlab  the 40-node CloudLab setup (8 x 5, 16 containers, 5:1), Poisson arrivals,
            on both backends with the same parameters
  full      the same on the simulator with time, data and rates unscaled
  sim600    the 600-server simulation (30 x 20, 6 containers, 250 Mb/s, 1 Gb/s)
  tsweep    NAS's T_min / T_max sweep (tag tmin<a>-tmax<b>), simulator
The plots are drawn by plots.gp (gnuplot) in OUT_DIR unless --no-plots.
A value that cannot be computed is written "–" (CSVs too).
Python 3 standard library only."""
import csv, glob, json, math, os, re, shutil, subprocess, sys
from collections import Counter, defaultdict

ARGS = [a for a in sys.argv[1:] if not a.startswith("--")]
if len(ARGS) < 2:
    sys.exit(__doc__)
RES, OUT = ARGS[0], ARGS[1]
PFX = ARGS[2] if len(ARGS) > 2 else "nas"
PLOTS = "--no-plots" not in sys.argv[1:]
REPORT = os.path.join(OUT, "REPORT.md")
HERE = os.path.dirname(os.path.abspath(__file__))
os.makedirs(OUT, exist_ok=True)

DASH = "–"
MAIN = ["fair", "delay", "sw-delay", "nas"]
ABL = ["nas-mts", "nas-mtsca", "nas-nott", "nas-noadapt", "nas-woboth"]
BASES = ["fair", "delay", "sw-delay"]
LABEL = {"fair": "Fair", "delay": "Delay", "sw-delay": "SW-delay", "nas": "NAS",
         "nas-mts": "MTS only", "nas-mtsca": "MTS+CA-RTS", "nas-nott": "w/o TT", "nas-noadapt": "w/o MCT",
         "nas-woboth": "w/o both"}
# variants run as a scheduler plus knobs (run.sh): (scheduler, tag) -> name
VARIANT = {("nas", "mtsca"): "nas-mtsca", ("nas-nott", "woboth"): "nas-woboth"}
MiB = 1024.0 * 1024
CLASSES = ["light", "medium", "heavy"]
CONTAINERS = {"cloudlab-8x5-16c": 16, "cloudlab-8x5": 4, "nas-30x20": 6, "paper-20x30": 20,
              "paper-20x30-eps": 20}

# The dissertation's numbers.  Fig. 3.3 (real cluster) and Fig. 3.8 (600-server simulation)
# give NAS's gain over each baseline; Tables 6.1/6.2 give NAS / baseline on the real cluster
# and on its simulation.  Normalised to Fair, baseline X = NAS / (NAS / X).
P_T61 = {"sim": {"fair": 1.58, "delay": 1.39, "sw-delay": 1.27},
         "emu": {"fair": 1.63, "delay": 1.47, "sw-delay": 1.30}}
P_T62 = {"sim": {"fair": 0.62, "delay": 0.69, "sw-delay": 0.71},
         "emu": {"fair": 0.57, "delay": 0.64, "sw-delay": 0.68}}
P_NAS_OVER = {  # setup -> (metric -> {baseline: NAS / baseline})
    "real": {"thr": {"fair": 1.625, "delay": 1.470, "sw-delay": 1.302},
             "jct": {"fair": 0.554, "delay": 0.639, "sw-delay": 0.677}},
    "vsim": {"thr": P_T61["sim"], "jct": P_T62["sim"]},
    "sim600": {"thr": {"fair": 1.569, "delay": 1.412, "sw-delay": 1.280},
               "jct": {"fair": 0.557, "delay": 0.620, "sw-delay": 0.695}}}
P_F313 = {"nas-nott": 1.22, "nas-noadapt": 1.07, "nas-woboth": 1.31, "nas": 1.0}
VALIDATION_TOLERANCE = 0.08   # the largest |simulation - real cluster| of Tables 6.1/6.2


def paper_norm(setup, metric):
    """The paper's throughput or avg JCT of each main scheduler, normalised to Fair."""
    p = P_NAS_OVER[setup][metric]
    return {"fair": 1.0, "nas": p["fair"], "delay": p["fair"] / p["delay"], "sw-delay": p["fair"] / p["sw-delay"]}


NAN = float("nan")


def fin(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def mean(xs):
    xs = [x for x in xs if fin(x)]
    return sum(xs) / len(xs) if xs else NAN


def div(a, b):
    return a / b if fin(a) and fin(b) and b != 0 else NAN


def num(x, fmt="%.3f"):
    return fmt % x if fin(x) else DASH


def yesno(h):
    return DASH if h is None else "yes" if h else "no"


def rng(xs, fmt="%.2f"):
    xs = [x for x in xs if fin(x)]
    return (fmt + "–" + fmt) % (min(xs), max(xs)) if len(xs) > 1 else DASH


# ------------------------------------------------------------------ one run

def read_csv(path):
    try:
        with open(path) as f:
            return list(csv.DictReader(f))
    except OSError:
        return []


def fnum(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return NAN


def job_class(shuffle_full):
    return "light" if shuffle_full < MiB else "heavy" if shuffle_full > 100 * MiB else "medium"


def node_congestion(jobs, tasks, servers, containers, period):
    """Fig. 3.11: share of (server, sample) pairs whose running maps' output (the
    job's shuffle / maps each) exceeds TrafficThreshold = containers x the mean
    shuffle per map of the jobs in the cluster (Eq. 3.3 with the actual sizes)."""
    per_map = {}
    ev = []          # (time, kind, ...) kind 0 = job in/out, 1 = map in/out
    for j in jobs:
        if j["finished"] != "1":
            continue
        jid, k, S = j["job"], int(j["maps"]), float(j["shuffle_bytes"])
        per_map[jid] = S / k if k else 0.0
        ev.append((float(j["submit_s"]), 0, S, k))
        ev.append((float(j["end_s"]), 0, -S, -k))
    for t in tasks:
        if t["kind"] != "map" or t["state"] != "done":
            continue
        out = per_map.get(t["job"], 0.0)
        if out <= 0:
            continue
        ev.append((float(t["start_s"]), 1, int(t["server"]), out))
        ev.append((float(t["end_s"]), 1, int(t["server"]), -out))
    if not ev or servers <= 0:
        return NAN
    ev.sort(key=lambda e: (e[0], -1 if (e[3] if e[1] else e[2]) < 0 else 1))
    end = max(e[0] for e in ev)
    step = max(period if period > 0 else 1.0, end / 4000.0)
    node = [0.0] * servers
    sumS = sumK = 0.0
    over = total = 0
    i, t = 0, step
    while t <= end:
        while i < len(ev) and ev[i][0] <= t:
            e = ev[i]
            if e[1] == 0:
                sumS += e[2]
                sumK += e[3]
            elif e[2] < servers:
                node[e[2]] += e[3]
            i += 1
        if sumK > 0 and sumS > 0:
            thr = containers * sumS / sumK
            over += sum(1 for v in node if v > thr * (1 + 1e-9))
            total += servers
        t += step
    return div(over, total)


def analyse(d):
    try:
        with open(os.path.join(d, "summary.json")) as f:
            s = json.load(f)
    except (OSError, ValueError):
        return None
    p = s.get("parameters", {})
    ds = p.get("data_scale") or 1.0
    ab = s.get("agent_bytes", {})
    r = {"dir": d, "params": p, "partial": bool(s.get("partial")), "stop": s.get("stop_reason", ""),
         "fidelity": s.get("fidelity", {}).get("verdict", DASH),
         "makespan": fnum(s.get("makespan_s")), "thr": fnum(s.get("throughput_jobs_per_s")),
         "jct": fnum(s.get("jct_mean_s")), "jct_med": fnum(s.get("jct_median_s")),
         "xrack_raw": fnum(s.get("cross_rack_bytes")), "ds": ds,
         "cong": fnum(s.get("congestion", {}).get("rack_samples")),
         "wall": fnum(s.get("wall_s")), "monitor": fnum(p.get("monitor_s", 1.0)),
         "node_local": fnum(s.get("locality", {}).get("node_local"))}
    r["xrack"] = div(r["xrack_raw"], ds)                       # full-scale bytes
    # agent_bytes: shuffle_network (incl. cross-rack) + shuffle_local is the whole shuffle
    shuf = fnum(ab.get("shuffle_network")) + fnum(ab.get("shuffle_local"))
    r["shuffle"] = div(shuf, ds)
    r["xr_shuffle"] = div(fnum(ab.get("shuffle_cross_rack")), ds)
    r["xr_input"] = div(fnum(ab.get("input_cross_rack")), ds)
    r["shuf_inrack"] = div(r["shuffle"] - r["xr_shuffle"], r["shuffle"])
    jobs = read_csv(os.path.join(d, "jobs.csv"))
    tasks = read_csv(os.path.join(d, "tasks.csv"))
    # per class: throughput (#jobs / their span), mean JCT, count
    by = defaultdict(list)
    for j in jobs:
        if j["finished"] == "1":
            by[job_class(div(fnum(j["shuffle_bytes"]), ds))].append(j)
    for c in CLASSES:
        js = by.get(c, [])
        r["n_" + c] = len(js)
        if js:
            span = max(float(j["end_s"]) for j in js) - min(float(j["submit_s"]) for j in js)
            r["thr_" + c] = div(len(js), span)
            r["jct_" + c] = mean([fnum(j["jct_s"]) for j in js])
        else:
            r["thr_" + c] = r["jct_" + c] = NAN
    # MapProgressRate when the job's first reduce is scheduled (Fig. 3.10)
    maps_end = defaultdict(list)
    first_red = {}
    busy = 0.0
    for t in tasks:
        if t["state"] != "done":
            continue
        st, en = float(t["start_s"]), float(t["end_s"])
        busy += max(0.0, en - st)
        if t["kind"] == "map":
            maps_end[t["job"]].append(en)
        elif t["kind"] == "reduce":
            first_red[t["job"]] = min(first_red.get(t["job"], st), st)
    mpr_all, mpr_big = [], []
    for j in jobs:
        jid, k = j["job"], int(j["maps"])
        if jid not in first_red or not maps_end.get(jid) or k <= 0:
            continue
        v = sum(1 for e in maps_end[jid] if e <= first_red[jid] + 1e-6) / k
        mpr_all.append(v)
        if k >= 10:
            mpr_big.append(v)
    r["mpr"] = mean(mpr_all)
    r["mpr_big"] = mean(mpr_big)
    servers = 1 + max((int(t["server"]) for t in tasks if t["server"] not in ("", "-1")), default=-1)
    cont = CONTAINERS.get(p.get("topology", ""), 0)
    r["util"] = div(busy, servers * cont * r["makespan"])
    r["node_cong"] = node_congestion(jobs, tasks, servers, cont, r["monitor"]) if cont and tasks else NAN
    return r


# ------------------------------------------------------------------ collect

runs = defaultdict(dict)   # (exp, backend, sched) -> {(seed, tag): metrics}, complete runs only
every = []                 # every run found, partial ones too: (run path, exp, backend, sched, seed, tag, r)
for sj in sorted(glob.glob(os.path.join(RES, PFX + "-*", "*", "*", "summary.json"))):
    d = os.path.dirname(sj)
    expdir, sched, name = d.split(os.sep)[-3:]
    exp = expdir[len(PFX) + 1:]
    m = re.match(r"(emu|sim)-s(\d+)(?:-(.+))?$", name)
    if not m:
        continue
    r = analyse(d)
    if r is None:
        continue
    seed, tag = int(m.group(2)), m.group(3) or ""
    if (sched, tag) in VARIANT:
        sched, tag = VARIANT[(sched, tag)], ""
    every.append(("%s/%s/%s" % (expdir, os.path.basename(os.path.dirname(d)), name), exp, m.group(1), sched,
                  seed, tag, r))
    if not r["partial"]:
        runs[(exp, m.group(1), sched)][(seed, tag)] = r


def seeds_of(exp, be, sched, tag=""):
    return set(k[0] for k in runs.get((exp, be, sched), {}) if k[1] == tag)


def common(exp, be, scheds):
    """Seeds every scheduler of scheds that ran at all ran (same workloads: comparable means)."""
    sets = [x for x in (seeds_of(exp, be, s) for s in scheds) if x]
    return sorted(set.intersection(*sets)) if sets else []


def agg(exp, be, sched, seeds, key):
    rs = runs.get((exp, be, sched), {})
    return mean([rs[(s, "")][key] for s in seeds if (s, "") in rs])


def table(exp, be, seeds):
    """Per scheduler: means over seeds, normalised to Fair (ratio of means), per-seed ratios."""
    out = {}
    for s in MAIN + ABL:
        rs = runs.get((exp, be, s), {})
        ss = [x for x in seeds if (x, "") in rs]
        if not ss:
            continue
        row = {k: mean([rs[(x, "")][k] for x in ss]) for k in
               ["thr", "jct", "jct_med", "makespan", "xrack", "xr_shuffle", "xr_input", "shuf_inrack", "cong",
                "mpr", "mpr_big", "util", "node_cong", "node_local", "wall"] +
               ["%s_%s" % (k, c) for k in ("thr", "jct", "n") for c in CLASSES]}
        row["n"] = len(ss)
        row["fid"] = Counter(rs[(x, "")]["fidelity"] for x in ss)
        fr = runs.get((exp, be, "fair"), {})
        for k in ["thr", "jct", "xrack", "cong", "makespan"] + ["%s_%s" % (k, c) for k in ("thr", "jct")
                                                                for c in CLASSES]:
            row[k + "_n"] = div(row[k], agg(exp, be, "fair", ss, k))
        row["thr_seed"] = [div(rs[(x, "")]["thr"], fr[(x, "")]["thr"]) for x in ss if (x, "") in fr]
        row["jct_seed"] = [div(rs[(x, "")]["jct"], fr[(x, "")]["jct"]) for x in ss if (x, "") in fr]
        out[s] = row
    return out


def fid_str(c):
    return "; ".join("%s %d" % (v, n) for v, n in sorted(c.items())) if c else DASH


WRITTEN = []


def write_csv(name, header, rows, fmt="%.6g"):
    WRITTEN.append(name)
    with open(os.path.join(OUT, name), "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        for r in rows:
            w.writerow([(fmt % x if fin(x) else DASH) if isinstance(x, float) else
                        yesno(x) if isinstance(x, bool) or (x is None) else x for x in r])


CSVS = ["runs.csv", "claims.csv", "setup.csv", "cloudlab_emu.csv", "cloudlab_sim.csv", "full_sim.csv",
        "sim600.csv", "validation.csv", "tsweep.csv", "fig3.3.csv", "fig3.8.csv", "fig3.13.csv"]
PNGS = {"fig3.3.csv": ["fig3.3_cloudlab.png"],
        "cloudlab_emu.csv": ["fig3.4_3.5_cloudlab_emu.png", "fig3.6_classes_emu.png"],
        "cloudlab_sim.csv": ["fig3.4_3.5_cloudlab_sim.png", "fig3.6_classes_sim.png"],
        "validation.csv": ["table6.1_6.2_validation.png"], "tsweep.csv": ["fig3.7_tsweep.png"],
        "fig3.8.csv": ["fig3.8_sim600.png"],
        "sim600.csv": ["fig3.9_3.12_sim600.png", "fig3.10_mpr_sim600.png", "fig3.11_nodes_sim600.png",
                       "fig3.15_classes_sim600.png"],
        "fig3.13.csv": ["fig3.13_ablation_congestion.png"]}
for n in CSVS + [p for ps in PNGS.values() for p in ps]:   # nothing left over from another study
    if os.path.exists(os.path.join(OUT, n)):
        os.remove(os.path.join(OUT, n))

# ------------------------------------------------------------------ every run
write_csv("runs.csv", ["run", "experiment", "backend", "scheduler", "seed", "tag", "partial", "fidelity",
                       "data_scale", "makespan_s", "throughput_jobs_s", "jct_mean_s", "jct_median_s",
                       "cross_rack_bytes", "cross_rack_bytes_fullscale", "shuffle_bytes_fullscale",
                       "shuffle_cross_rack_fullscale", "input_cross_rack_fullscale", "shuffle_kept_in_rack",
                       "congestion_rack_samples", "map_progress_at_first_reduce", "map_progress_10_maps",
                       "container_utilisation", "node_congestion_share", "node_local_maps",
                       "jobs_light", "jobs_medium", "jobs_heavy", "wall_s"],
          [[path, exp, be, sc, seed, tag, "yes" if r["partial"] else "no", r["fidelity"], float(r["ds"]),
            r["makespan"], r["thr"], r["jct"], r["jct_med"], r["xrack_raw"], r["xrack"], r["shuffle"],
            r["xr_shuffle"], r["xr_input"], r["shuf_inrack"], r["cong"], r["mpr"], r["mpr_big"], r["util"],
            r["node_cong"], r["node_local"], r["n_light"], r["n_medium"], r["n_heavy"], r["wall"]]
           for path, exp, be, sc, seed, tag, r in every], fmt="%.10g")

L = []   # REPORT.md lines
A = L.append


def plots_of(csvname):
    """Markdown image links of the figures plots.gp draws from csvname (once drawn)."""
    for p in PNGS.get(csvname, []):
        A("![%s](%s)" % (p[:-4], p))
    if PNGS.get(csvname):
        A("")


# ------------------------------------------------------------------ claims
SETUPS = [("cloudlab", "emu", "real", "Emulator, CloudLab setup (paper: the real cluster, Figs. 3.3–3.6, "
           "Tables 6.1/6.2)"),
          ("cloudlab", "sim", "vsim", "Simulator, CloudLab setup (paper: Tables 6.1/6.2, simulation of the "
           "real cluster; directions from Figs. 3.3–3.13)"),
          ("sim600", "sim", "sim600", "Simulator, 600 servers (paper: Figs. 3.8–3.15)")]


def claim_ratio(a, b, key):
    """value(exp, be, seeds) = mean of a's key over the seeds ÷ b's."""
    return [a, b], lambda e, be, ss: div(agg(e, be, a, ss, key), agg(e, be, b, ss, key))


def claim_class(c1, c2):
    """NAS ÷ Fair throughput of class c1 over that of class c2."""
    def f(e, be, ss):
        g = lambda c: div(agg(e, be, "nas", ss, "thr_" + c), agg(e, be, "fair", ss, "thr_" + c))
        return div(g(c1), g(c2))
    return ["nas", "fair"], f


TPOINTS = [(0.2, 0.2), (0.2, 0.3), (0.2, 0.4), (0.2, 0.5), (0.2, 0.7), (0.2, 0.9), (0.1, 0.5), (0.3, 0.5),
           (0.4, 0.5), (0.5, 0.5)]
sweep = defaultdict(dict)   # (backend, tmin, tmax) -> {seed: run}
for (exp, be, sc), rs in runs.items():
    if exp != "tsweep":
        continue
    for (seed, tag), r in rs.items():
        m = re.match(r"tmin([\d.]+)-tmax([\d.]+)$", tag)
        if m:
            sweep[(be, float(m.group(1)), float(m.group(2)))][seed] = r
SWEEP_BE = "sim" if any(k[0] == "sim" for k in sweep) else "emu"


def sweep_seeds():
    pts = [v for k, v in sweep.items() if k[0] == SWEEP_BE]
    return sorted(set.intersection(*[set(v) for v in pts])) if pts else []


def sweep_point(tmin, tmax, ss, key="thr"):
    v = sweep.get((SWEEP_BE, tmin, tmax), {})
    return mean([v[s][key] for s in ss if s in v])


def sweep_peak(ss):
    others = [sweep_point(a, b, ss) for (be, a, b) in sweep if be == SWEEP_BE and (a, b) != (0.2, 0.5)]
    return div(sweep_point(0.2, 0.5, ss), max([x for x in others if fin(x)], default=NAN))


# (figures, metric, numerator, denominator, setups (None: all), (schedulers needed, value function), holds when
#  the value is ">" / "<" / ">=" 1, the paper's value per setup or one for all or None)
CLAIMS = []
for metric, key, sense in [("throughput", "thr", ">"), ("avg JCT", "jct", "<")]:
    for b in BASES:
        CLAIMS.append(("3.3/3.8", metric, "NAS", LABEL[b], None, claim_ratio("nas", b, key), sense,
                       {st: P_NAS_OVER[st][key][b] for st in P_NAS_OVER}))
for fig, key, what in [("3.4/3.9", "xrack", "cross-rack bytes"), ("3.5/3.12", "cong", "congestion samples")]:
    for a in ["nas", "sw-delay"]:
        for b in ["fair", "delay"]:
            CLAIMS.append((fig, what, LABEL[a], LABEL[b], None, claim_ratio(a, b, key), "<", None))
MPR = "map progress at a job's first reduce (jobs ≥ 10 maps)"
CLAIMS += [("3.6/3.15", "NAS ÷ Fair throughput of a job class", "light", "medium", None,
            claim_class("light", "medium"), ">", None),
           ("3.6/3.15", "NAS ÷ Fair throughput of a job class", "medium", "heavy", None,
            claim_class("medium", "heavy"), ">", None),
           ("3.8", "throughput", "MTS+CA-RTS", "MTS only", None, claim_ratio("nas-mtsca", "nas-mts", "thr"), ">",
            None),
           ("3.8", "throughput", "NAS", "MTS+CA-RTS", None, claim_ratio("nas", "nas-mtsca", "thr"), ">", None),
           ("3.10", MPR, "SW-delay", "NAS", None, claim_ratio("sw-delay", "nas", "mpr_big"), ">", None),
           ("3.10", MPR, "NAS", "Delay", None, claim_ratio("nas", "delay", "mpr_big"), ">", None)]
for b in BASES:
    CLAIMS.append(("3.11", "server-samples over TrafficThreshold", "NAS", LABEL[b], None,
                   claim_ratio("nas", b, "node_cong"), "<", None))
for a in ["nas-nott", "nas-noadapt", "nas-woboth"]:
    CLAIMS.append(("3.13", "congestion samples", LABEL[a], "NAS", None, claim_ratio(a, "nas", "cong"), ">",
                   P_F313[a]))
CLAIMS.append(("3.7/3.16", "NAS throughput", "T_min 0.2 T_max 0.5", "the best other T_min/T_max", ["vsim"],
               "sweep", ">=", None))


def holds(v, sense):
    """v on the paper's side of 1, at the 3 decimals the report shows (1.000 is on neither)."""
    if not fin(v):
        return None
    v = round(v, 3)
    return v > 1 if sense == ">" else v < 1 if sense == "<" else v >= 1


def paper_cell(p, st, sense):
    v = p.get(st) if isinstance(p, dict) else p
    return ("%.2f" % v) if fin(v) else "%s 1" % {">": ">", "<": "<", ">=": "≥"}[sense]


claim_rows = []
claim_lines = []
for exp, be, st, title in SETUPS:
    tl = ["### " + title, "",
          "| paper's claim | ours | paper | holds | seeds where it holds | per seed |",
          "|---|---|---|---|---|---|"]
    nhold = ncount = 0
    for fig, metric, na, de, only, spec, sense, paper in CLAIMS:
        label = "Fig%s %s: %s, %s ÷ %s" % ("s." if "/" in fig else ".", fig, metric, na, de)
        if only is not None and st not in only:
            continue
        if spec == "sweep":
            ss = sweep_seeds()
            f = lambda e, b_, s_: sweep_peak(s_)
        else:
            need, f = spec
            ss = [s for s in common(exp, be, MAIN) if all(s in seeds_of(exp, be, x) for x in need)]
        v = f(exp, be, ss) if ss else NAN
        per = [f(exp, be, [s]) for s in ss]
        h = holds(v, sense)
        ph = [holds(x, sense) for x in per]
        k, n = sum(1 for x in ph if x), sum(1 for x in ph if x is not None)
        nhold += bool(h)
        ncount += h is not None
        tl.append("| %s | %s | %s | %s | %s | %s |" % (label, num(v), paper_cell(paper or {}, st, sense), yesno(h),
                                                     "%d of %d" % (k, n) if n else DASH, rng(per)))
        claim_rows.append([st, fig, metric, na, de, v, (paper.get(st, NAN) if isinstance(paper, dict) else
                                          float(paper) if paper is not None else NAN), sense + "1",
                           h, k, n, min([x for x in per if fin(x)], default=NAN),
                           max([x for x in per if fin(x)], default=NAN)])
    if not any(k[0] == exp and k[1] == be for k in runs):
        tl[2:] = ["(no runs)"]
    else:
        tl[0] += " — %d of %d hold" % (nhold, ncount)
    claim_lines += tl + [""]
write_csv("claims.csv", ["setup", "figures", "metric", "numerator", "denominator", "ours", "paper", "holds_if", "holds", "seeds_holding", "seeds",
                         "per_seed_min", "per_seed_max"], claim_rows)

# ------------------------------------------------------------------ report
A("# NAS, SW-delay, Delay and Fair: the dissertation's Chapter 3 and Tables 6.1/6.2")
A("")
A("Generated by `experiments/nas/report.py` from the runs under `%s`. How to read it: "
  "`experiments/nas/README.md`; why the setup is what it is and why numbers differ: `docs/reproduction.md`."
  % os.path.relpath(os.path.abspath(RES), os.path.dirname(os.path.dirname(HERE))))
A("")
A("Our numbers are means over seeds (one seed = one workload and block placement, the same for every "
  "scheduler); *÷ Fair* is the ratio of the means over the same seeds; *per seed* is the range of the ratio "
  "over the seeds; – is a value the runs cannot give.")
A("")

# ---- setup, recorded by the runs
A("## Setup (recorded by the runs)")
A("")
A("| experiment | backend | seeds | runs | topology | workload | data scale | time scale | rate scale | "
  "slowstart | heartbeat (s) | monitor (s) | fidelity |")
A("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
setup_rows = []
for exp in ["cloudlab", "full", "tsweep", "sim600"]:
    for be in ["emu", "sim"]:
        rs = [r for (e, b, _), v in runs.items() if e == exp and b == be for r in v.values()]
        seeds = sorted(set(s for (e, b, _), v in runs.items() if e == exp and b == be for (s, _) in v))
        if not rs:
            continue

        def vals(k, rs=rs):
            return "/".join(sorted(set(re.sub(r"seed=\d+,?", "", str(r["params"].get(k, DASH))) for r in rs)))
        cells = [" ".join(map(str, seeds)), str(len(rs)), vals("topology"), vals("workload"), vals("data_scale"),
                 vals("time_scale"), vals("rate_scale"), vals("slowstart"), vals("heartbeat_s"), vals("monitor_s"),
                 fid_str(Counter(r["fidelity"] for r in rs))]
        A("| %s | %s | %s |" % (exp, be, " | ".join(cells)))
        setup_rows.append([exp, be] + cells)
A("")
write_csv("setup.csv", ["experiment", "backend", "seeds", "runs", "topology", "workload", "data_scale",
                        "time_scale", "rate_scale", "slowstart", "heartbeat_s", "monitor_s", "fidelity"], setup_rows)

A("## The paper's claims")
A("")
A("*ours* is over the seeds all four main schedulers and the claim's two ran; *holds*: the ratio is on the "
  "paper's side of 1; "
  "*paper*: the dissertation's ratio where it gives one, else the side of 1 it shows.")
A("")
L.extend(claim_lines)


def main_table(exp, be, pthr, pjct, title):
    seeds = common(exp, be, MAIN)
    A("### %s, %s backend" % (title, be))
    A("")
    if not seeds:
        A("(no runs)")
        A("")
        return None
    t = table(exp, be, seeds)
    A("Seeds %s." % " ".join(map(str, seeds)))
    A("")
    A("| scheduler | runs | throughput (jobs/s) | ÷ Fair | paper | per seed | avg JCT (s) | ÷ Fair | paper | "
      "per seed | makespan (s) | cross-rack ÷ Fair | congestion samples | ÷ Fair | fidelity |")
    A("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for s in MAIN + ABL:
        if s not in t:
            continue
        r = t[s]
        A("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            LABEL[s], r["n"], num(r["thr"], "%.4f"), num(r["thr_n"]), num(pthr.get(s, NAN), "%.2f"),
            rng(r["thr_seed"]), num(r["jct"], "%.2f"), num(r["jct_n"]), num(pjct.get(s, NAN), "%.2f"),
            rng(r["jct_seed"]), num(r["makespan"], "%.0f"), num(r["xrack_n"]), num(r["cong"], "%.0f"),
            num(r["cong_n"]), fid_str(r["fid"])))
    A("")
    return t


def csv_main(name, t):
    rows = []
    for s in MAIN + ABL:
        if s in t:
            r = t[s]
            rows.append([LABEL[s], r["thr_n"], r["jct_n"], r["xrack_n"], r["cong_n"], r["cong"], r["mpr"],
                         r["mpr_big"], 100 * r["node_cong"], r["util"],
                         r["thr_light_n"], r["thr_medium_n"], r["thr_heavy_n"],
                         r["jct_light_n"], r["jct_medium_n"], r["jct_heavy_n"],
                         div(r["xr_shuffle"], 1e9), div(r["xr_input"], 1e9), r["n"], r["thr"], r["jct"],
                         min([x for x in r["thr_seed"] if fin(x)], default=NAN),
                         max([x for x in r["thr_seed"] if fin(x)], default=NAN),
                         min([x for x in r["jct_seed"] if fin(x)], default=NAN),
                         max([x for x in r["jct_seed"] if fin(x)], default=NAN), r["shuf_inrack"]])
    write_csv(name, ["scheduler", "thr_norm", "jct_norm", "xrack_norm", "cong_norm", "cong", "mpr", "mpr_big",
                     "node_cong_pct", "util", "thr_light_norm", "thr_medium_norm", "thr_heavy_norm",
                     "jct_light_norm", "jct_medium_norm", "jct_heavy_norm", "xr_shuffle_GB_full",
                     "xr_input_GB_full", "runs", "thr", "jct", "thr_norm_seed_min", "thr_norm_seed_max",
                     "jct_norm_seed_min", "jct_norm_seed_max", "shuffle_kept_in_rack"], rows)


def class_table(t):
    if not t or "nas" not in t or "fair" not in t:
        return
    A("Per job class (shuffle at full scale: light < 1 MiB, medium 1–100 MiB, heavy > 100 MiB); a class's "
      "throughput is its jobs ÷ (last end − first submission).")
    A("")
    A("| class | jobs per run | Fair throughput | NAS throughput | NAS ÷ Fair | Delay ÷ Fair | SW-delay ÷ Fair | "
      "NAS ÷ Fair avg JCT |")
    A("|---|---|---|---|---|---|---|---|")
    for c in CLASSES:
        A("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
            c, num(t["fair"]["n_" + c], "%.1f"), num(t["fair"]["thr_" + c], "%.4f"), num(t["nas"]["thr_" + c], "%.4f"),
            num(t["nas"]["thr_%s_n" % c]), num(t.get("delay", {}).get("thr_%s_n" % c, NAN)),
            num(t.get("sw-delay", {}).get("thr_%s_n" % c, NAN)), num(t["nas"]["jct_%s_n" % c])))
    A("")


def diag_table(t):
    if not t:
        return
    A("Mechanisms (Figs. 3.4, 3.10, 3.11).")
    A("")
    A("| scheduler | shuffle cross-rack (full-scale GB) | shuffle kept in rack | input cross-rack (full-scale GB) | "
      "map progress at 1st reduce | (jobs ≥ 10 maps) | server-samples over TrafficThreshold | "
      "container utilisation | node-local maps |")
    A("|---|---|---|---|---|---|---|---|---|")
    for s in MAIN + ABL:
        if s in t:
            r = t[s]
            A("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                LABEL[s], num(div(r["xr_shuffle"], 1e9), "%.0f"), num(100 * r["shuf_inrack"], "%.1f%%"),
                num(div(r["xr_input"], 1e9), "%.0f"), num(r["mpr"]), num(r["mpr_big"]),
                num(100 * r["node_cong"], "%.1f%%"), num(r["util"]), num(100 * r["node_local"], "%.1f%%")))
    A("")


# ---- CloudLab: Figs 3.3-3.6
A("## 1. The 40-node CloudLab setup (Figs. 3.3–3.6)")
A("")
tc = {}
for be in ["emu", "sim"]:
    st = "real" if be == "emu" else "vsim"
    t = main_table("cloudlab", be, paper_norm(st, "thr"), paper_norm(st, "jct"), "CloudLab setup")
    if t:
        tc[be] = t
        csv_main("cloudlab_%s.csv" % be, t)
        class_table(t)
        diag_table(t)
        plots_of("cloudlab_%s.csv" % be)
if tc:
    rows = []
    for s in MAIN + ["nas-mts", "nas-mtsca"]:
        g = lambda be, k: tc[be][s][k] if be in tc and s in tc[be] else NAN
        rows.append([LABEL[s], g("emu", "thr_n"), g("sim", "thr_n"), paper_norm("real", "thr").get(s, NAN),
                     paper_norm("vsim", "thr").get(s, NAN), g("emu", "jct_n"), g("sim", "jct_n"),
                     paper_norm("real", "jct").get(s, NAN), paper_norm("vsim", "jct").get(s, NAN)])
    write_csv("fig3.3.csv", ["scheduler", "thr_emu", "thr_sim", "thr_paper_real", "thr_paper_sim",
                             "jct_emu", "jct_sim", "jct_paper_real", "jct_paper_sim"], rows)
    plots_of("fig3.3.csv")

# ---- validation
A("## 2. Simulator validation (Eq. 6.1, Tables 6.1 and 6.2)")
A("")
A("ratio = NAS ÷ baseline of the mean throughput or avg JCT over the seeds both backends ran; *holds*: "
  "|simulator − emulator| ≤ %.2f, the paper's largest difference." % VALIDATION_TOLERANCE)
A("")
vseeds = sorted(set(common("cloudlab", "emu", MAIN)) & set(common("cloudlab", "sim", MAIN)))
if vseeds:
    A("Seeds %s." % " ".join(map(str, vseeds)))
    A("")
    vrows = []
    for metric, key, P in [("Throughput (Table 6.1)", "thr", P_T61), ("Average JCT (Table 6.2)", "jct", P_T62)]:
        A("| %s | NAS/Fair | NAS/Delay | NAS/SW-delay |" % metric)
        A("|---|---|---|---|")
        ours = {be: {b: div(agg("cloudlab", be, "nas", vseeds, key), agg("cloudlab", be, b, vseeds, key))
                     for b in BASES} for be in ["sim", "emu"]}
        # as Tables 6.1/6.2: the difference of the ratios at two decimals
        d = {b: round(round(ours["sim"][b], 2) - round(ours["emu"][b], 2), 2) if fin(ours["sim"][b]) and
             fin(ours["emu"][b]) else NAN for b in BASES}
        A("| ours, simulator | %s |" % " | ".join(num(ours["sim"][b], "%.2f") for b in BASES))
        A("| ours, emulator | %s |" % " | ".join(num(ours["emu"][b], "%.2f") for b in BASES))
        A("| ours, simulator − emulator | %s |" % " | ".join(num(d[b], "%+.2f") for b in BASES))
        A("| holds | %s |" % " | ".join(yesno(abs(d[b]) <= VALIDATION_TOLERANCE if fin(d[b]) else None)
                                        for b in BASES))
        A("| paper, simulation | %s |" % " | ".join("%.2f" % P["sim"][b] for b in BASES))
        A("| paper, real cluster | %s |" % " | ".join("%.2f" % P["emu"][b] for b in BASES))
        A("| paper, simulation − real cluster | %s |" % " | ".join("%+.2f" % (P["sim"][b] - P["emu"][b])
                                                                  for b in BASES))
        A("")
        for b in BASES:
            vrows.append([key, "NAS/" + LABEL[b], ours["sim"][b], ours["emu"][b], P["sim"][b], P["emu"][b],
                          d[b], P["sim"][b] - P["emu"][b], abs(d[b]) <= VALIDATION_TOLERANCE if fin(d[b]) else None])
    write_csv("validation.csv", ["metric", "pair", "ours_sim", "ours_emu", "paper_sim", "paper_real", "diff_ours",
                                 "diff_paper", "holds"], vrows)
    plots_of("validation.csv")
    A("Run by run (same workload, same scheduler): emulator ÷ simulator.")
    A("")
    A("| scheduler | seed | makespan emu / sim (s) | ÷ | avg JCT emu / sim (s) | ÷ | congestion samples emu / sim | "
      "cross-rack emu / sim (full-scale GB) | emulator fidelity |")
    A("|---|---|---|---|---|---|---|---|---|")
    for sc in MAIN:
        for x in vseeds:
            e = runs.get(("cloudlab", "emu", sc), {}).get((x, ""))
            m = runs.get(("cloudlab", "sim", sc), {}).get((x, ""))
            if e and m:
                A("| %s | %d | %s / %s | %s | %s / %s | %s | %s / %s | %s / %s | %s |" % (
                    LABEL[sc], x, num(e["makespan"], "%.0f"), num(m["makespan"], "%.0f"),
                    num(div(e["makespan"], m["makespan"]), "%.2f"), num(e["jct"], "%.2f"), num(m["jct"], "%.2f"),
                    num(div(e["jct"], m["jct"]), "%.2f"), num(e["cong"], "%.0f"), num(m["cong"], "%.0f"),
                    num(div(e["xrack"], 1e9), "%.0f"), num(div(m["xrack"], 1e9), "%.0f"), e["fidelity"]))
    A("")
else:
    A("(no seed ran on both backends)")
    A("")
sseeds = common("cloudlab", "sim", MAIN)
if sseeds:
    A("Simulator, all its seeds (%s):" % " ".join(map(str, sseeds)))
    A("")
    A("| | NAS/Fair | NAS/Delay | NAS/SW-delay |")
    A("|---|---|---|---|")
    for key, nm in [("thr", "throughput ratio"), ("jct", "avg JCT ratio")]:
        A("| %s | %s |" % (nm, " | ".join(num(div(agg("cloudlab", "sim", "nas", sseeds, key),
                                                  agg("cloudlab", "sim", b, sseeds, key)), "%.2f")
                                          for b in BASES)))
    A("")

# ---- unscaled time on the simulator
A("## 3. The CloudLab setup on the simulator, unscaled (time, data and rates × 1)")
A("")
tf = main_table("full", "sim", paper_norm("vsim", "thr"), paper_norm("vsim", "jct"), "Unscaled CloudLab setup")
if tf:
    csv_main("full_sim.csv", tf)
    class_table(tf)

# ---- T sweep (Fig 3.7 / 3.16)
A("## 4. NAS's map completion thresholds T_min / T_max (Figs. 3.7, 3.16)")
A("")
tss = sweep_seeds()
if tss:
    A("NAS on the CloudLab setup (%s backend), each point ÷ (T_min, T_max) = (0.2, 0.5); seeds %s."
      % (SWEEP_BE, " ".join(map(str, tss))))
    A("")
    A("| T_min | T_max | throughput ÷ (0.2, 0.5) | per seed | avg JCT ÷ (0.2, 0.5) | per seed |")
    A("|---|---|---|---|---|---|")
    rows = []
    for tmin, tmax in TPOINTS:
        if (SWEEP_BE, tmin, tmax) not in sweep:
            continue
        vals = {k: div(sweep_point(tmin, tmax, tss, k), sweep_point(0.2, 0.5, tss, k)) for k in ("thr", "jct")}
        per = {k: [div(sweep_point(tmin, tmax, [s], k), sweep_point(0.2, 0.5, [s], k)) for s in tss]
               for k in ("thr", "jct")}
        A("| %.1f | %.1f | %s | %s | %s | %s |" % (tmin, tmax, num(vals["thr"]), rng(per["thr"], "%.3f"),
                                                   num(vals["jct"]), rng(per["jct"], "%.3f")))
        curve = "tmin0.2" if tmin == 0.2 else "tmax0.5"
        rows.append([curve, tmax if curve == "tmin0.2" else tmin, vals["thr"], vals["jct"], tmin, tmax, len(tss)])
        if (tmin, tmax) == (0.2, 0.5):   # on both curves
            rows.append(["tmax0.5", tmin, vals["thr"], vals["jct"], tmin, tmax, len(tss)])
    A("")
    rows.sort(key=lambda r: (r[0] != "tmin0.2", r[1]))
    write_csv("tsweep.csv", ["curve", "value", "thr_norm", "jct_norm", "tmin", "tmax", "seeds"], rows)
    plots_of("tsweep.csv")
else:
    A("(no runs)")
    A("")

# ---- 600-server simulation
A("## 5. The 600-server simulation (Figs. 3.8–3.13, 3.15)")
A("")
t6 = main_table("sim600", "sim", paper_norm("sim600", "thr"), paper_norm("sim600", "jct"), "600 servers")
if t6:
    csv_main("sim600.csv", t6)
    class_table(t6)
    diag_table(t6)
    write_csv("fig3.8.csv", ["scheduler", "thr_ours", "thr_paper", "jct_ours", "jct_paper"],
              [[LABEL[s], t6[s]["thr_n"], paper_norm("sim600", "thr").get(s, NAN), t6[s]["jct_n"],
                paper_norm("sim600", "jct").get(s, NAN)] for s in MAIN + ["nas-mts", "nas-mtsca"] if s in t6])
    plots_of("fig3.8.csv")
    plots_of("sim600.csv")
    if "nas" in t6:
        A("Fig. 3.13: the ablations ÷ NAS (w/o both = w/o TT with T_min = T_max = 0.2; MTS+CA-RTS = NAS without "
          "CR-RTS).")
        A("")
        A("| variant | congestion samples ÷ NAS | paper | throughput ÷ NAS | avg JCT ÷ NAS |")
        A("|---|---|---|---|---|")
        f313 = []
        for s in ["nas-nott", "nas-noadapt", "nas-woboth", "nas-mts", "nas-mtsca", "nas"]:
            if s in t6:
                v = div(t6[s]["cong"], t6["nas"]["cong"])
                A("| %s | %s | %s | %s | %s |" % (LABEL[s], num(v, "%.2f"), num(P_F313.get(s, NAN), "%.2f"),
                                                 num(div(t6[s]["thr"], t6["nas"]["thr"])),
                                                 num(div(t6[s]["jct"], t6["nas"]["jct"]))))
                f313.append([LABEL[s], v, P_F313.get(s, NAN)])
        A("")
        write_csv("fig3.13.csv", ["variant", "ours", "paper"], f313)
        plots_of("fig3.13.csv")

left = [(p, r["stop"]) for p, _, _, _, _, _, r in every if r["partial"]]
if left:
    A("## Runs left out (partial)")
    A("")
    A("| run | stop reason |")
    A("|---|---|")
    for p, why in left:
        A("| %s | %s |" % (p, why.replace("|", "/") or DASH))
    A("")

# ---- plots, then the links of the figures drawn
drawn = False
if PLOTS and shutil.which("gnuplot"):
    g = subprocess.run(["gnuplot", os.path.join(HERE, "plots.gp")], cwd=OUT, capture_output=True, text=True)
    drawn = g.returncode == 0
    if not drawn:
        print("report.py: gnuplot failed, no plots:\n" + g.stderr, file=sys.stderr)
text = []
for line in L:
    m = re.match(r"!\[[^]]*\]\(([^)]+)\)$", line)
    if m and not (drawn and os.path.exists(os.path.join(OUT, m.group(1)))):
        continue
    text.append(line)
text = "\n".join(text)
text = re.sub(r"\n{3,}", "\n\n", text).rstrip("\n") + "\n"
with open(REPORT, "w") as f:
    f.write(text)
print("read %d runs (%d partial); wrote %s, %s in %s" % (len(every), len(left), os.path.basename(REPORT),
                                                          ", ".join(WRITTEN), OUT), file=sys.stderr)
