#!/usr/bin/env python3
"""Collect the Chapter 4 runs (results/jobpacker/<scheduler>/<scenario>-<system>-s<seed>/)
into CSVs for gnuplot and REPORT.md with our numbers beside the dissertation's.
With --sim: the paper-scale simulation study (report_sim.py)."""
import csv, glob, gzip, os, random, re, statistics, sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report_sim
if len(sys.argv) > 1 and sys.argv[1] == "--sim":
    # Paper-scale simulation (Figs. 4.9-4.12, 4.17, 4.18, 4.20-4.24): report_sim.py.
    report_sim.main(sys.argv[2:])
    sys.exit(0)
def usage():
    sys.exit("usage: report.py RESULTS OUT [--twin SIM_RESULTS]  |  report.py --sim RESULTS OUT REPORT.md")
args = sys.argv[1:]
twin_res = None
if "--twin" in args:
    i = args.index("--twin")
    if i + 1 >= len(args):
        usage()
    twin_res = args[i + 1]
    del args[i:i + 2]
if len(args) != 2:
    usage()
res, out = args
shown = report_sim.shown
os.makedirs(out, exist_ok=True)

def seed_of(name): return int(re.search(r"-s(\d+)$", name).group(1))

class Study:
    """The runs under one results root: (scenario, system) -> [(name, summary, jobs rows)],
    the partial runs left out, and per scenario the seeds whose runs are complete for every
    system run in it (a ratio between two systems compares the same workloads)."""
    def __init__(self, root, quiet=False):
        self.runs, self.left_out, self.complete = {}, [], {}
        for name, sc, sysn, _, s, jobs in report_sim.summaries(root):
            if jobs is None:
                if not quiet:
                    print("skipping %s: partial (%s)" % (name, s.get("stop_reason")), file=sys.stderr)
                self.left_out.append((name, "partial: %s, %s of %s jobs finished" % (
                    s.get("stop_reason") or "stopped", s.get("jobs_finished"), s.get("jobs"))))
                continue
            self.runs.setdefault((sc, sysn), []).append((name, s, jobs))
        for (sc, sysn), rs in self.runs.items():
            have_seeds = {seed_of(n) for n, _, _ in rs}
            self.complete[sc] = self.complete.get(sc, have_seeds) & have_seeds

    def pick(self, sc, sysn, seeds=None):
        """The runs of a scenario and system, of its complete seeds: all of them, or those in
        `seeds` (an int: one seed; a list may name a seed more than once, a bootstrap
        resample: its runs then count that many times)."""
        rs = [r for r in self.runs.get((sc, sysn), []) if seed_of(r[0]) in self.complete.get(sc, ())]
        if seeds is None:
            return rs
        return [r for sd in ([seeds] if isinstance(seeds, int) else seeds) for r in rs if seed_of(r[0]) == sd]

    def seeds(self):
        return sorted({seed_of(n) for rs in self.runs.values() for n, _, _ in rs})

SETUP_KEYS = ("topology", "scheduler", "slowstart", "data_scale", "time_scale", "min_shuffle_bytes", "max_maps",
              "ocs_reconfig", "ocs_interval_s", "ocs_delta_s", "ocs_mode", "copiers", "elephant_bytes")
def setup_of(s, seed=True):
    """What makes two runs the same run on two backends (with seed=False: the same setup)."""
    p = s.get("parameters", {})
    wl = p.get("workload", "")
    return tuple(p.get(k) for k in SETUP_KEYS) + (s.get("jobs"), wl.split(",")[0].split(":")[0] if not seed else wl)

study = Study(res)
runs, left_out = study.runs, study.left_out
twin = Study(twin_res, quiet=True) if twin_res and os.path.isdir(twin_res) else None
if twin:
    # The twin's runs must all have the emulator's setup, or its columns would compare others.
    def setups(st): return {setup_of(s, seed=False) for rs in st.runs.values() for _, s, _ in rs}
    if not twin.runs or not setups(twin) <= setups(study):
        print("report.py: %s: not the emulator's setup; no twin columns" % twin_res, file=sys.stderr)
        twin = None

def tasks_of(root, name):
    """A run's tasks.csv rows, and its containers: one per server on GENI (servers used)."""
    path = glob.glob(os.path.join(root, "*", name, "tasks.csv"))
    if not path:
        return [], 0
    with open(path[0]) as f:
        ts = list(csv.DictReader(f))
    return ts, len({t["server"] for t in ts if t["server"] != "-1"})

def compute_bound(name):
    """The makespan no scheduler can beat: every task's compute time (the workload's, the same
    under every system) spread over the containers."""
    ts, slots = tasks_of(res, name)
    return sum(float(t["duration_s"]) for t in ts) / slots if slots else float("nan")

SYSTEMS = ["JobPacker", "F-Hybrid", "Corral", "F-EPS"]
BOOTSTRAP = 400   # resamples of the seeds behind the direction table's intervals
def mean(xs): return sum(xs) / len(xs) if xs else float("nan")
def jcts(rows, pred=lambda r: True):
    return [float(r["jct_s"]) for r in rows if r["finished"] == "1" and pred(r)]
def norm(v, base): return v / base if base and base == base else float("nan")

lines = ["# JobPacker, Corral, F-Hybrid and F-EPS on the emulated GENI setup", "",
         "Generated by `experiments/jobpacker/report.py` from the runs in `%s`." % shown(res), "",
         "Our numbers are means over the seeded repetitions; the paper's are from the dissertation",
         "(seeds/002, Ch. 4.3, GENI emulation).  Normalised values divide by F-Hybrid.  Why the",
         "setup is what it is, and why numbers differ: `experiments/jobpacker/FINDINGS.md`.", ""]

# The setup, as the runs recorded it.
def setup_line():
    ps = [s.get("parameters", {}) for rs in runs.values() for _, s, _ in rs]
    if not ps:
        return []
    def vals(k): return sorted({str(q.get(k)) for q in ps})
    seeds = sorted({int(re.search(r"-s(\d+)$", n).group(1)) for rs in runs.values() for n, _, _ in rs})
    njobs = sorted({s["jobs"] for rs in runs.values() for _, s, _ in rs})
    return ["**Setup** (recorded by the runs): topology %s (F-EPS: its EPS-only twin); %s jobs per run, "
            "seeds %s; workload %s; jobs chosen with a shuffle of at least %s bytes and scaled down to "
            "at most %s maps (0 = off); data scale %s, time scale %s; OCS reconfiguration %s, interval %s s, "
            "delta %s s, mode %s; %s copiers per reduce; backend %s (slowdown %s); slowstart %s." % (
                "/".join(vals("topology")), "/".join(map(str, njobs)), " ".join(map(str, seeds)),
                "/".join(sorted({v.split(",")[0] for v in vals("workload")})),
                "/".join(vals("min_shuffle_bytes")), "/".join(vals("max_maps")), "/".join(vals("data_scale")),
                "/".join(vals("time_scale")), "/".join(vals("ocs_reconfig")), "/".join(vals("ocs_interval_s")),
                "/".join(vals("ocs_delta_s")), "/".join(vals("ocs_mode")), "/".join(vals("copiers")), "/".join(vals("backend")),
                "/".join(sorted({"%g" % q.get("slowdown", 1) for q in ps})),
                report_sim.slowstarts((sc, n, s) for (sc, n), rs in runs.items() for _, s, _ in rs)), ""]
lines += setup_line()
if left_out:
    lines += ["**Left out** (no number below includes them, nor the other systems' runs of the same "
              "scenario and seed; rerun `run.sh` to redo them): " +
              "; ".join("%s (%s)" % r for r in left_out) + ".", ""]
def med(xs): return statistics.median(xs) if xs else float("nan")

def per_system(sc, seeds, f, st):
    """f(runs) for every system with runs of scenario sc in study st (all seeds', or those in
    `seeds`)."""
    return {sysn: f(rs) for sysn in SYSTEMS for rs in [st.pick(sc, sysn, seeds)] if rs}

def batch_view(seeds=None, st=study):
    """Per system: mean makespan and OCS share of its batch runs."""
    return per_system("batch", seeds, lambda rs: (mean([s["makespan_s"] for _, s, _ in rs]),
                                                  mean([s["ocs_share"] for _, s, _ in rs])), st)

def online_view(seeds=None, st=study, sc="online"):
    """Per system: the sorted JCTs of its online runs (pooled; or scenario sc's) and their mean
    OCS share."""
    return per_system(sc, seeds, lambda rs: (sorted(j for _, _, jobs in rs for j in jcts(jobs)),
                                                   mean([s["ocs_share"] for _, s, _ in rs])), st)

def mixed_view(seeds=None, st=study):
    """Per system: the median JCT of its recurring and of its ad-hoc jobs in the mixed runs."""
    return per_system("mixed", seeds, lambda rs: tuple(
        med([j for _, _, jobs in rs for j in jcts(jobs, lambda r: r["recurring"] == rec)]) for rec in "10"), st)

def claims(seeds=None, st=study):
    """Every checked claim of Chapter 4 as (claim, ours, paper, holds), from all the runs of
    study st or from those of `seeds` (an int: one seed); a claim whose systems were not run
    is left out."""
    out = []
    def claim(text, ours, paper, holds):
        if ours == ours:   # not NaN: both sides were run
            out.append((text, ours, paper, holds))
    def versus(d, other):   # JobPacker's normalised value over another system's
        return d["JobPacker"] / d.get(other, float("nan"))
    b = batch_view(seeds, st)
    base = b.get("F-Hybrid", (float("nan"),))[0]
    bm = {k: norm(v[0], base) for k, v in b.items()}
    bs = {k: v[1] for k, v in b.items()}
    if "JobPacker" in bm:
        claim("batch makespan: JobPacker < F-Hybrid", bm["JobPacker"], "0.51", bm["JobPacker"] < 1)
        claim("batch makespan: JobPacker < Corral (ratio JobPacker / Corral)", versus(bm, "Corral"), "0.67",
              versus(bm, "Corral") < 1)
        claim("batch makespan: JobPacker within 5% of F-EPS (ratio JobPacker / F-EPS)", versus(bm, "F-EPS"),
              "0.95-1.05", abs(versus(bm, "F-EPS") - 1) <= 0.05)
        claim("batch: most of JobPacker's cross-rack bytes on circuits (OCS share)", bs["JobPacker"], "0.96",
              bs["JobPacker"] > 0.5)
        claim("batch OCS share: JobPacker > F-Hybrid (ratio, F-Hybrid's share floored at 1%)",
              bs["JobPacker"] / max(bs.get("F-Hybrid", float("nan")), 0.01), "120",
              bs["JobPacker"] > bs.get("F-Hybrid", 1))
    o = online_view(seeds, st)
    base = med(o.get("F-Hybrid", ([],))[0])
    om = {k: norm(med(v[0]), base) for k, v in o.items()}
    os_ = {k: v[1] for k, v in o.items()}
    if "JobPacker" in om:
        claim("online median JCT: JobPacker < F-Hybrid", om["JobPacker"], "0.58", om["JobPacker"] < 1)
        claim("online median JCT: JobPacker < Corral (ratio JobPacker / Corral)", versus(om, "Corral"), "0.73",
              versus(om, "Corral") < 1)
        claim("online median JCT: JobPacker close to F-EPS (ratio JobPacker / F-EPS, within 10%)",
              versus(om, "F-EPS"), "≈1", abs(versus(om, "F-EPS") - 1) <= 0.1)
        claim("online OCS share: JobPacker much higher than F-Hybrid and Corral", os_["JobPacker"], "much higher",
              os_["JobPacker"] > 2 * max(os_.get("F-Hybrid", 1), os_.get("Corral", 1), 0.01))
    m = mixed_view(seeds, st)
    mb = m.get("F-Hybrid", (float("nan"),) * 2)
    mm = {k: (norm(v[0], mb[0]), norm(v[1], mb[1])) for k, v in m.items()}
    if "JobPacker" in mm:
        for k, what, paper in ((0, "recurring", "0.61"), (1, "ad-hoc", "0.63")):
            claim("mixed, %s median JCT: JobPacker < F-Hybrid" % what, mm["JobPacker"][k], paper,
                  mm["JobPacker"][k] < 1)
            c = mm.get("Corral", (float("nan"),) * 2)[k]
            claim("mixed, %s median JCT: JobPacker < Corral (ratio)" % what, mm["JobPacker"][k] / c,
                  "0.74" if k == 0 else "0.71", mm["JobPacker"][k] < c)
    return out

# The figures draw the paper's bars beside ours (None: the text gives no number, only "≈
# JobPacker"), and whiskers over ours: the 5th-95th percentile over resamples of the seeds, as
# the direction table's interval.
PAPER_FIG = {"batch": {"JobPacker": 0.51, "F-Hybrid": 1.0, "Corral": 0.761, "F-EPS": None},
             "share": {"JobPacker": 0.96, "F-Hybrid": 0.008, "Corral": 0.16, "F-EPS": None},
             "online": {"JobPacker": 0.58, "F-Hybrid": 1.0, "Corral": 0.795, "F-EPS": None},
             "recurring": {"JobPacker": 0.61, "F-Hybrid": 1.0, "Corral": 0.82, "F-EPS": None},
             "adhoc": {"JobPacker": 0.63, "F-Hybrid": 1.0, "Corral": 0.89, "F-EPS": None}}

def interval(xs):
    """The 5th and 95th percentile of the numbers xs (not empty)."""
    xs = sorted(xs)
    return xs[int(0.05 * (len(xs) - 1))], xs[int(round(0.95 * (len(xs) - 1)))]

def resampled(view, sc):
    """system -> (5th, 95th percentile) of view(seeds) (a dict system -> number) over resamples
    of scenario sc's seeds; the value itself where there is one seed."""
    seeds = sorted(study.complete.get(sc, ()))
    draw, got = random.Random(2), {}
    for _ in range(BOOTSTRAP if len(seeds) > 1 else 1):
        for k, v in view([draw.choice(seeds) for _ in seeds] if len(seeds) > 1 else seeds).items():
            if v == v:
                got.setdefault(k, []).append(v)
    return {k: interval(xs) for k, xs in got.items()}

def fig_cells(v, lohi, paper):
    """value, whisker low and high, paper's value (NaN: none) for a figure's CSV row."""
    lo, hi = lohi if lohi else (v, v)
    return "%.4f,%.4f,%.4f,%s" % (v, lo, hi, report_sim.number_or_nan(paper))

def normalised(view, k=None):
    """A view of seeds -> system -> number, divided by F-Hybrid's (the k-th item of tuples)."""
    def f(seeds):
        d = view(seeds)
        if k is not None:
            d = {n: v[k] for n, v in d.items()}
        return {n: norm(v, d.get("F-Hybrid")) for n, v in d.items()}
    return f

# Batch: makespan (Fig. 4.13) and OCS share (Fig. 4.14)
b = batch_view()
base = b.get("F-Hybrid", (None,))[0]
rows = [[sysn, mk, share, len(study.pick("batch", sysn)),
         mean([s["makespan_s"] / compute_bound(n) for n, s, _ in study.pick("batch", sysn)])]
        for sysn, (mk, share) in b.items()]
mk_ci = resampled(normalised(batch_view, 0), "batch")
share_ci = resampled(lambda sd: {k: v[1] for k, v in batch_view(sd).items()}, "batch")
with open(os.path.join(out, "batch.csv"), "w") as f:
    f.write("system,makespan_s,reps,makespan_norm,norm_lo,norm_hi,paper_norm,"
            "ocs_share,share_lo,share_hi,paper_share\n")
    for sysn, mk, share, n, _ in rows:
        f.write("%s,%.3f,%d,%s,%s\n" % (sysn, mk, n, fig_cells(norm(mk, base), mk_ci.get(sysn), PAPER_FIG["batch"][sysn]),
                                        fig_cells(share, share_ci.get(sysn), PAPER_FIG["share"][sysn])))
paper_mk = {"JobPacker": "0.51", "F-Hybrid": "1.00", "Corral": "0.761", "F-EPS": "≈0.51 (within 5% of JobPacker)"}
paper_share = {"JobPacker": "96%", "F-Hybrid": "0.8%", "Corral": "16.0%", "F-EPS": "— (no OCS)"}
lines += ["## Batch (Figs. 4.13, 4.14)", "",
          "| system | makespan (s) | normalised | paper | OCS share | paper | ÷ compute bound |",
          "|---|---|---|---|---|---|---|"]
for sysn, mk, share, n, eff in rows:
    lines.append("| %s | %.1f | %.3f | %s | %.1f%% | %s | %.2f |" % (sysn, mk, norm(mk, base), paper_mk[sysn],
                                                                      100 * share, paper_share[sysn], eff))
lines += ["", "*÷ compute bound*: makespan over every task's compute time spread evenly over the containers "
          "(the same work under every system), mean over the seeds.  A system near 1.0 leaves no makespan "
          "for any scheduler to win.", ""]

# JobPacker's plan against its run: the plan (JOBPACKER_PLAN_LOG, written beside this report by
# run.sh) says when each job should end by Eq. 4.1; F-EPS is the yardstick of the "within 5%"
# claim.  A plan ahead of F-EPS whose run is not says the misses come from executing the plan,
# not from choosing it (FINDINGS, twenty-first session).
PLAN_ROW = re.compile(r"\s*\d+ (\S+)\s+-?\d+ ([01])\s+\d+\s+\d+\s+[\d.]+\s+([\d.]+)\s")
def plan_of(name):
    """A run's plan from out/<run>.plan: job name -> (shuffle-heavy, planned end); {} when the run
    left no plan."""
    path = os.path.join(out, name + ".plan")
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        return {m.group(1): (m.group(2) == "1", float(m.group(3)))
                for m in map(PLAN_ROW.match, f) if m}

def plan_rows():
    """Per seed with a JobPacker and an F-EPS batch run and JobPacker's plan: (seed, plan makespan,
    run makespan, F-EPS makespan, median lateness of shuffle-heavy jobs, of the others)."""
    rows = []
    for name, s, jobs in study.pick("batch", "JobPacker"):
        plan, feps = plan_of(name), study.pick("batch", "F-EPS", seed_of(name))
        if not plan or not feps:
            continue
        late = {sh: [float(r["end_s"]) - plan[r["name"]][1] for r in jobs
                     if r["name"] in plan and plan[r["name"]][0] == sh] for sh in (True, False)}
        rows.append((seed_of(name), max(e for _, e in plan.values()), s["makespan_s"],
                     feps[0][1]["makespan_s"], med(late[True]), med(late[False])))
    return sorted(rows)
prows = plan_rows()
if prows:
    def tot(i): return sum(r[i] for r in prows)
    lines += ["**JobPacker's plan against its run**: the makespan its plan predicted (Eq. 4.1, `<run>.plan` "
              "beside this report), the one its run took, and F-EPS's; *late*: the median of the jobs' "
              "run end minus planned end.  Over the seeds the plan is %.3f of F-EPS's makespan and the "
              "runs take %.3f of their plan." % (tot(1) / tot(3), tot(2) / tot(1)), "",
              "| seed | plan (s) | run (s) | run ÷ plan | F-EPS (s) | plan ÷ F-EPS | run ÷ F-EPS "
              "| late (s): shuffle-heavy / other jobs |", "|---|---|---|---|---|---|---|---|"]
    for sd, pm, rm, fm, lh, lo in prows:
        lines.append("| %d | %.2f | %.2f | %.3f | %.2f | %.3f | %.3f | %.2f / %.2f |" % (
            sd, pm, rm, rm / pm, fm, pm / fm, rm / fm, lh, lo))
    lines.append("")

# Where the batch's fetches spend their time (summary.json's fetch_time; runs made before it
# have none, and then the table is left out).
FETCH_CLASSES = (("in_rack", "in a rack"), ("eps", "over the EPS"), ("circuit_eligible", "circuit-eligible"))
def fetch_times(rs):
    """Per fetch class over the runs: (fetches, mean wait, mean move), or None."""
    if not all("fetch_time" in s for _, s, _ in rs):
        return None
    out = {}
    for k, _ in FETCH_CLASSES:
        fs = [s["fetch_time"][k] for _, s, _ in rs]
        n = sum(f["fetches"] for f in fs)
        out[k] = (n, sum(f["fetches"] * f["wait_mean_s"] for f in fs) / n if n else float("nan"),
                  sum(f["fetches"] * f["move_mean_s"] for f in fs) / n if n else float("nan"))
    return out
ft = per_system("batch", None, fetch_times, study)
if ft and all(ft.values()):
    lines += ["**Where the batch's shuffle fetches spend their time**: from its reduce asking for it, a "
              "fetch waits (for one of the reduce's copiers, or in hold mode for its circuit) and then "
              "moves (pauses in the dark included); mean seconds per fetch over the seeds' runs, and the "
              "number of fetches (`flows.csv` has every one).", "",
              "| system | " + " | ".join("%s: wait / move (fetches)" % t for _, t in FETCH_CLASSES) + " |",
              "|---|---|---|---|"]
    for sysn, v in ft.items():
        lines.append("| %s | " % sysn + " | ".join(
            "%.3f / %.3f (%d)" % (v[k][1], v[k][2], v[k][0]) if v[k][0] else "—" for k, _ in FETCH_CLASSES) + " |")
    lines.append("")

# Online: JCT CDF and median (Figs. 4.15, 4.16)
o = online_view()
base = med(o["F-Hybrid"][0]) if "F-Hybrid" in o else None
orows = []
for sysn, (all_j, share) in o.items():
    with open(os.path.join(out, "cdf_%s.csv" % sysn), "w") as f:
        for i, v in enumerate(all_j):
            f.write("%.3f %.4f\n" % (v, (i + 1) / len(all_j)))
    orows.append([sysn, med(all_j), mean(all_j), share])
med_ci = resampled(normalised(lambda sd: {k: med(v[0]) for k, v in online_view(sd).items()}), "online")
with open(os.path.join(out, "online.csv"), "w") as f:
    f.write("system,median_jct_s,mean_jct_s,ocs_share,median_norm,norm_lo,norm_hi,paper_norm\n")
    for sysn, md, mn, share in orows:
        f.write("%s,%.3f,%.3f,%.4f,%s\n" % (sysn, md, mn, share,
                                            fig_cells(norm(md, base), med_ci.get(sysn), PAPER_FIG["online"][sysn])))
paper_med = {"JobPacker": "0.58", "F-Hybrid": "1.00", "Corral": "≈0.795", "F-EPS": "≈ JobPacker"}
lines += ["## Online (Figs. 4.15, 4.16)", "",
          "| system | median JCT (s) | normalised | paper | mean JCT (s) | OCS share |", "|---|---|---|---|---|---|"]
for sysn, md, mn, share in orows:
    lines.append("| %s | %.2f | %.3f | %s | %.2f | %.1f%% |" % (sysn, md, norm(md, base), paper_med[sysn], mn,
                                                               100 * share))
lines.append("")
# Where a job's time goes: waiting for its first container, then its map phase, its shuffle and
# its last reduce.  JobPacker's plan queues jobs in arrival order on its racks (L1000) where Fair
# shares at once, packs a shuffle-heavy job's maps on a few racks, and sends its shuffle over
# circuits that serve one rack pair per port at a time; the split shows which of these a distance
# from F-EPS is in (FINDINGS, twenty-first and twenty-fifth sessions).
def phases(rs):
    """Over the runs' finished jobs, medians in seconds: wait (arrival to first container), 90th
    percentile of the wait, map phase (first container to last map end), shuffle (last map end to
    the start of the last reduce's compute: its fetches done), reduce (that to the job's end), and
    the run (first container to end)."""
    w, m, sh, rd, run = [], [], [], [], []
    for name, _, jobs in rs:
        ts, _ = tasks_of(res, name)
        last_map, last_red = {}, {}
        for t in ts:
            if not t["end_s"]:
                continue
            end = float(t["end_s"])
            if t["kind"] == "map":
                last_map[t["job"]] = max(last_map.get(t["job"], 0.0), end)
            else:
                last_red[t["job"]] = max(last_red.get(t["job"], 0.0), end - float(t["duration_s"]))
        for r in jobs:
            if r["finished"] != "1" or r["job"] not in last_map:
                continue
            start, end, me = float(r["start_s"]), float(r["end_s"]), last_map[r["job"]]
            red_start = last_red.get(r["job"], me)
            w.append(start - float(r["submit_s"]))
            m.append(me - start)
            sh.append(max(0.0, red_start - me))
            rd.append(end - max(red_start, me))
            run.append(end - start)
    w.sort()
    return med(w), w[int(0.9 * (len(w) - 1))] if w else float("nan"), med(m), med(sh), med(rd), med(run)
wr = per_system("online", None, phases, study)
if wr:
    lines += ["**Where the time goes** (online, every finished job of the seeds, medians): from its "
              "arrival to its first container, its map phase, its shuffle (from its last map's end until "
              "its last reduce has fetched everything), its last reduce, and the whole run from the first "
              "container.  The phases' medians need not add up to the run's.", "",
              "| system | wait, median / 90th percentile (s) | maps (s) | shuffle (s) | reduce (s) "
              "| run (s) |", "|---|---|---|---|---|---|"]
    lines += ["| %s | %.2f / %.2f | %.2f | %.2f | %.2f | %.2f |" % ((sysn,) + v) for sysn, v in wr.items()]
    lines.append("")

# The online scenario at other arrival rates (run.sh's load sweep: this study's runs, then its
# simulator twin's).  JobPacker's plan serves jobs in order of arrival (L1000), Fair shares the
# containers, and postponed shuffles start after the maps: the more loaded the cluster, the
# further JobPacker's median falls behind F-EPS's (FINDINGS.md).
def busy_share(root, name, makespan):
    """The share of the containers' time the run's tasks held them."""
    ts, slots = tasks_of(root, name)
    busy = sum(float(t["end_s"]) - float(t["start_s"]) for t in ts if t["start_s"] and t["end_s"])
    return busy / (slots * makespan) if slots and makespan else float("nan")

def load_view(st, root):
    """Per arrival rate (x GENI's; 1 = the online scenario): per system, the median of its pooled
    JCTs, and F-EPS's mean busy share."""
    rates = {float(sc[4:]): sc for sc, _ in st.runs if re.match(r"load[0-9.]+$", sc)}
    if not rates:
        return []
    rates[1.0] = "online"
    rows = []
    for rate in sorted(rates, reverse=True):
        sc = rates[rate]
        md = {sysn: med(v[0]) for sysn, v in online_view(None, st, sc).items()}
        busy = mean([busy_share(root, name, s["makespan_s"]) for name, s, _ in st.pick(sc, "F-EPS")])
        rows.append((rate, busy, md, len(st.pick(sc, "JobPacker"))))
    return rows

def backend_of(st):
    return next((s.get("parameters", {}).get("backend") for rs in st.runs.values() for _, s, _ in rs), None)
lsrc = [(backend_of(st), root, rows) for st, root in ((study, res), (twin, twin_res)) if st
        for rows in [load_view(st, root)] if rows]
if lsrc:
    with open(os.path.join(out, "load.csv"), "w") as f:
        f.write("backend,rate,feps_busy_share," + ",".join("median_jct_%s" % sysn for sysn in SYSTEMS) + "\n")
        for be, _, rows in lsrc:
            for rate, busy, md, _ in rows:
                f.write("%s,%g,%.4f,%s\n" % (be, rate, busy,
                                             ",".join("%.3f" % md.get(sysn, float("nan")) for sysn in SYSTEMS)))
    def ratio(md, a, b): return "%.3f" % (md[a] / md[b]) if a in md and b in md else "—"
    names = {"emu": "emulator", "sim": "simulator"}
    lines += ["## Online median JCT against the arrival rate", "",
              "The online scenario at other rates than GENI's one job per 6 s (x 1: the online scenario "
              "above); runs from %s.  *F-EPS busy*: the share of the containers' time F-EPS's tasks held "
              "them.  Paper (x 1): JobPacker ≈ F-EPS, 0.58 of F-Hybrid's, 0.73 of Corral's; F-EPS ≈ 0.58 "
              "of F-Hybrid's." % " and ".join("`%s`" % shown(root) for _, root, _ in lsrc), "",
              "| backend | arrival rate (x GENI's) | runs | F-EPS busy | JobPacker median JCT (s) | ÷ F-EPS "
              "| ÷ F-Hybrid | ÷ Corral | F-EPS ÷ F-Hybrid |", "|---|---|---|---|---|---|---|---|---|"]
    for be, _, rows in lsrc:
        for rate, busy, md, n in rows:
            lines.append("| %s | %g | %d | %.0f%% | %s | %s | %s | %s | %s |" % (
                names.get(be, be), rate, n, 100 * busy,
                "%.2f" % md["JobPacker"] if "JobPacker" in md else "—",
                ratio(md, "JobPacker", "F-EPS"), ratio(md, "JobPacker", "F-Hybrid"), ratio(md, "JobPacker", "Corral"),
                ratio(md, "F-EPS", "F-Hybrid")))
    lines.append("")

# Mixed recurring / ad hoc (Fig. 4.19)
m = mixed_view()
bases = dict(zip("ra", m["F-Hybrid"])) if "F-Hybrid" in m else {}
mix_ci = [resampled(normalised(mixed_view, k), "mixed") for k in (0, 1)]
with open(os.path.join(out, "mixed.csv"), "w") as f:
    f.write("system,median_recurring_s,median_adhoc_s,norm_recurring,rec_lo,rec_hi,paper_recurring,"
            "norm_adhoc,adhoc_lo,adhoc_hi,paper_adhoc\n")
    for sysn, (mr, ma) in m.items():
        f.write("%s,%.3f,%.3f,%s,%s\n" % (sysn, mr, ma,
                                          fig_cells(norm(mr, bases.get("r")), mix_ci[0].get(sysn), PAPER_FIG["recurring"][sysn]),
                                          fig_cells(norm(ma, bases.get("a")), mix_ci[1].get(sysn), PAPER_FIG["adhoc"][sysn])))
paper_mix = {"JobPacker": "0.61 / 0.63", "F-Hybrid": "1 / 1", "Corral": "≈0.82 / 0.89", "F-EPS": "≈ JobPacker"}
lines += ["## Mixed recurring and ad-hoc jobs (Fig. 4.19)", "",
          "| system | median JCT recurring / ad hoc (s) | normalised | paper |", "|---|---|---|---|"]
for sysn, (mr, ma) in m.items():
    lines.append("| %s | %.2f / %.2f | %.3f / %.3f | %s |" % (sysn, mr, ma, norm(mr, bases.get("r")),
                                                             norm(ma, bases.get("a")), paper_mix[sysn]))
lines.append("")
# Which half is recurring is drawn at random: a seed whose recurring half holds little of the
# shuffle leaves JobPacker little EPS load to take off the ad-hoc jobs (FINDINGS, twentieth session).
if "JobPacker" in m and "F-Hybrid" in m:
    lines += ["Per seed: the recurring jobs' share of the workload's shuffle bytes (the half is drawn at "
              "random), and JobPacker's median JCT over F-Hybrid's.", "",
              "| seed | recurring share of shuffle | JobPacker ÷ F-Hybrid, recurring / ad hoc |", "|---|---|---|"]
    for sd in sorted({seed_of(n) for n, _, _ in study.pick("mixed", "F-Hybrid")}):
        jobs = study.pick("mixed", "F-Hybrid", sd)[0][2]
        total = sum(int(r["shuffle_bytes"]) for r in jobs)
        rec = sum(int(r["shuffle_bytes"]) for r in jobs if r["recurring"] == "1")
        v = mixed_view(sd)
        lines.append("| %d | %.0f%% | %.3f / %.3f |" % (sd, 100.0 * rec / total if total else float("nan"),
                                                         norm(v["JobPacker"][0], v["F-Hybrid"][0]),
                                                         norm(v["JobPacker"][1], v["F-Hybrid"][1])))
    lines.append("")

# Sensitivity (emulation only; the paper's sweeps are simulations).  The default point is the
# batch scenario's JobPacker runs of the seeds the sweep ran: the sweep runs fewer seeds than
# the scenarios, and one seed moves a mean by more than the sweep does.
srows, sseeds = [], set()
for (sc, sysn), rs in sorted(runs.items()):
    m = re.match(r"sens-(interval|delta)(.+)$", sc)
    if m:
        srows.append([m.group(1), float(m.group(2)), mean([s["makespan_s"] for _, s, _ in rs]),
                      mean([s["ocs_share"] for _, s, _ in rs])])
        sseeds |= {seed_of(n) for n, _, _ in rs}
b = [r for r in runs.get(("batch", "JobPacker"), []) if seed_of(r[0]) in sseeds]
if b:
    at_default = [mean([s["makespan_s"] for _, s, _ in b]), mean([s["ocs_share"] for _, s, _ in b])]
    srows += [["interval", 1.0] + at_default, ["delta", 0.01] + at_default]
srows.sort()
with open(os.path.join(out, "sensitivity.csv"), "w") as f:
    f.write("param,value,makespan_s,ocs_share\n")
    for p, v, mk, sh in srows:
        f.write("%s,%g,%.3f,%.4f\n" % (p, v, mk, sh))
if srows:
    lines += ["## Sensitivity of JobPacker's batch makespan (emulation)", "",
              "Means over seeds %s, the ones the sweep ran (the default interval, 1 s, and delta, "
              "10 ms, are the batch scenario's runs of those seeds)." % " ".join(map(str, sorted(sseeds))), "",
              "| parameter | value | makespan (s) | OCS share |", "|---|---|---|---|"]
    lines += ["| %s | %g | %.1f | %.1f%% |" % (p, v, mk, 100 * sh) for p, v, mk, sh in srows]
    lines.append("")

# Where ours differ from the paper's, and why: one paragraph per claim or figure that differs,
# each with the measure of this study's runs that shows the cause (FINDINGS.md has the trials).
def flows_of(root, name):
    """A run's flows.csv rows (gzip'd by run.sh, or as the run left it)."""
    for path in glob.glob(os.path.join(root, "*", name, "flows.csv.gz")) + \
            glob.glob(os.path.join(root, "*", name, "flows.csv")):
        with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
            return list(csv.DictReader(f))
    return []

def cross_rack_classes(rs):
    """JobPacker's cross-rack shuffle bytes over runs rs: (share of them in jobs its plan does not
    class as shuffle-heavy, share of the shuffle-heavy jobs' that were circuit-eligible or None
    without such jobs), or None without plans, flows or cross-rack shuffle bytes."""
    light = heavy = eligible = 0
    for name, _, jobs in rs:
        plan, fl = plan_of(name), flows_of(res, name)
        if not plan or not fl:
            return None
        sh = {r["job"]: plan.get(r["name"], (False,))[0] for r in jobs}
        for r in fl:
            if r["kind"] != "shuffle" or r["src_rack"] == r["dst_rack"]:
                continue
            if sh.get(r["job"]):
                heavy += int(r["bytes"])
                eligible += int(r["bytes"]) if r["circuit_eligible"] == "1" else 0
            else:
                light += int(r["bytes"])
    return (light / (light + heavy), eligible / heavy if heavy else None) if light + heavy else None

def racks_per_job(rs):
    """Over runs rs: the share of jobs whose tasks all ran in one rack, and the share of the
    shuffle bytes that crossed racks (None without flows)."""
    one = n = cross = total = 0
    for name, _, _ in rs:
        racks = {}
        for t in tasks_of(res, name)[0]:
            if t["rack"] != "-1":
                racks.setdefault(t["job"], set()).add(t["rack"])
        one += sum(len(v) == 1 for v in racks.values())
        n += len(racks)
        for r in flows_of(res, name):
            if r["kind"] == "shuffle":
                total += int(r["bytes"])
                cross += int(r["bytes"]) if r["src_rack"] != r["dst_rack"] else 0
    return one / n if n else float("nan"), cross / total if total else None

PAPER_ONLINE = {"F-EPS": 0.58, "Corral": 0.58 / 0.73}   # ÷ F-Hybrid: JobPacker 0.58, F-EPS ≈ JobPacker
def differences(verdicts, unsettled):
    """The section's lines; `unsettled`: claim -> what the resampled seeds (and the twin) say of
    each miss that they do not settle."""
    ours = {t: (o, h) for t, o, _, h in verdicts}
    said = set()
    def claim(prefix):
        t = next((t for t in ours if t.startswith(prefix)), None)
        said.add(t)
        return ours.get(t)
    out = []
    c = claim("batch makespan: JobPacker within 5% of F-EPS")
    if c and not c[1] and prows:
        def tot(i): return sum(r[i] for r in prows)
        plan_f, run_plan = tot(1) / tot(3), tot(2) / tot(1)
        out.append("- **Batch, JobPacker beside F-EPS** (ours %.3f, paper within 5%%).  JobPacker's plan (Eq. 4.1) "
                   "makes the batch in %.3f of F-EPS's makespan; its runs take %.3f of their plan, the "
                   "shuffle-heavy jobs ending a median of %.2f s past their planned end, the others %.2f s.  %s" % (
                       c[0], plan_f, run_plan, med([r[4] for r in prows]), med([r[5] for r in prows]),
                       "So the plan holds the claim and its execution is what misses it: a circuit shuffle takes "
                       "longer than Eq. 4.1's term, which has every circuit at its full rate from the first "
                       "configuration, where the reducers start on heartbeats as containers free (the first "
                       "configurations light few circuits) and the tails move in small pieces, a configuration "
                       "each." if plan_f <= 1.05 < c[0] else
                       "So the plan alone misses the claim, and the runs slip further." if plan_f > 1.05 else ""))
    b = {k: v[0] for k, v in batch_view().items()}
    c = claim("batch makespan: JobPacker < F-Hybrid")
    if c and "F-EPS" in b and abs(c[0] - 0.51) > 0.05:
        o = {k: med(v[0]) for k, v in online_view().items()}
        on = all(k in o for k in ("JobPacker", "F-Hybrid", "F-EPS"))
        out.append("- **How much JobPacker wins over F-Hybrid** (batch makespan %.3f, paper 0.51%s).  The baselines "
                   "alone set how much there is to win: F-EPS ÷ F-Hybrid is %.3f in the batch%s, where the paper has "
                   "F-EPS within 5%% of JobPacker's 0.51%s." % (
                       c[0], "; online median %.3f, paper 0.58" % (o["JobPacker"] / o["F-Hybrid"]) if on else "",
                       b["F-EPS"] / b["F-Hybrid"], " and %.3f online" % (o["F-EPS"] / o["F-Hybrid"]) if on else "",
                       " and ≈ its 0.58" if on else ""))
    c = claim("online median JCT: JobPacker close to F-EPS")
    if c and not c[1] and "JobPacker" in wr and "F-EPS" in wr:
        j, f = wr["JobPacker"], wr["F-EPS"]
        text = ("- **Online median, JobPacker beside F-EPS** (ours %.3f, paper ≈ 1).  Once a job has its first "
                "container, JobPacker runs it in a median of %.2f s and F-EPS in %.2f s; what differs is the "
                "wait for that container, 90th percentile %.2f s against %.2f s.  The plan serves the jobs in "
                "order of predicted arrival (L1000), each on the first containers free after the jobs before it, "
                "so a job that arrives behind a wide one waits for it; Fair lets a new job in as soon as any "
                "container frees." % (c[0], j[5], f[5], j[1], f[1]))
        if lsrc:
            be, _, rows = lsrc[0]
            ok = [(rate, md) for rate, _, md, _ in rows if all(k in md for k in SYSTEMS)]
            def off(md): return sum(abs(md[k] / md["F-Hybrid"] - p) for k, p in PAPER_ONLINE.items())
            if ok:
                best = min(ok, key=lambda r: off(r[1]))[0]
                text += ("  The arrival rate is the paper's (200 jobs in 20 min); the work a job brings is this "
                         "workload's.  The ratios between the baselines alone place the load (%s; paper ≈ 0.58 "
                         "and 0.795): F-EPS ÷ F-Hybrid and Corral ÷ F-Hybrid are %s, closest to the paper's at "
                         "%g× GENI's rate.  JobPacker ÷ F-EPS at each rate: %s." % (
                             {"emu": "emulator", "sim": "simulator"}.get(be, be),
                             ", ".join("%.3f and %.3f at %g×" % (md["F-EPS"] / md["F-Hybrid"],
                                                                   md["Corral"] / md["F-Hybrid"], rate)
                                       for rate, md in ok), best,
                             ", ".join("%.3f at %g×" % (md["JobPacker"] / md["F-EPS"], rate) for rate, md in ok)))
        out.append(text)
    c = claim("batch: most of JobPacker's cross-rack bytes on circuits")
    cls = cross_rack_classes(study.pick("batch", "JobPacker")) if c and abs(c[0] - 0.96) > 0.05 else None
    if cls:
        out.append("- **JobPacker's OCS share** (ours %.1f%%, paper 96%%).  %.1f%% of its cross-rack shuffle bytes "
                   "belong to jobs its plan does not class as shuffle-heavy (under the elephant threshold, scaled "
                   "as GENI did): only shuffle-heavy jobs are aggregated for circuits, so these take the EPS by "
                   "design.%s  The paper's 96%% says nearly all of its 200 jobs' cross-rack bytes were in "
                   "shuffle-heavy jobs; this workload carries a larger part in mid-sized ones." % (
                       100 * c[0], 100 * cls[0], "" if cls[1] is None else
                       "  Of the shuffle-heavy jobs' cross-rack bytes, %.1f%% were circuit-eligible." % (100 * cls[1])))
    c = claim("batch makespan: JobPacker < Corral")
    cshare = mean([s["ocs_share"] for _, s, _ in study.pick("batch", "Corral")])
    if c and (abs(c[0] - 0.67) > 0.1 or abs(cshare - 0.16) > 0.05):
        one, cross = racks_per_job(study.pick("batch", "Corral"))
        out.append("- **Corral** (JobPacker ÷ Corral %.3f, paper 0.67; Corral's OCS share %.1f%%, paper 16%%).  "
                   "Corral ran %.0f%% of its batch jobs in one rack%s.  Its planner adds a rack only when the "
                   "parallelism pays for the cross-rack shuffle over the rack's 0.1 Gb/s EPS uplink, and with "
                   "GENI's 10-container racks a job's waves in one rack cost less.  In a rack a shuffle moves at "
                   "the tasks' 0.1 Gb/s each, as fast as ten of them take from a 1 Gb/s circuit, so Corral loses "
                   "nothing to the network and the batch is a packing contest, which packing whole jobs plays "
                   "nearly as well as JobPacker's "
                   "spreading (wider jobs put JobPacker further ahead: `--max-maps`).  The paper's Corral sent "
                   "16%% of its bytes over the OCS, so its jobs spanned racks; the text does not say how wide." % (
                       c[0], 100 * cshare, 100 * one,
                       ", and %.0f%% of its shuffle bytes crossed racks" % (100 * cross) if cross is not None else ""))
    for t, o, paper, h in verdicts:
        if not h and t not in said and t in unsettled:
            out.append("- **%s** (ours %.3f, paper %s): a miss over these seeds' runs, which they do not "
                       "settle: %s.%s" % (t, o, paper, unsettled[t],
                                          "  A class's median is over half of a seed's jobs, so one job "
                                          "can move it." if t.startswith("mixed") else ""))
    if not out:
        return []
    return ["## Where ours differ from the paper's, and why", "",
            "Measured on this study's runs; `experiments/jobpacker/FINDINGS.md` has the trials behind each "
            "point.", ""] + out + [""]

# The direction of every result, from all the runs, and in how many seeds it holds alone: a
# ratio within a few percent of 1 that holds in some seeds and not others is a coin toss at
# this number of repetitions, not a result.
verdicts = claims()
if verdicts:
    held = sum(v[3] for v in verdicts)
    seeds = sorted({seed_of(n) for rs in runs.values() for n, _, _ in rs})
    per_seed = [{t: h for t, _, _, h in claims(sd)} for sd in seeds]
    def agree(text):
        hs = [ps[text] for ps in per_seed if text in ps]
        return "%d of %d" % (sum(hs), len(hs))
    # How far the seeds alone move each claim: the same claims over resamples of the seeds (with
    # replacement, a fixed draw so that the report is reproducible): the 5th-95th percentile of
    # each number, and the share of resamples in which the claim holds.  A claim that holds in
    # fewer than 95% of them and misses in fewer than 95% is not settled by this many seeds:
    # a second study of the same seeds can turn it (the same run made twice differs by a few
    # percent, more in the mixed scenario's per-class medians; FINDINGS).
    def resample_claims(st, seeds):
        """claim -> ([numbers], [holds]) over BOOTSTRAP resamples of `seeds` in study st."""
        draw, boot = random.Random(1), {}
        for _ in range(BOOTSTRAP if len(seeds) > 1 else 0):
            for t, o, _, h in claims([draw.choice(seeds) for _ in seeds], st):
                boot.setdefault(t, ([], []))
                boot[t][0].append(o)
                boot[t][1].append(h)
        return boot
    boot = resample_claims(study, seeds)
    def spread(text):
        xs = [x for x in boot.get(text, ([], []))[0] if x == x]
        return "%.3f–%.3f" % interval(xs) if xs else "—"   # one seed: nothing to resample
    def support(b, text):
        """The share of resamples in which the claim holds; None without resamples."""
        hs = b.get(text, ([], []))[1]
        return sum(hs) / len(hs) if hs else None
    def settled(b, text):
        """'yes' or 'no' when the resamples agree in 95% or more, else 'not settled'."""
        f = support(b, text)
        return None if f is None else "yes" if f >= 0.95 else "no" if f <= 0.05 else "not settled"
    def share(b, t):
        f = support(b, t)
        return "—" if f is None else "%.0f%%" % (100 * f)
    def yes(h): return "yes" if h else "**no**"
    tally = [settled(boot, t) for t, _, _, _ in verdicts]
    head = ["## Direction of the Chapter 4 results (%d of %d hold%s)" % (
                held, len(verdicts), "" if None in tally else "; over resampled seeds %d hold, %d miss, %d not settled" % (
                    tally.count("yes"), tally.count("no"), tally.count("not settled"))), "",
            "*ours* is computed over all the seeds' runs; *seeds* counts the seeds whose runs alone agree "
            "with the paper; *over resampled seeds* is the 5th–95th percentile of *ours* over %d resamples "
            "of the seeds with replacement, and *holds in resamples* the share of them in which the claim "
            "holds.  A claim that neither holds nor misses in 95%% of them is not settled by this many "
            "seeds: another study of the same seeds may turn it." % BOOTSTRAP]
    cols, twin_cells, twin_note = "", lambda t: "", lambda t: ""
    if twin:
        # The simulator twin: the same workloads on the flow-level model, over the emulator's
        # seeds and over all of its own (the section "The emulator beside its simulator twin").
        same = {t: (o, h) for t, o, _, h in claims(set(seeds), twin)}
        every = {t: (o, h) for t, o, _, h in claims(None, twin)}
        tboot = resample_claims(twin, twin.seeds())
        def cell(d, t, b=None):
            return "—" if t not in d else "%.3f %s%s" % (d[t][0], yes(d[t][1]), " (%s)" % share(b, t) if b else "")
        twin_cells = lambda t: " %s | %s |" % (cell(same, t), cell(every, t, tboot))
        twin_note = lambda t: "; the simulator over its %d seeds: %s" % (len(twin.seeds()), cell(every, t, tboot))
        cols = " simulator, same seeds | simulator, %d seeds (holds in resamples) |" % len(twin.seeds())
        nsim = sum(h for _, h in every.values())
        tt = [settled(tboot, t) for t in every]
        head[-1] += ("  The last two columns are the simulator twin's (%d of %d hold over its %d seeds; over "
                     "their resamples %d hold, %d miss, %d not settled)." % (
                         nsim, len(every), len(twin.seeds()), tt.count("yes"), tt.count("no"), tt.count("not settled")))
    head += ["", "| paper's claim | ours | paper | holds | seeds | over resampled seeds | holds in resamples |" + cols,
             "|---|---|---|---|---|---|---|" + "---|" * cols.count("|")]
    head += ["| %s | %.3f | %s | %s | %s | %s | %s |%s" % (t, o, p, yes(h), agree(t), spread(t), share(boot, t),
                                                         twin_cells(t))
             for t, o, p, h in verdicts]
    at = lines.index("## Batch (Figs. 4.13, 4.14)")
    unsettled = {t: "over resampled seeds %s, holding in %s%s" % (spread(t), share(boot, t), twin_note(t))
                 for t, _, _, h in verdicts if not h and settled(boot, t) == "not settled"}
    lines[at:at] = head + [""] + differences(verdicts, unsettled)

# The emulator beside its simulator twin: the same workload, scenario and system on both
# backends, run by run.  Where they agree, the twin's many seeds say what the emulator's few
# cannot (a ratio within a few percent of 1 moves by more than that from seed to seed).
def run_measure(sc, s, jobs):
    return s["makespan_s"] if sc == "batch" else med(jcts(jobs))
if twin:
    twin_runs = {name: (s, jobs) for rs in twin.runs.values() for name, s, jobs in rs}
    # A twin only where both runs recorded the same setup (a run of another --jobs is no twin).
    twin_runs = {name: r for rs in runs.values() for name, s, _ in rs for r in [twin_runs.get(name)]
                 if r and setup_of(r[0]) == setup_of(s)}
    measures = (("batch", "makespan"), ("online", "median JCT"), ("mixed", "median JCT"))
    trows, every = [], []
    for sc, what in measures:
        cells = []
        for sysn in SYSTEMS:
            rs = [r for r in study.pick(sc, sysn) if r[0] in twin_runs]
            q = [run_measure(sc, s, jobs) / run_measure(sc, *twin_runs[name]) for name, s, jobs in rs]
            every += q
            cells.append("%.2f (%.2f–%.2f)" % (mean(q), min(q), max(q)) if q else "—")
        trows.append("| %s | %s | %s |" % (sc, what, " | ".join(cells)))
    if every:
        dev = sorted(abs(q - 1) for q in every)
        lines += ["## The emulator beside its simulator twin", "",
                  "The same runs (workload, seed, scenario, system) on the flow-level simulator "
                  "(`--backend sim`, `%s`): the emulator's value over the simulator's, mean over the seeds "
                  "(lowest–highest).  Over all %d pairs the two differ by %.0f%% in the median, %.0f%% at "
                  "most.  %d seed(s) are too few for a ratio within ~10%% of 1: one seed moves it by more.  The "
                  "simulator takes about a second a run, so the twin adds the seeds the emulator cannot "
                  "afford (%d: the direction table's last columns); this table shows how closely it follows "
                  "the emulator run by run." % (shown(twin_res), len(every), 100 * med(dev), 100 * dev[-1],
                                                        len(study.seeds()), len(twin.seeds())), "",
                  "| scenario | measure | " + " | ".join(SYSTEMS) + " |", "|---|---|" + "---|" * len(SYSTEMS)]
        lines += trows + [""]

# Fidelity of every run
tally = {}
for key in runs:
    for name, s, _ in runs[key]:
        v = s["fidelity"]["verdict"]
        tally[v] = tally.get(v, 0) + 1
def saturated(fd):
    """The share of a run's monitor samples (one a second) with every CPU over 95% busy."""
    return fd.get("cpu_saturated_samples", 0) / fd["samples"] if fd.get("samples") else 0.0
lines += ["## Fidelity of every run", "",
          "%d runs: %s." % (sum(tally.values()), ", ".join("%d %s" % (n, v) for v, n in sorted(tally.items())))]
# A run is machine-limited when the CPUs are saturated in over half its seconds; below that,
# its busiest seconds still slow its flows, and the systems that move many flows at once lose
# the most (FINDINGS, twenty-fifth session).
hot = {sysn: [saturated(s["fidelity"]) for (_, sy), rs in runs.items() if sy == sysn for _, s, _ in rs]
       for sysn in SYSTEMS}
any_hot = any(v for vs in hot.values() for v in vs)   # a simulated study has no CPU to saturate
if any_hot:
    lines += ["", "*CPU saturated*: the share of a run's seconds in which every CPU was over 95% busy; "
              "mean over each system's runs: " + ", ".join("%s %.0f%%" % (sysn, 100 * mean(v))
                                                           for sysn, v in hot.items() if v) + ".  Those "
              "seconds slow the emulated flows; the systems with the most flows at once lose the most."]
# Node-local maps are all compute: the time they take past it is the machine's lag (emu/results.c).
late = {sysn: [s["fidelity"]["task_lateness"]["mean_s"] for (_, sy), rs in runs.items() if sy == sysn
               for _, s, _ in rs if "task_lateness" in s["fidelity"]] for sysn in SYSTEMS}
any_late = any(late.values())   # summaries from before the measure have none
if any_late:
    lines += ["", "*Maps late*: how long node-local maps took past their compute time, mean (ms), and as a "
              "share of it.  No network moves their bytes, so it is the agents' and the controller's lag in "
              "waking up.  Mean over each system's runs: " + ", ".join("%s %.0f ms" % (sysn, 1e3 * mean(v))
                                                                      for sysn, v in late.items() if v) + "."]
def late_cell(fd):
    tl = fd.get("task_lateness")
    return " %.0f ms (%.1f%%) |" % (1e3 * tl["mean_s"], 100 * tl["share_of_compute"]) if tl else " — |"
# A first SYN's 1 s timeout does not stretch in slow motion (README, "Slow motion"); the emulator's
# summaries since ee65cb8 count the SYNs the servers sent again.
def syn_cell(s):
    tcp = s.get("emu", {}).get("tcp")
    return " %d |" % tcp["syn_retransmits"] if tcp else " — |"
any_tcp = any("tcp" in s.get("emu", {}) for rs in runs.values() for _, s, _ in rs)
if any_tcp:
    lines += ["", "*SYNs sent again*: the SYNs the servers sent again after TCP's 1 s timeout, which does "
              "not stretch in slow motion: at `--slowdown K` each cost the run 1/K s instead of 1 s."]
cols = [c for c, on in ((("CPU saturated", lambda s: " %.0f%% |" % (100 * saturated(s["fidelity"]))), any_hot),
                        (("maps late", lambda s: late_cell(s["fidelity"])), any_late),
                        (("SYNs sent again", syn_cell), any_tcp)) if on]
lines += ["", "| run | verdict |%s detail |" % "".join(" %s |" % t for t, _ in cols),
          "|---|---|%s---|" % ("---|" * len(cols))]
for key in sorted(runs):
    for name, s, _ in runs[key]:
        lines.append("| %s | %s |%s %s |" % (name, s["fidelity"]["verdict"], "".join(f(s) for _, f in cols),
                                             s["fidelity"].get("detail", "")))
lines.append("")
with open(os.path.join(out, "REPORT.md"), "w") as f:
    f.write("\n".join(lines))
print("\n".join(lines[:40]))
