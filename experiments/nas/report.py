#!/usr/bin/env python3
"""Collect the Chapter 3 / Table 6.1-6.2 runs written by experiments/nas/run.sh into
CSVs for plots.gp and REPORT.md, our numbers beside the dissertation's.

    report.py RESULTS_ROOT OUT_DIR REPORT_MD [PREFIX]

Runs are RESULTS_ROOT/<PREFIX>-<experiment>/<scheduler>/<backend>-s<seed>[-<tag>]/
(PREFIX nas by default; run.sh uses nasquick, nastrace for --quick, --trace), experiments:
  nas-cloudlab  the 40-node CloudLab setup (8 x 5, 16 containers, 5:1), 200 jobs,
                Poisson arrivals; on both backends with the same parameters
  nas-full      the same on the simulator without time scaling (time/rate scale 1)
  nas-sim600    the 600-server simulation (30 x 20, 6 containers, 250 Mb/s, 1 Gb/s)
  nas-tsweep    NAS's T_min / T_max sweep (tag tmin<a>-tmax<b>), simulator
Python 3 standard library only."""
import csv, glob, json, math, os, re, statistics, sys
from collections import defaultdict

RES, OUT, REPORT = sys.argv[1], sys.argv[2], sys.argv[3]
PFX = sys.argv[4] if len(sys.argv) > 4 else "nas"
os.makedirs(OUT, exist_ok=True)

MAIN = ["fair", "delay", "sw-delay", "nas"]
ABL = ["nas-mts", "nas-mtsca", "nas-nott", "nas-noadapt", "nas-woboth"]
LABEL = {"fair": "Fair", "delay": "Delay", "sw-delay": "SW-delay", "nas": "NAS",
         "nas-mts": "MTS only", "nas-mtsca": "MTS+CA-RTS", "nas-nott": "w/o TT", "nas-noadapt": "w/o MCT",
         "nas-woboth": "w/o both"}
# variants run as a scheduler plus knobs (run.sh): (scheduler, tag) -> name
VARIANT = {("nas", "mtsca"): "nas-mtsca", ("nas-nott", "woboth"): "nas-woboth"}
MiB = 1024.0 * 1024
CLASSES = ["light", "medium", "heavy"]

# The dissertation's numbers (seeds/002; notes 002_nas_hybrid_sim.md §7).
# Fig. 3.3 (real cluster) and 3.8 (simulation) give NAS's gain over each
# baseline; normalised to Fair, baseline X = NAS / (1 + gain over X).
P_REAL_THR = {"fair": 1.0, "delay": 1.625 / 1.470, "sw-delay": 1.625 / 1.302, "nas": 1.625}
P_REAL_JCT = {"fair": 1.0, "delay": 0.554 / 0.639, "sw-delay": 0.554 / 0.677, "nas": 0.554}
P_SIM_THR = {"fair": 1.0, "delay": 1.569 / 1.412, "sw-delay": 1.569 / 1.280, "nas": 1.569}
P_SIM_JCT = {"fair": 1.0, "delay": 0.557 / 0.620, "sw-delay": 0.557 / 0.695, "nas": 0.557}
P_T61 = {"sim": {"fair": 1.58, "delay": 1.39, "sw-delay": 1.27},
         "emu": {"fair": 1.63, "delay": 1.47, "sw-delay": 1.30}}
P_T62 = {"sim": {"fair": 0.62, "delay": 0.69, "sw-delay": 0.71},
         "emu": {"fair": 0.57, "delay": 0.64, "sw-delay": 0.68}}
P_F313 = {"nas-nott": 1.22, "nas-noadapt": 1.07, "nas-woboth": 1.31, "nas": 1.0}


def nan():
    return float("nan")


def isnum(x):
    return isinstance(x, (int, float)) and x == x


def mean(xs):
    xs = [x for x in xs if isnum(x)]
    return sum(xs) / len(xs) if xs else nan()


def sd(xs):
    xs = [x for x in xs if isnum(x)]
    return statistics.stdev(xs) if len(xs) > 1 else nan()


def div(a, b):
    return a / b if isnum(a) and isnum(b) and b else nan()


def f2(x, fmt="%.2f"):
    return fmt % x if isnum(x) else "—"


def pct(x):
    return "%+.1f%%" % (100 * (x - 1)) if isnum(x) else "—"


# ------------------------------------------------------------------ one run

def read_csv(path):
    try:
        with open(path) as f:
            return list(csv.DictReader(f))
    except OSError:
        return []


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
    if not ev:
        return nan()
    ev.sort(key=lambda e: (e[0], -1 if (e[3] if e[1] else e[2]) < 0 else 1))
    end = max(e[0] for e in ev)
    step = max(period, end / 4000.0)
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
            else:
                node[e[2]] += e[3]
            i += 1
        if sumK > 0 and sumS > 0:
            thr = containers * sumS / sumK
            over += sum(1 for v in node if v > thr * (1 + 1e-9))
            total += servers
        t += step
    return over / total if total else nan()


def analyse(d):
    try:
        with open(os.path.join(d, "summary.json")) as f:
            s = json.load(f)
    except (OSError, ValueError):
        return None
    p = s.get("parameters", {})
    ds = p.get("data_scale", 1.0) or 1.0
    r = {"dir": d, "partial": bool(s.get("partial")), "stop": s.get("stop_reason", ""),
         "fidelity": s.get("fidelity", {}).get("verdict", "?"),
         "makespan": s.get("makespan_s", nan()), "thr": s.get("throughput_jobs_per_s", nan()),
         "jct": s.get("jct_mean_s", nan()), "jct_med": s.get("jct_median_s", nan()),
         "xrack": float(s.get("cross_rack_bytes", nan())) / ds,   # full-scale bytes
         "cong": s.get("congestion", {}).get("rack_samples", nan()),
         "wall": s.get("wall_s", nan()), "ds": ds,
         "monitor": p.get("monitor_s", 1.0)}
    ab = s.get("agent_bytes", {})
    r["xr_shuffle"] = ab.get("shuffle_cross_rack", nan()) / ds if "shuffle_cross_rack" in ab else nan()
    r["xr_input"] = ab.get("input_cross_rack", nan()) / ds if "input_cross_rack" in ab else nan()
    # share of the shuffle bytes that stay in their rack (same server or same rack)
    tot = ab.get("shuffle_network", 0) + ab.get("shuffle_local", 0)
    r["shuf_inrack"] = div(tot - ab.get("shuffle_cross_rack", 0), tot) if tot else nan()
    loc = s.get("locality", {})
    r["node_local"] = loc.get("node_local", nan())
    jobs = read_csv(os.path.join(d, "jobs.csv"))
    tasks = read_csv(os.path.join(d, "tasks.csv"))
    # per class: throughput (#jobs / their span), mean JCT, count
    by = defaultdict(list)
    for j in jobs:
        if j["finished"] == "1":
            by[job_class(float(j["shuffle_bytes"]) / ds)].append(j)
    for c in CLASSES:
        js = by.get(c, [])
        r["n_" + c] = len(js)
        if js:
            span = max(float(j["end_s"]) for j in js) - min(float(j["submit_s"]) for j in js)
            r["thr_" + c] = len(js) / span if span > 0 else nan()
            r["jct_" + c] = mean([float(j["jct_s"]) for j in js])
        else:
            r["thr_" + c] = r["jct_" + c] = nan()
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
        jid = j["job"]
        if jid not in first_red or not maps_end.get(jid):
            continue
        t0 = first_red[jid]
        v = sum(1 for e in maps_end[jid] if e <= t0 + 1e-6) / int(j["maps"])
        mpr_all.append(v)
        if int(j["maps"]) >= 10:
            mpr_big.append(v)
    r["mpr"] = mean(mpr_all)
    r["mpr_big"] = mean(mpr_big)
    servers = 1 + max((int(t["server"]) for t in tasks if t["server"] not in ("", "-1")), default=0)
    cont = p.get("containers") or CONTAINERS.get(p.get("topology", ""), 0)
    r["util"] = div(busy, servers * cont * r["makespan"]) if cont else nan()
    r["node_cong"] = node_congestion(jobs, tasks, servers, cont, r["monitor"]) if cont and tasks else nan()
    return r


CONTAINERS = {"cloudlab-8x5-16c": 16, "cloudlab-8x5": 4, "nas-30x20": 6, "paper-20x30": 20,
              "paper-20x30-eps": 20}

# ------------------------------------------------------------------ collect

runs = defaultdict(dict)   # (exp, backend, sched) -> {runkey: metrics}
skipped = []
for sj in sorted(glob.glob(os.path.join(RES, PFX + "-*", "*", "*", "summary.json"))):
    d = os.path.dirname(sj)
    exp, sched, name = d.split(os.sep)[-3:]
    exp = "nas" + exp[len(PFX):]
    m = re.match(r"(emu|sim)-s(\d+)(?:-(.+))?$", name)
    if not m:
        continue
    r = analyse(d)
    if r is None:
        continue
    r["seed"] = int(m.group(2))
    r["tag"] = m.group(3) or ""
    if (sched, r["tag"]) in VARIANT:
        sched, r["tag"] = VARIANT[(sched, r["tag"])], ""
    if r["partial"]:
        skipped.append("%s/%s/%s: partial (%s)" % (exp, sched, name, r["stop"]))
        continue
    runs[(exp, m.group(1), sched)][(r["seed"], r["tag"])] = r


def common(exp, backend, scheds, tag=""):
    """Seeds every scheduler of scheds ran (same workloads: comparable means)."""
    sets = [set(k[0] for k in runs.get((exp, backend, s), {}) if k[1] == tag) for s in scheds]
    sets = [x for x in sets if x]
    return sorted(set.intersection(*sets)) if sets else []


def agg(exp, backend, sched, seeds, key, tag=""):
    rs = runs.get((exp, backend, sched), {})
    return mean([rs[(s, tag)][key] for s in seeds if (s, tag) in rs])


def table(exp, backend, scheds, seeds):
    """Per scheduler: means over seeds and normalised to Fair (ratio of means)."""
    out = {}
    for s in scheds:
        if not any((x, "") in runs.get((exp, backend, s), {}) for x in seeds):
            continue
        row = {k: agg(exp, backend, s, seeds, k) for k in
               ["thr", "jct", "jct_med", "makespan", "xrack", "xr_shuffle", "xr_input", "shuf_inrack", "cong", "mpr",
                "mpr_big", "util", "node_cong", "node_local", "wall"] +
               ["thr_" + c for c in CLASSES] + ["jct_" + c for c in CLASSES] + ["n_" + c for c in CLASSES]}
        row["n"] = sum(1 for x in seeds if (x, "") in runs.get((exp, backend, s), {}))
        row["fid"] = sorted(set(runs[(exp, backend, s)][(x, "")]["fidelity"] for x in seeds
                                if (x, "") in runs[(exp, backend, s)]))
        out[s] = row
    f = out.get("fair")
    for s, row in out.items():
        for k in ["thr", "jct", "xrack", "cong", "makespan"] + ["thr_" + c for c in CLASSES] + \
                 ["jct_" + c for c in CLASSES]:
            row[k + "_n"] = div(row[k], f[k]) if f else nan()
        # per-seed spread of the normalised throughput / JCT
        rs, fr = runs.get((exp, backend, s), {}), runs.get((exp, backend, "fair"), {})
        pr = [div(rs[(x, "")]["thr"], fr[(x, "")]["thr"]) for x in seeds if (x, "") in rs and (x, "") in fr]
        pj = [div(rs[(x, "")]["jct"], fr[(x, "")]["jct"]) for x in seeds if (x, "") in rs and (x, "") in fr]
        row["thr_seed"] = pr
        row["jct_seed"] = pj
    return out


def rng(xs):
    xs = [x for x in xs if isnum(x)]
    return "%.2f–%.2f" % (min(xs), max(xs)) if xs else "—"


def write_csv(name, header, rows):
    with open(os.path.join(OUT, name), "w") as f:
        w = csv.writer(f)
        w.writerow(header)
        for r in rows:
            w.writerow([("%.4g" % x) if isinstance(x, float) and isnum(x) else ("nan" if isinstance(x, float) else x)
                        for x in r])


L = []   # REPORT.md lines
A = L.append

# every run, one line (small: the means' inputs)
allrows = []
for (exp, be, sc), rs in sorted(runs.items()):
    for (seed, tag), r in sorted(rs.items()):
        allrows.append([exp, be, sc, seed, tag, r["makespan"], r["thr"], r["jct"], r["jct_med"], r["xrack"],
                        r["xr_shuffle"], r["xr_input"], r["cong"], r["mpr"], r["util"], r["node_cong"],
                        r["n_light"], r["n_medium"], r["n_heavy"], r["fidelity"], r["wall"]])
write_csv("runs.csv", ["experiment", "backend", "scheduler", "seed", "tag", "makespan_s", "throughput_jobs_s",
                       "jct_mean_s", "jct_median_s", "cross_rack_bytes_fullscale", "shuffle_cross_rack_fullscale",
                       "input_cross_rack_fullscale", "congestion_rack_samples", "map_progress_at_first_reduce",
                       "container_utilisation", "node_congestion_share", "jobs_light", "jobs_medium", "jobs_heavy",
                       "fidelity", "wall_s"], allrows)


def params_line(exp, backend):
    for (e, b, s), rs in runs.items():
        if e == exp and b == backend and rs:
            r = next(iter(rs.values()))
            try:
                with open(os.path.join(r["dir"], "summary.json")) as f:
                    p = json.load(f)["parameters"]
            except (OSError, ValueError, KeyError):
                return ""
            return ("topology `%s`, workload `%s`, data scale %g, time scale %g, rate scale %g, slowstart %g, "
                    "heartbeat %g s, monitor %g s" % (p.get("topology"), p.get("workload"), p.get("data_scale"),
                                                       p.get("time_scale"), p.get("rate_scale"), p.get("slowstart"),
                                                       p.get("heartbeat_s"), p.get("monitor_s")))
    return ""


def _strip_seed(t):
    return re.sub(r"seed=\d+,", "", t)


def main_table(exp, backend, pthr, pjct, title, figs):
    scheds = MAIN + ABL
    seeds = common(exp, backend, MAIN)
    if not seeds:
        A("*(no complete %s runs of %s)*" % (backend, exp))
        A("")
        return None, []
    t = table(exp, backend, scheds, seeds)
    A("%s — %s backend, seeds %s (%d each); %s." % (title, backend, " ".join(map(str, seeds)), len(seeds),
                                                    _strip_seed(params_line(exp, backend))))
    A("")
    A("| scheduler | throughput (jobs/s) | norm. | paper | avg JCT (s) | norm. | paper | per-seed thr / JCT "
      "(÷Fair) | makespan (s) | cross-rack (÷Fair) | congestion samples | ÷Fair | fidelity |")
    A("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for s in scheds:
        if s not in t:
            continue
        r = t[s]
        A("| %s | %.4f | **%.3f** | %s | %.2f | **%.3f** | %s | %s / %s | %.0f | %.3f | %.0f | %.3f | %s |" % (
            LABEL[s], r["thr"], r["thr_n"], f2(pthr.get(s, nan())), r["jct"], r["jct_n"], f2(pjct.get(s, nan())),
            rng(r["thr_seed"]), rng(r["jct_seed"]), r["makespan"], r["xrack_n"], r["cong"], r["cong_n"],
            ",".join(r["fid"])))
    A("")
    return t, seeds


def csv_main(name, t):
    rows = []
    for s in MAIN + ABL:
        if s in t:
            r = t[s]
            rows.append([LABEL[s], r["thr_n"], r["jct_n"], r["xrack_n"], r["cong_n"], r["cong"], r["mpr"],
                         r["mpr_big"], 100 * r["node_cong"] if isnum(r["node_cong"]) else nan(), r["util"],
                         r["thr_light_n"], r["thr_medium_n"], r["thr_heavy_n"],
                         r["jct_light_n"], r["jct_medium_n"], r["jct_heavy_n"],
                         r["xr_shuffle"] / 1e9, r["xr_input"] / 1e9, r["n"]])
    write_csv(name, ["scheduler", "thr_norm", "jct_norm", "xrack_norm", "cong_norm", "cong", "mpr", "mpr_big",
                     "node_cong_pct", "util", "thr_light_norm", "thr_medium_norm", "thr_heavy_norm",
                     "jct_light_norm", "jct_medium_norm", "jct_heavy_norm", "xr_shuffle_GB_full",
                     "xr_input_GB_full", "runs"], rows)


def class_table(t, label):
    if not t or "nas" not in t or "fair" not in t:
        return
    A("Per job class (shuffle size at full scale: light < 1 MiB, medium 1–100 MiB, heavy > 100 MiB; %s). "
      "Throughput of a class = its jobs / (last end − first submit of them); improvement = NAS ÷ Fair "
      "(paper: light > medium > heavy)." % label)
    A("")
    A("| class | jobs per run | Fair thr. | NAS thr. | NAS ÷ Fair thr. | Delay ÷ Fair | SW-delay ÷ Fair | "
      "NAS ÷ Fair avg JCT |")
    A("|---|---|---|---|---|---|---|---|")
    for c in CLASSES:
        A("| %s | %.1f | %.4f | %.4f | **%s** | %s | %s | %s |" % (
            c, t["fair"]["n_" + c], t["fair"]["thr_" + c], t["nas"]["thr_" + c], f2(t["nas"]["thr_%s_n" % c], "%.3f"),
            f2(t.get("delay", {}).get("thr_%s_n" % c, nan()), "%.3f"),
            f2(t.get("sw-delay", {}).get("thr_%s_n" % c, nan()), "%.3f"), f2(t["nas"]["jct_%s_n" % c], "%.3f")))
    A("")


def diag_table(t, label, paper_note):
    if not t:
        return
    A("Mechanism diagnostics (%s): cross-rack bytes split into shuffle and remote map input (full-scale GB, "
      "agents' count), map progress when a job's first reduce starts (Fig. 3.10; all jobs / jobs with ≥ 10 maps), "
      "share of server-samples whose running maps' output exceeds TrafficThreshold (Fig. 3.11, Eq. 3.3 with "
      "actual sizes), container utilisation (busy container-seconds ÷ slots × makespan), node-local maps. "
      "*Shuffle kept in rack* is 1/racks when reduces land independently of their map output. %s"
      % (label, paper_note))
    A("")
    A("| scheduler | shuffle x-rack GB | shuffle kept in rack | input x-rack GB | MapProgressRate at 1st reduce | "
      "(≥10 maps) | nodes over TT | utilisation | node-local maps |")
    A("|---|---|---|---|---|---|---|---|---|")
    for s in MAIN + ABL:
        if s in t:
            r = t[s]
            A("| %s | %.0f | %.1f%% | %.0f | %.3f | %.3f | %s | %.3f | %.1f%% |" % (
                LABEL[s], r["xr_shuffle"] / 1e9, 100 * r["shuf_inrack"], r["xr_input"] / 1e9, r["mpr"], r["mpr_big"],
                f2(100 * r["node_cong"], "%.1f%%") if isnum(r["node_cong"]) else "—", r["util"],
                100 * r["node_local"]))
    A("")


# ------------------------------------------------------------------ report
A("# NAS, SW-delay, Delay and Fair: the dissertation's Chapter 3 and Tables 6.1/6.2")
A("")
A("Generated by `experiments/nas/report.py` from the runs under `%s` (run by `experiments/nas/run.sh`). "
  "Our numbers are means over seeded repetitions (each seed = one 200-job workload and block placement, the "
  "same for every scheduler); *normalised* = mean ÷ Fair's mean over the same seeds. The paper's numbers: "
  "seeds/002 Figs. 3.3–3.16 and Tables 6.1/6.2 (via notes/002_nas_hybrid_sim.md §7). Throughput = jobs ÷ "
  "makespan (first submission to last completion); cross-rack bytes as measured on the fabric (emu) or the "
  "flow model (sim); a *congestion sample* = one rack in one monitor period whose uplink ran ≥ 80%% of its rate "
  "either way." % os.path.relpath(os.path.abspath(RES), os.path.dirname(os.path.dirname(os.path.dirname(
      os.path.abspath(__file__))))))
A("")
A("@@SUMMARY@@")
A("")

A("## Setup and scales")
A("")
A("""- **CloudLab setup** (`experiments/nas/cloudlab-8x5-16c.conf`): 8 racks × 5 servers, 1 Gb/s servers and rack
  uplinks (5:1), **16 containers per server** as in the dissertation (`topologies/cloudlab-8x5.conf` has 4), queues
  of 20 ms (server ports) and 40 ms (uplinks) at line rate. 200 synthetic SWIM-like jobs (FB-2010 distributions,
  `emu/synth.c`) per seed, ad hoc (`--recurring 0`: the predictor starts at ratio 1, as for the trace's jobs), Poisson
  arrivals of mean gap 14 s × the time scale (`--arrivals poisson:14`: emu scales arrival times itself), map
  completion threshold 0.2 for every scheduler (NAS's own 0.2–0.5 on top).
- **Scales** (emulator, and the simulator on the same experiment): time × 0.05, rates × 0.025 (25 Mb/s servers
  and uplinks; at 0.05 the heaviest seed's Fair run had 11% slow backlogged link-seconds, at 0.025 6.5% —
  but see *Fidelity verdicts* in the analysis), bytes × 0.00125 = time × rate, so a transfer takes the same share of a
  task's time as the trace's bytes would on the real 1 Gb/s cluster (the project's GENI default, bytes × 0.01 with
  durations × 0.1, would make the network 10× lighter than that relative to the tasks at these rates). One
  emulated run (200 jobs) takes 2.5–5 min; the 12 runs of `sudo run.sh` took 41 min.
- **What does not scale:** `emu run` has fixed 1 s node + 1 s rack locality waits (NAS's and SW-delay's D^m, D^r
  too), a 0.2 s heartbeat, a 1 s network monitor and a 0.2 s task floor. At time scale 0.05 these are 40 s of
  waiting (the paper's real cluster: 5 s), a 4 s heartbeat (Hadoop: 1 s) and a 20 s congestion signal. §3
  repeats the experiment on the simulator without any scaling to show what that changes.
- **Seeds:** 35 39 5 1 22 24 27 15 10 30, the first ten of 1–40 whose 200-job mix Fair finishes within 2.3×
  the ~140 s arrival window on the simulator; the others draw jobs of tens of thousands of maps and terabytes
  of shuffle that keep the 40-node cluster busy for 10–60 min after the last arrival (one emulated run of
  seed 26 would take over an hour). The emulator runs the first three, the simulator all ten.
- **600-server simulation** (`experiments/nas/nas-30x20.conf`, §3.3.1 L707): 30 racks × 20 servers, 6 containers,
  250 Mb/s servers, 1 Gb/s rack uplinks (5:1); 1000 synthetic jobs, Poisson arrivals with FB-2010's mean gap
  (3.54 s), bytes × 0.25 (at × 1 Fair needs 6× the arrival window), time and rates unscaled; 3 seeds.
  The paper replayed all 24,442 jobs of FB-2010 over 24 h, 20 runs.
- **Emulator workaround, gone:** the committed emulator runs were made while run.sh still set
  `net.ipv4.tcp_orphan_retries = 15` in every server namespace, from when an agent closed a sending socket
  with bytes unsent and the fetching reduce could wait forever. The agents no longer need it: a sender keeps
  its socket open until the fetcher has every byte, and a stalled fetch resumes (README, *Stalled transfers*).""")
A("")

# ---- CloudLab: Figs 3.3-3.6 and Tables 6.1/6.2
A("## 1. The 40-node CloudLab setup (Figs. 3.3–3.6)")
A("")
tc = {}
for be in ["emu", "sim"]:
    t, seeds = main_table("nas-cloudlab", be, P_REAL_THR if be == "emu" else P_SIM_THR,
                          P_REAL_JCT if be == "emu" else P_SIM_JCT,
                          "Fig. 3.3 (throughput, avg JCT), 3.4 (cross-rack traffic), 3.5 (congestion)", "")
    if t:
        tc[be] = (t, seeds)
        csv_main("cloudlab_%s.csv" % be, t)
        class_table(t, be)
        diag_table(t, be, "")
A("Paper (real cluster, Fig. 3.3): NAS +62.5% / +47.0% / +30.2% throughput and −44.6% / −36.1% / −32.3% avg "
  "JCT vs Fair / Delay / SW-delay; Fig. 3.4: SW-delay and NAS below Fair and Delay in cross-rack traffic; "
  "Fig. 3.5: NAS and SW-delay fewer congestions than Fair and Delay. The `paper` column of the sim table is "
  "Fig. 3.8 (the paper's simulation).")
A("")

# ---- validation
A("## 2. Simulator validation (Eq. 6.1, Tables 6.1 and 6.2)")
A("")
A("ratio = Result(NAS) ÷ Result(baseline), Result = throughput or avg JCT normalised to Fair (the "
  "normalisation cancels), each Result the mean over the seeds both backends ran.")
A("")
vseeds = sorted(set(common("nas-cloudlab", "emu", MAIN)) & set(common("nas-cloudlab", "sim", MAIN)))
vrows = []
if vseeds:
    A("Same experiment on both backends, seeds %s:" % " ".join(map(str, vseeds)))
    A("")
    for metric, key, P in [("Throughput (Table 6.1)", "thr", P_T61), ("Average JCT (Table 6.2)", "jct", P_T62)]:
        A("| %s | NAS/Fair | NAS/Delay | NAS/SW-delay |" % metric)
        A("|---|---|---|---|")
        ours = {}
        for be in ["sim", "emu"]:
            ours[be] = {b: div(agg("nas-cloudlab", be, "nas", vseeds, key), agg("nas-cloudlab", be, b, vseeds, key))
                        for b in ["fair", "delay", "sw-delay"]}
            A("| ratio, ours, %s (%s) | %s |" % ("simulation" if be == "sim" else "emulation",
                                                 "sim backend" if be == "sim" else "emu backend",
                                                 " | ".join("**%s**" % f2(ours[be][b]) for b in ["fair", "delay", "sw-delay"])))
        A("| difference sim − emu, ours | %s |" % " | ".join(
            f2(ours["sim"][b] - ours["emu"][b], "%+.2f") for b in ["fair", "delay", "sw-delay"]))
        for be, nm in [("sim", "simulation"), ("emu", "real cluster")]:
            A("| ratio, paper, %s | %s |" % (nm, " | ".join(f2(P[be][b]) for b in ["fair", "delay", "sw-delay"])))
        A("| difference, paper | %s |" % " | ".join(
            f2(P["sim"][b] - P["emu"][b], "%+.2f") for b in ["fair", "delay", "sw-delay"]))
        A("")
        for b in ["fair", "delay", "sw-delay"]:
            vrows.append([key, "NAS/" + LABEL[b], ours["sim"][b], ours["emu"][b], P["sim"][b], P["emu"][b]])
    write_csv("validation.csv", ["metric", "pair", "ours_sim", "ours_emu", "paper_sim", "paper_real"], vrows)
else:
    A("*(needs the same seeds of nas-cloudlab on both backends: run `run.sh --backend sim` and `sudo run.sh`)*")
    A("")
if vseeds:
    A("Run by run (same workload, same scheduler): emulator ÷ simulator.")
    A("")
    A("| scheduler | seed | makespan emu / sim (s) | ÷ | avg JCT emu / sim (s) | ÷ | congestion samples emu / sim | "
      "cross-rack emu / sim (full-scale GB) | emu fidelity |")
    A("|---|---|---|---|---|---|---|---|---|")
    for sc in MAIN:
        for x in vseeds:
            e = runs.get(("nas-cloudlab", "emu", sc), {}).get((x, ""))
            m = runs.get(("nas-cloudlab", "sim", sc), {}).get((x, ""))
            if e and m:
                A("| %s | %d | %.0f / %.0f | %.2f | %.2f / %.2f | %.2f | %d / %d | %.0f / %.0f | %s |" % (
                    LABEL[sc], x, e["makespan"], m["makespan"], div(e["makespan"], m["makespan"]), e["jct"], m["jct"],
                    div(e["jct"], m["jct"]), e["cong"], m["cong"], e["xrack"] / 1e9, m["xrack"] / 1e9, e["fidelity"]))
    A("")
sseeds = common("nas-cloudlab", "sim", MAIN)
if sseeds and sseeds != vseeds:
    A("Simulator only, all its seeds (%s):" % " ".join(map(str, sseeds)))
    A("")
    A("| | NAS/Fair | NAS/Delay | NAS/SW-delay |")
    A("|---|---|---|---|")
    for key, nm in [("thr", "throughput ratio"), ("jct", "avg JCT ratio")]:
        A("| %s | %s |" % (nm, " | ".join(f2(div(agg("nas-cloudlab", "sim", "nas", sseeds, key),
                                                   agg("nas-cloudlab", "sim", b, sseeds, key)))
                                          for b in ["fair", "delay", "sw-delay"])))
    A("")

# ---- unscaled time on the simulator
A("## 3. The same setup on the simulator without time scaling")
A("")
A("The emulator must compress time (see *Scales* below), which stretches the fixed 1 s + 1 s locality waits "
  "(D^m, D^r of NAS, Delay's waits, SW-delay's) and the 0.2 s heartbeat relative to the tasks. Here the "
  "simulator runs the same workloads with durations, arrivals and rates unscaled (the waits are then 2 s "
  "against the paper's 5 s).")
A("")
tf, fseeds = main_table("nas-full", "sim", P_SIM_THR, P_SIM_JCT, "Unscaled CloudLab setup", "")
if tf:
    csv_main("full_sim.csv", tf)
    class_table(tf, "sim, unscaled")

# ---- T sweep (Fig 3.7 / 3.16)
A("## 4. NAS's map completion thresholds T_min / T_max (Figs. 3.7, 3.16)")
A("")
sweep = defaultdict(list)
for (exp, be, sc), rs in runs.items():
    if exp != "nas-tsweep":
        continue
    for (seed, tag), r in rs.items():
        m = re.match(r"tmin([\d.]+)-tmax([\d.]+)$", tag)
        if m:
            sweep[(be, float(m.group(1)), float(m.group(2)))].append((seed, r["thr"], r["jct"]))
if sweep:
    be = "sim" if any(k[0] == "sim" for k in sweep) else "emu"
    base = {s: th for s, th, _ in sweep.get((be, 0.2, 0.5), [])}
    basej = {s: j for s, _, j in sweep.get((be, 0.2, 0.5), [])}

    def norm_sweep(key):
        v = sweep.get(key, [])
        sd_ = [s for s, _, _ in v if s in base]
        return (div(mean([th for s, th, _ in v if s in base]), mean([base[s] for s in sd_])),
                div(mean([j for s, _, j in v if s in base]), mean([basej[s] for s in sd_])), len(sd_))
    rows = []
    A("Throughput (and avg JCT) of NAS normalised to T_min = 0.2, T_max = 0.5 (%s backend, CloudLab setup as in "
      "§1; mean over %d seeds). Paper: a peak at (0.2, 0.5), both too small and too large thresholds lose, "
      "the adaptive threshold gains up to 5%% over T_min = T_max." % (be, len(base)))
    A("")
    A("| curve | value | throughput ÷ (0.2,0.5) | avg JCT ÷ (0.2,0.5) |")
    A("|---|---|---|---|")
    for tmax in sorted(set(k[2] for k in sweep if k[0] == be and k[1] == 0.2)):
        th, jc, n = norm_sweep((be, 0.2, tmax))
        A("| T_min = 0.2 | T_max = %.1f | %s | %s |" % (tmax, f2(th, "%.3f"), f2(jc, "%.3f")))
        rows.append(["tmin0.2", tmax, th, jc])
    for tmin in sorted(set(k[1] for k in sweep if k[0] == be and k[2] == 0.5)):
        th, jc, n = norm_sweep((be, tmin, 0.5))
        A("| T_max = 0.5 | T_min = %.1f | %s | %s |" % (tmin, f2(th, "%.3f"), f2(jc, "%.3f")))
        rows.append(["tmax0.5", tmin, th, jc])
    A("")
    write_csv("tsweep.csv", ["curve", "value", "thr_norm", "jct_norm"], rows)
else:
    A("*(not run: `run.sh --backend sim`)*")
    A("")

# ---- 600-server simulation
A("## 5. The 600-server simulation (Figs. 3.8–3.13, 3.15)")
A("")
t6, s6 = main_table("nas-sim600", "sim", P_SIM_THR, P_SIM_JCT, "Fig. 3.8 (throughput, avg JCT), 3.9 "
                    "(cross-rack), 3.12 (congestion)", "")
if t6:
    csv_main("sim600.csv", t6)
    class_table(t6, "600-server simulation, Fig. 3.15")
    diag_table(t6, "600-server simulation", "Paper: Fig. 3.10 SW-delay > NAS > Delay ≈ Fair; Fig. 3.11 NAS very "
               "small, SW-delay > Fair, Delay; Fig. 3.9 MTS ≈ Delay, MTS+CA-RTS lower, NAS no lower than that.")
    if "nas" in t6:
        A("Fig. 3.13 — congestion samples of the ablations ÷ NAS's (paper: w/o TT 1.22, w/o MCT 1.07, w/o both "
          "1.31). `w/o both` = w/o TT with T_min = T_max = 0.2; `MTS+CA-RTS` = NAS that never sees congestion.")
        A("")
        A("| variant | congestion ÷ NAS, ours | paper | throughput ÷ NAS | avg JCT ÷ NAS |")
        A("|---|---|---|---|---|")
        f313 = []
        for s in ["nas-nott", "nas-noadapt", "nas-woboth", "nas-mts", "nas-mtsca", "nas"]:
            if s in t6:
                v = div(t6[s]["cong"], t6["nas"]["cong"])
                A("| %s | **%.2f** | %s | %.3f | %.3f |" % (LABEL[s], v, f2(P_F313.get(s, nan())),
                                                          div(t6[s]["thr"], t6["nas"]["thr"]),
                                                          div(t6[s]["jct"], t6["nas"]["jct"])))
                f313.append([LABEL[s], v, P_F313.get(s, nan())])
        A("")
        write_csv("fig3.13.csv", ["variant", "ours", "paper"], f313)
if "sim" in tc and not t6:
    pass

# ---- Fig. 3.3 CSV: ours on both backends beside the paper's real cluster and simulation
if tc:
    rows = []
    for s in MAIN + ["nas-mts", "nas-mtsca"]:
        g = lambda be, k: tc[be][0][s][k] if be in tc and s in tc[be][0] else nan()
        rows.append([LABEL[s], g("emu", "thr_n"), g("sim", "thr_n"), P_REAL_THR.get(s, nan()), P_SIM_THR.get(s, nan()),
                     g("emu", "jct_n"), g("sim", "jct_n"), P_REAL_JCT.get(s, nan()), P_SIM_JCT.get(s, nan())])
    write_csv("fig3.3.csv", ["scheduler", "thr_emu", "thr_sim", "thr_paper_real", "thr_paper_sim",
                             "jct_emu", "jct_sim", "jct_paper_real", "jct_paper_sim"], rows)
if t6:
    write_csv("fig3.8.csv", ["scheduler", "thr_ours", "thr_paper", "jct_ours", "jct_paper"],
              [[LABEL[s], t6[s]["thr_n"], P_SIM_THR.get(s, nan()), t6[s]["jct_n"], P_SIM_JCT.get(s, nan())]
               for s in MAIN + ["nas-mts", "nas-mtsca"] if s in t6])

if skipped:
    A("## Runs left out")
    A("")
    for s in skipped:
        A("- " + s)
    A("")

# ---- the summary at the top: what a reader should take away
summ = []
for be, nm in [("emu", "emulation (CloudLab setup)"), ("sim", "simulator (CloudLab setup)")]:
    if be in tc:
        t = tc[be][0]
        if "nas" in t:
            summ.append("- **%s**, %d seed(s): NAS ÷ Fair throughput **%.2f** (paper %.2f), avg JCT **%.2f** "
                        "(paper %.2f); NAS ÷ Delay thr %.2f, ÷ SW-delay thr %.2f; congestion samples NAS ÷ Fair "
                        "%.2f, SW-delay ÷ Fair %.2f." % (
                            nm, len(tc[be][1]), t["nas"]["thr_n"], (P_REAL_THR if be == "emu" else P_SIM_THR)["nas"],
                            t["nas"]["jct_n"], (P_REAL_JCT if be == "emu" else P_SIM_JCT)["nas"],
                            div(t["nas"]["thr"], t.get("delay", {}).get("thr", nan())),
                            div(t["nas"]["thr"], t.get("sw-delay", {}).get("thr", nan())),
                            t["nas"]["cong_n"], t.get("sw-delay", {}).get("cong_n", nan())))
if t6 and "nas" in t6:
    summ.append("- **600-server simulation**, %d seed(s): NAS ÷ Fair throughput **%.2f** (paper 1.57), avg JCT "
                "**%.2f** (paper 0.56)." % (len(s6), t6["nas"]["thr_n"], t6["nas"]["jct_n"]))
text = "\n".join(L).replace("@@SUMMARY@@", "## Summary\n\n" + ("\n".join(summ) if summ else "*(no runs)*") +
                            "\n\n@@ANALYSIS@@")
# The hand-written analysis of the committed run (experiments/nas/analysis.md) follows the summary of
# the main report only (not --quick, --trace).
ana = os.path.join(os.path.dirname(os.path.abspath(__file__)), "analysis.md")
text = text.replace("@@ANALYSIS@@", open(ana).read().strip() + "\n" if os.path.exists(ana) and PFX == "nas" else "")
with open(REPORT, "w") as f:
    f.write(text + "\n")
print("read %d runs; wrote %s and CSVs in %s" % (sum(len(v) for v in runs.values()), REPORT, OUT), file=sys.stderr)
