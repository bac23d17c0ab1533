#!/usr/bin/env python3
"""Chapter 4 at GENI scale (the emulated study, its simulator twin, or `run.sh --backend sim
--scale geni`): the runs RESULTS/<scheduler>/<scenario>-<system>-s<seed>/ into OUT/REPORT.md,
tables of our numbers beside the dissertation's, each table also a CSV in OUT, and the CSVs
plots.gp draws.

    report.py RESULTS OUT [--twin SIM_RESULTS] [--plans DIR]
    report.py --sim RESULTS OUT [REPORT.md]     the paper-scale simulation study (report_sim.py)

JobPacker's plans (<run>.plan, its option plan_log) are read from --plans, by default OUT,
where run.sh writes them; without them the plan tables are left out."""
import os, random, re, sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tables import (SYSTEMS, MISSING, Table, clean, div, fmt, jcts, mean, median, ok, run_csv, setup_table, share,
                    shown, span, summaries)

if len(sys.argv) > 1 and sys.argv[1] == "--sim":
    import report_sim
    report_sim.main(sys.argv[2:])
    sys.exit(0)


def usage():
    sys.exit("usage: report.py RESULTS OUT [--twin SIM_RESULTS] [--plans DIR]  |  "
             "report.py --sim RESULTS OUT [REPORT.md]")


args, opts = [], {}
argv = sys.argv[1:]
while argv:
    a = argv.pop(0)
    if a in ("--twin", "--plans"):
        if not argv:
            usage()
        opts[a] = argv.pop(0)
    elif a.startswith("-"):
        usage()
    else:
        args.append(a)
if len(args) != 2:
    usage()
res, out = args
twin_res, plans = opts.get("--twin"), opts.get("--plans", out)
os.makedirs(out, exist_ok=True)
clean(out, ("setup", "left_out", "tally", "claims", "batch", "plan", "classes", "placement", "fetch", "online",
            "phases", "load", "mixed", "mixed_seeds", "sensitivity", "twin", "twin_summary", "verdicts",
            "fidelity_systems", "fidelity"))
BOOTSTRAP = 400   # resamples of the seeds behind the intervals


def seed_of(name):
    return int(re.search(r"-s(\d+)$", name).group(1))


class Study:
    """The runs under one results root: (scenario, system) -> [(name, summary, jobs rows)], the
    partial runs left out, and per scenario the seeds whose runs are complete for every system
    run in it (a ratio between two systems compares the same workloads)."""

    def __init__(self, root, quiet=False):
        self.root, self.runs, self.left_out, self.complete = root, {}, [], {}
        for name, sc, sysn, _, s, jobs in summaries(root):
            if jobs is None:
                if not quiet:
                    print("skipping %s: partial (%s)" % (name, s.get("stop_reason")), file=sys.stderr)
                self.left_out.append((name, s))
                continue
            self.runs.setdefault((sc, sysn), []).append((name, s, jobs))
        self.by_seed = {}   # (scenario, system) -> seed -> [runs]: pick's index
        for (sc, sysn), rs in self.runs.items():
            rs.sort(key=lambda r: seed_of(r[0]))
            have = {seed_of(n) for n, _, _ in rs}
            self.complete[sc] = self.complete.get(sc, have) & have
            for r in rs:
                self.by_seed.setdefault((sc, sysn), {}).setdefault(seed_of(r[0]), []).append(r)

    def pick(self, sc, sysn, seeds=None):
        """The runs of a scenario and system, of its complete seeds: all of them, or those in
        `seeds` (an int: one seed; a list may name a seed more than once, a bootstrap resample:
        its runs then count that many times)."""
        idx, complete = self.by_seed.get((sc, sysn), {}), self.complete.get(sc, ())
        if seeds is None:
            return [r for sd in sorted(idx) if sd in complete for r in idx[sd]]
        return [r for sd in ([seeds] if isinstance(seeds, int) else seeds) if sd in complete for r in idx.get(sd, ())]

    def seeds(self):
        return sorted({seed_of(n) for rs in self.runs.values() for n, _, _ in rs})

    def all_runs(self):
        return [(sc, sysn, name, s, jobs) for (sc, sysn), rs in sorted(self.runs.items()) for name, s, jobs in rs]


SETUP_KEYS = ("topology", "scheduler", "slowstart", "data_scale", "time_scale", "min_shuffle_bytes", "max_maps",
              "ocs_reconfig", "ocs_interval_s", "ocs_delta_s", "ocs_mode", "copiers", "elephant_bytes")


def setup_of(s, seed=True):
    """What makes two runs the same run on two backends (with seed=False: the same setup)."""
    p = s.get("parameters", {})
    wl = p.get("workload", "")
    return tuple(p.get(k) for k in SETUP_KEYS) + (s.get("jobs"), wl.split(",")[0].split(":")[0] if not seed else wl)


study = Study(res)
runs = study.runs
twin = Study(twin_res, quiet=True) if twin_res and os.path.isdir(twin_res) else None
if twin:
    # The twin's runs must all have this study's setup, or its columns would compare others.
    def setups(st):
        return {setup_of(s, seed=False) for rs in st.runs.values() for _, s, _ in rs}
    if not twin.runs or not setups(twin) <= setups(study):
        print("report.py: %s: not the emulator's setup; no twin columns" % twin_res, file=sys.stderr)
        twin = None


def tasks_of(root, name):
    """A run's tasks.csv rows, and its containers: one per server on GENI (the servers used)."""
    ts = run_csv(root, name, "tasks.csv")
    return ts, len({t["server"] for t in ts if t["server"] != "-1"})


def compute_bound(name):
    """The makespan no scheduler can beat: every task's compute time (the workload's, the same
    under every system) spread over the containers."""
    ts, slots = tasks_of(res, name)
    return div(sum(float(t["duration_s"]) for t in ts), slots)


def per_system(sc, seeds, f, st):
    """f(runs) for every system with runs of scenario sc in study st (all seeds', or those in
    `seeds`)."""
    return {sysn: f(rs) for sysn in SYSTEMS for rs in [st.pick(sc, sysn, seeds)] if rs}


def batch_view(seeds=None, st=study):
    """Per system: mean makespan and mean OCS share of its batch runs."""
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
        median([j for _, _, jobs in rs for j in jcts(jobs, lambda r: r["recurring"] == rec)]) for rec in "10"), st)


def claims(seeds=None, st=study):
    """Every checked claim of Chapter 4 as (id, claim, ours, paper, holds), from all the runs of
    study st or from those of `seeds` (an int: one seed); a claim whose systems were not run, or
    whose number cannot be computed, is left out."""
    out = []

    def claim(cid, text, ours, paper, holds):
        if ok(ours):
            out.append((cid, text, ours, paper, bool(holds)))

    def have(d, *names):
        return all(n in d and ok(d[n]) for n in names)
    b = batch_view(seeds, st)
    mk = {k: v[0] for k, v in b.items()}
    sh = {k: v[1] for k, v in b.items()}
    if have(mk, "JobPacker", "F-Hybrid"):
        r = div(mk["JobPacker"], mk["F-Hybrid"])
        claim("batch_fhybrid", "batch makespan: JobPacker < F-Hybrid", r, "0.51", ok(r) and r < 1)
    if have(mk, "JobPacker", "Corral"):
        r = div(mk["JobPacker"], mk["Corral"])
        claim("batch_corral", "batch makespan: JobPacker < Corral (ratio JobPacker / Corral)", r, "0.67",
              ok(r) and r < 1)
    if have(mk, "JobPacker", "F-EPS"):
        r = div(mk["JobPacker"], mk["F-EPS"])
        claim("batch_feps", "batch makespan: JobPacker within 5% of F-EPS (ratio JobPacker / F-EPS)", r,
              "0.95-1.05", ok(r) and abs(r - 1) <= 0.05)
    if have(sh, "JobPacker"):
        claim("batch_ocs", "batch: most of JobPacker's cross-rack bytes on circuits (OCS share)", sh["JobPacker"],
              "0.96", sh["JobPacker"] > 0.5)
    if have(sh, "JobPacker", "F-Hybrid"):
        claim("batch_ocs_fhybrid", "batch OCS share: JobPacker > F-Hybrid (ratio, F-Hybrid's share floored at 1%)",
              sh["JobPacker"] / max(sh["F-Hybrid"], 0.01), "120", sh["JobPacker"] > sh["F-Hybrid"])
    o = online_view(seeds, st)
    om = {k: median(v[0]) for k, v in o.items()}
    osh = {k: v[1] for k, v in o.items()}
    for cid, other, text, paper, holds in (
            ("online_fhybrid", "F-Hybrid", "online median JCT: JobPacker < F-Hybrid", "0.58", lambda r: r < 1),
            ("online_corral", "Corral", "online median JCT: JobPacker < Corral (ratio JobPacker / Corral)", "0.73",
             lambda r: r < 1),
            ("online_feps", "F-EPS", "online median JCT: JobPacker close to F-EPS (ratio JobPacker / F-EPS, within 10%)",
             "≈1", lambda r: abs(r - 1) <= 0.1)):
        if have(om, "JobPacker", other):
            r = div(om["JobPacker"], om[other])
            claim(cid, text, r, paper, ok(r) and holds(r))
    if have(osh, "JobPacker", "F-Hybrid", "Corral"):
        claim("online_ocs", "online OCS share: JobPacker much higher than F-Hybrid and Corral", osh["JobPacker"],
              "much higher", osh["JobPacker"] > 2 * max(osh["F-Hybrid"], osh["Corral"], 0.01))
    m = mixed_view(seeds, st)
    for k, what, key in ((0, "recurring", "rec"), (1, "ad-hoc", "adhoc")):
        mc = {n: v[k] for n, v in m.items()}
        for other, paper in (("F-Hybrid", ("0.61", "0.63")), ("Corral", ("0.74", "0.71"))):
            if have(mc, "JobPacker", other):
                r = div(mc["JobPacker"], mc[other])
                claim("mixed_%s_%s" % (key, other.lower().replace("-", "")),
                      "mixed, %s median JCT: JobPacker < %s%s" % (what, other, " (ratio)" if other == "Corral" else ""),
                      r, paper[k], ok(r) and r < 1)
    return out


def interval(xs):
    """The 5th and 95th percentile of the numbers xs, (None, None) if there are none."""
    xs = sorted(x for x in xs if ok(x))
    if not xs:
        return None, None
    return xs[int(0.05 * (len(xs) - 1))], xs[int(round(0.95 * (len(xs) - 1)))]


def resampled(view, sc):
    """system -> (5th, 95th percentile) of view(seeds) (a dict system -> number) over resamples
    of scenario sc's seeds; the value itself where there is one seed."""
    seeds = sorted(study.complete.get(sc, ()))
    draw, got = random.Random(2), {}
    for _ in range(BOOTSTRAP if len(seeds) > 1 else 1):
        for k, v in view([draw.choice(seeds) for _ in seeds] if len(seeds) > 1 else seeds).items():
            if ok(v):
                got.setdefault(k, []).append(v)
    return {k: interval(xs) for k, xs in got.items()}


def normalised(view, k=None):
    """A view of seeds -> system -> number, divided by F-Hybrid's (the k-th item of tuples)."""
    def f(seeds):
        d = view(seeds)
        if k is not None:
            d = {n: v[k] for n, v in d.items()}
        return {n: div(v, d.get("F-Hybrid")) for n, v in d.items()}
    return f


def yes(h):
    return MISSING if h is None else "yes" if h else "**no**"


lines = ["# JobPacker, Corral, F-Hybrid and F-EPS at GENI scale (Figs. 4.13–4.16, 4.19)", "",
         "Generated by `experiments/jobpacker/report.py` from the runs in `%s`%s." % (
             shown(res), " and its simulator twin in `%s`" % shown(twin_res) if twin else ""), "",
         "Ratios and normalised values divide JobPacker's (or the row's system's) number by the other "
         "system's, over the same seeds; the paper's numbers are the dissertation's (§4.3.3, §4.3.4.2). "
         "\"–\": not computable from these runs. What each column means: `experiments/jobpacker/README.md`; "
         "why numbers differ from the paper's: `docs/reproduction.md`.", ""]

def section(title, table=None):
    lines.extend(["## " + title, ""])
    if table is not None:
        table.emit(lines, out)


section("Setup, as the runs recorded it", setup_table((sc, n, s) for sc, n, _, s, _ in study.all_runs()))

if study.left_out:
    t = Table("left_out", [("run", "run", None), ("stop reason", "stop_reason", None),
                           ("jobs finished", "jobs_finished", None), ("jobs", "jobs", None)])
    for name, s in study.left_out:
        t.add(run=name, stop_reason=s.get("stop_reason") or "stopped", jobs_finished=s.get("jobs_finished"),
              jobs=s.get("jobs"))
    section("Runs left out (partial; the other systems' runs of their scenario and seed are left out too)", t)

# ---- the direction of every claim: over all the seeds, per seed, and over resamples of the seeds
verdicts = claims()
if verdicts:
    seeds = study.seeds()
    per_seed = [{c[0]: c[4] for c in claims(sd)} for sd in seeds]

    def resample_claims(st, seeds):
        """claim id -> ([numbers], [holds]) over BOOTSTRAP resamples of `seeds` in study st (a
        fixed draw: the report is reproducible); {} for one seed."""
        draw, boot = random.Random(1), {}
        for _ in range(BOOTSTRAP if len(seeds) > 1 else 0):
            for cid, _, o, _, h in claims([draw.choice(seeds) for _ in seeds], st):
                boot.setdefault(cid, ([], []))
                boot[cid][0].append(o)
                boot[cid][1].append(h)
        return boot

    def support(b, cid):
        hs = b.get(cid, ([], []))[1]
        return sum(hs) / len(hs) if hs else None

    def settled(b, cid):
        """'yes' or 'no' when the resamples agree in 95% or more, else 'not settled'."""
        f = support(b, cid)
        return None if f is None else "yes" if f >= 0.95 else "no" if f <= 0.05 else "not settled"

    boot = resample_claims(study, seeds)
    tboot = resample_claims(twin, twin.seeds()) if twin else {}
    same = {c[0]: c for c in claims(set(seeds), twin)} if twin else {}
    every = {c[0]: c for c in claims(None, twin)} if twin else {}

    tally = Table("tally", [("study", "study", None), ("seeds", "seeds", None), ("claims", "claims", None),
                            ("hold", "hold", None), ("hold, settled", "settled_hold", None),
                            ("miss, settled", "settled_miss", None), ("not settled", "not_settled", None)])
    def tally_row(label, st, cs, b):
        ss = [settled(b, c[0]) for c in cs]
        known = None not in ss
        tally.add(study=label, seeds=len(st.seeds()), claims=len(cs), hold=sum(c[4] for c in cs),
                  settled_hold=ss.count("yes") if known else None, settled_miss=ss.count("no") if known else None,
                  not_settled=ss.count("not settled") if known else None)
    backend = {"emu": "emulator", "sim": "simulator"}
    be = next((s.get("parameters", {}).get("backend") for _, _, _, s, _ in study.all_runs()), None)
    tally_row("this study (%s)" % backend.get(be, be), study, verdicts, boot)
    if twin:
        tally_row("simulator twin", twin, list(every.values()), tboot)
    section("Direction of the Chapter 4 results", tally)

    cols = [("paper's claim", "claim", None), (None, "id", None), ("ours", "ours", "%.3f"), ("paper", "paper", None),
            ("holds", "holds", lambda r: yes(r["holds"])),
            ("seeds holding", "seeds_holding", lambda r: "%d of %d" % (r["seeds_holding"], r["seeds"])),
            (None, "seeds", None),
            ("5th–95th pct over resampled seeds", "resampled_lo", lambda r: span(r["resampled_lo"], r["resampled_hi"])),
            (None, "resampled_hi", None),
            ("holds in resamples", "resampled_holds", lambda r: share(r["resampled_holds"], "%.0f%%")),
            ("settled", "settled", None)]
    if twin:
        cols += [("simulator, same seeds", "twin_same", "%.3f"),
                 ("holds", "twin_same_holds", lambda r: yes(r["twin_same_holds"])),
                 ("simulator, all its seeds", "twin_all", "%.3f"),
                 ("holds", "twin_all_holds", lambda r: yes(r["twin_all_holds"])),
                 ("holds in resamples", "twin_resampled_holds", lambda r: share(r["twin_resampled_holds"], "%.0f%%")),
                 ("settled", "twin_settled", None)]
    t = Table("claims", cols)
    for cid, text, o, p, h in verdicts:
        hs = [ps[cid] for ps in per_seed if cid in ps]
        lo, hi = interval(boot.get(cid, ([], []))[0])
        row = dict(id=cid, claim=text, ours=o, paper=p, holds=h, seeds_holding=sum(hs), seeds=len(hs),
                   resampled_lo=lo, resampled_hi=hi, resampled_holds=support(boot, cid), settled=settled(boot, cid))
        if twin:
            row.update(twin_same=same[cid][2] if cid in same else None,
                       twin_same_holds=same[cid][4] if cid in same else None,
                       twin_all=every[cid][2] if cid in every else None,
                       twin_all_holds=every[cid][4] if cid in every else None,
                       twin_resampled_holds=support(tboot, cid), twin_settled=settled(tboot, cid))
        t.add(**row)
    t.emit(lines, out)

# ---- batch: makespan (Fig. 4.13) and OCS share (Fig. 4.14)
PAPER_FIG = {"batch": {"JobPacker": 0.51, "F-Hybrid": 1.0, "Corral": 0.761, "F-EPS": None},
             "share": {"JobPacker": 0.96, "F-Hybrid": 0.008, "Corral": 0.16, "F-EPS": None},
             "online": {"JobPacker": 0.58, "F-Hybrid": 1.0, "Corral": 0.795, "F-EPS": None},
             "recurring": {"JobPacker": 0.61, "F-Hybrid": 1.0, "Corral": 0.82, "F-EPS": None},
             "adhoc": {"JobPacker": 0.63, "F-Hybrid": 1.0, "Corral": 0.89, "F-EPS": None}}
PAPER_TEXT = {"batch": {"F-EPS": "≈0.51 (within 5% of JobPacker)"}, "share": {"F-EPS": "– (no OCS)"},
              "online": {"F-EPS": "≈ JobPacker", "Corral": "≈0.795"},
              "mixed": {"JobPacker": "0.61 / 0.63", "F-Hybrid": "1 / 1", "Corral": "≈0.82 / 0.89",
                        "F-EPS": "≈ JobPacker"}}


def paper_cell(fig, key, spec="%.3g"):
    return lambda r: PAPER_TEXT.get(fig, {}).get(r["system"]) or fmt(r[key], spec)


b = batch_view()
base = b.get("F-Hybrid", (None,))[0]
mk_ci = resampled(normalised(batch_view, 0), "batch")
share_ci = resampled(lambda sd: {k: v[1] for k, v in batch_view(sd).items()}, "batch")
t = Table("batch", [("system", "system", None), ("makespan (s)", "makespan_s", "%.1f"), ("runs", "reps", None),
                    ("÷ F-Hybrid", "makespan_norm", "%.3f"),
                    ("5th–95th pct over resampled seeds", "norm_lo", lambda r: span(r["norm_lo"], r["norm_hi"])),
                    (None, "norm_hi", None), ("paper", "paper_norm", paper_cell("batch", "paper_norm")),
                    ("OCS share", "ocs_share", lambda r: share(r["ocs_share"])),
                    ("5th–95th pct over resampled seeds", "share_lo",
                     lambda r: "%s–%s" % (share(r["share_lo"]), share(r["share_hi"])) if ok(r["share_lo"]) else MISSING),
                    (None, "share_hi", None), ("paper", "paper_share", lambda r: PAPER_TEXT["share"].get(r["system"])
                                               or share(r["paper_share"])),
                    ("÷ compute bound", "compute_bound_ratio", "%.2f")])
for sysn, (mk, sh) in b.items():
    rs = study.pick("batch", sysn)
    lo, hi = mk_ci.get(sysn, (None, None))
    slo, shi = share_ci.get(sysn, (None, None))
    t.add(system=sysn, makespan_s=mk, reps=len(rs), makespan_norm=div(mk, base), norm_lo=lo, norm_hi=hi,
          paper_norm=PAPER_FIG["batch"][sysn], ocs_share=sh, share_lo=slo, share_hi=shi,
          paper_share=PAPER_FIG["share"][sysn],
          compute_bound_ratio=mean([div(s["makespan_s"], compute_bound(n)) for n, s, _ in rs]))
if t.rows:
    section("Batch (Figs. 4.13, 4.14)", t)


# ---- JobPacker's plan against its run: the plan (option plan_log) says when each job should end
# by Eq. 4.1; F-EPS is the yardstick of the "within 5%" claim.
def plan_of(name):
    """A run's first plan from <plans>/<run>.plan: job id -> (shuffle-heavy, planned end); {} when
    the run left none.  The plan names a job job<id>, its index in the workload (jobs.csv's `job`,
    whatever the job's name)."""
    path = os.path.join(plans, name + ".plan")
    if not os.path.exists(path):
        return {}
    plan, headers = {}, 0
    with open(path) as f:
        for line in f:
            if line.startswith("# ") and " plan: " in line:
                headers += 1
                if headers > 1:
                    break
                continue
            p = line.split()
            if len(p) >= 10 and p[0].isdigit() and re.match(r"job\d+$", p[1]) and p[3] in "01":
                plan.setdefault(p[1][3:], (p[3] == "1", float(p[7])))
    return plan


prows = []
for name, s, jobs in study.pick("batch", "JobPacker"):
    plan, feps = plan_of(name), study.pick("batch", "F-EPS", seed_of(name))
    if not plan or not feps:
        continue
    late = {sh: [float(r["end_s"]) - plan[r["job"]][1] for r in jobs
                 if r["finished"] == "1" and r["job"] in plan and plan[r["job"]][0] == sh] for sh in (True, False)}
    prows.append((seed_of(name), max(e for _, e in plan.values()), s["makespan_s"], feps[0][1]["makespan_s"],
                  late[True], late[False]))
if prows:
    t = Table("plan", [("seed", "seed", None), ("plan (s)", "plan_s", "%.2f"), ("run (s)", "run_s", "%.2f"),
                       ("run ÷ plan", "run_over_plan", "%.3f"), ("F-EPS (s)", "feps_s", "%.2f"),
                       ("plan ÷ F-EPS", "plan_over_feps", "%.3f"), ("run ÷ F-EPS", "run_over_feps", "%.3f"),
                       ("late, shuffle-heavy jobs (s)", "late_heavy_s", "%.2f"),
                       ("late, other jobs (s)", "late_other_s", "%.2f")])
    for sd, pm, rm, fm, lh, lo in sorted(prows):
        t.add(seed=sd, plan_s=pm, run_s=rm, run_over_plan=div(rm, pm), feps_s=fm, plan_over_feps=div(pm, fm),
              run_over_feps=div(rm, fm), late_heavy_s=median(lh), late_other_s=median(lo))
    pm, rm, fm = (sum(r[i] for r in prows) for i in (1, 2, 3))
    t.add(seed="all", plan_s=pm, run_s=rm, run_over_plan=div(rm, pm), feps_s=fm, plan_over_feps=div(pm, fm),
          run_over_feps=div(rm, fm), late_heavy_s=median([x for r in prows for x in r[4]]),
          late_other_s=median([x for r in prows for x in r[5]]))
    section("Batch: JobPacker's plan (Eq. 4.1) against its run", t)


# ---- JobPacker's cross-rack shuffle bytes by the class its plan gives their job: only the jobs
# planned shuffle-heavy are aggregated for circuits.
def classes(name, jobs):
    """A JobPacker run's cross-rack shuffle bytes: (in jobs planned shuffle-heavy, in the other
    planned jobs, in jobs its plan does not list, circuit-eligible of the first, of the second),
    or None without a plan or flows."""
    plan, fl = plan_of(name), run_csv(res, name, "flows.csv")
    if not plan or not fl:
        return None
    v = [0] * 5
    for r in fl:
        if r["kind"] != "shuffle" or r["src_rack"] == r["dst_rack"]:
            continue
        n, el = int(r["bytes"]), r["circuit_eligible"] == "1"
        c = plan.get(r["job"])
        k = 2 if c is None else 0 if c[0] else 1
        v[k] += n
        if k < 2 and el:
            v[3 + k] += n
    return v


crows = [(seed_of(n), s, c) for n, s, jobs in study.pick("batch", "JobPacker") for c in [classes(n, jobs)] if c]
if crows:
    t = Table("classes", [("seed", "seed", None), ("cross-rack shuffle (GB)", "cross_rack_shuffle_bytes",
                                                     lambda r: fmt(div(r["cross_rack_shuffle_bytes"], 1e9), "%.2f")),
                          ("in shuffle-heavy jobs", "heavy_share", lambda r: share(r["heavy_share"])),
                          ("in other jobs", "other_share", lambda r: share(r["other_share"])),
                          ("in jobs not in the plan", "unplanned_share", lambda r: share(r["unplanned_share"])),
                          ("circuit-eligible, shuffle-heavy jobs", "heavy_eligible", lambda r: share(r["heavy_eligible"])),
                          ("circuit-eligible, other jobs", "other_eligible", lambda r: share(r["other_eligible"])),
                          ("OCS share of the run", "ocs_share", lambda r: share(r["ocs_share"]))])
    def crow(seed, v, ocs):
        tot = sum(v[:3])
        t.add(seed=seed, cross_rack_shuffle_bytes=tot, heavy_share=div(v[0], tot), other_share=div(v[1], tot),
              unplanned_share=div(v[2], tot), heavy_eligible=div(v[3], v[0]), other_eligible=div(v[4], v[1]),
              ocs_share=ocs)
    for sd, s, v in sorted(crows, key=lambda x: x[0]):
        crow(sd, v, s["ocs_share"])
    crow("all", [sum(c[2][i] for c in crows) for i in range(5)], mean([s["ocs_share"] for _, s, _ in crows]))
    section("Batch: JobPacker's cross-rack shuffle bytes by the class its plan gives their job", t)


# ---- where each system's batch jobs ran: how many in one rack, and how much shuffle crossed racks
def placement(rs):
    """Over runs rs: (jobs with tasks, jobs all in one rack, shuffle bytes, of them cross-rack);
    None without tasks."""
    one = n = cross = total = 0
    have_flows = False
    for name, _, _ in rs:
        ts = tasks_of(res, name)[0]
        if not ts:
            return None
        racks = {}
        for t_ in ts:
            if t_["rack"] != "-1":
                racks.setdefault(t_["job"], set()).add(t_["rack"])
        one += sum(len(v) == 1 for v in racks.values())
        n += len(racks)
        fl = run_csv(res, name, "flows.csv")
        have_flows = have_flows or bool(fl)
        for r in fl:
            if r["kind"] == "shuffle":
                total += int(r["bytes"])
                cross += int(r["bytes"]) if r["src_rack"] != r["dst_rack"] else 0
    return n, one, total if have_flows else None, cross if have_flows else None


pl = per_system("batch", None, placement, study)
if any(pl.values()):
    t = Table("placement", [("system", "system", None), ("jobs", "jobs", None),
                            ("jobs in one rack", "one_rack_share", lambda r: share(r["one_rack_share"], "%.0f%%")),
                            (None, "one_rack_jobs", None), (None, "shuffle_bytes", None), (None, "cross_rack_shuffle_bytes", None),
                            ("shuffle bytes across racks", "cross_rack_share", lambda r: share(r["cross_rack_share"])),
                            ("OCS share", "ocs_share", lambda r: share(r["ocs_share"]))])
    for sysn, v in pl.items():
        if v:
            t.add(system=sysn, jobs=v[0], one_rack_jobs=v[1], one_rack_share=div(v[1], v[0]), shuffle_bytes=v[2],
                  cross_rack_shuffle_bytes=v[3], cross_rack_share=div(v[3], v[2]), ocs_share=b[sysn][1])
    section("Batch: where the jobs ran", t)

# ---- where the batch's fetches spend their time (summary.json's fetch_time)
FETCH_CLASSES = (("in_rack", "in a rack"), ("eps", "over the EPS"), ("circuit_eligible", "circuit-eligible"))


def fetch_times(rs):
    """Per fetch class over the runs: (fetches, mean wait, mean move), or None."""
    if not all("fetch_time" in s for _, s, _ in rs):
        return None
    v = {}
    for k, _ in FETCH_CLASSES:
        fs = [s["fetch_time"][k] for _, s, _ in rs]
        n = sum(f["fetches"] for f in fs)
        v[k] = (n, div(sum(f["fetches"] * f["wait_mean_s"] for f in fs), n),
                div(sum(f["fetches"] * f["move_mean_s"] for f in fs), n))
    return v


ft = per_system("batch", None, fetch_times, study)
if ft and all(ft.values()):
    cols = [("system", "system", None)]
    for k, label in FETCH_CLASSES:
        cols += [("%s: wait / move (s) (fetches)" % label, k + "_fetches",
                  lambda r, k=k: "%s / %s (%d)" % (fmt(r[k + "_wait_s"]), fmt(r[k + "_move_s"]), r[k + "_fetches"])
                  if r[k + "_fetches"] else MISSING),
                 (None, k + "_wait_s", None), (None, k + "_move_s", None)]
    t = Table("fetch", cols)
    for sysn, v in ft.items():
        row = {"system": sysn}
        for k, _ in FETCH_CLASSES:
            row.update({k + "_fetches": v[k][0], k + "_wait_s": v[k][1], k + "_move_s": v[k][2]})
        t.add(**row)
    section("Batch: where the shuffle fetches spend their time", t)

# ---- online: JCT CDF and median (Figs. 4.15, 4.16)
o = online_view()
base = median(o["F-Hybrid"][0]) if "F-Hybrid" in o else None
med_ci = resampled(normalised(lambda sd: {k: median(v[0]) for k, v in online_view(sd).items()}), "online")
t = Table("online", [("system", "system", None), ("median JCT (s)", "median_jct_s", "%.2f"),
                     ("mean JCT (s)", "mean_jct_s", "%.2f"), ("OCS share", "ocs_share", lambda r: share(r["ocs_share"])),
                     ("median ÷ F-Hybrid", "median_norm", "%.3f"),
                     ("5th–95th pct over resampled seeds", "norm_lo", lambda r: span(r["norm_lo"], r["norm_hi"])),
                     (None, "norm_hi", None), ("paper", "paper_norm", paper_cell("online", "paper_norm")),
                     ("runs", "reps", None), ("jobs", "jobs", None)])
for sysn, (all_j, sh) in o.items():
    with open(os.path.join(out, "cdf_%s.csv" % sysn), "w") as f:
        for i, v in enumerate(all_j):
            f.write("%.3f %.4f\n" % (v, (i + 1) / len(all_j)))
    lo, hi = med_ci.get(sysn, (None, None))
    t.add(system=sysn, median_jct_s=median(all_j), mean_jct_s=mean(all_j), ocs_share=sh,
          median_norm=div(median(all_j), base), norm_lo=lo, norm_hi=hi, paper_norm=PAPER_FIG["online"][sysn],
          reps=len(study.pick("online", sysn)), jobs=len(all_j))
if t.rows:
    section("Online (Figs. 4.15, 4.16)", t)


# ---- where an online job's time goes: waiting for its first container, its map phase, its
# shuffle and its last reduce
def phases(rs):
    """Over the runs' finished jobs: how many, and medians in seconds of the wait (arrival to
    first container), its 90th percentile, the map phase (first container to last map end), the
    shuffle (last map end to the start of the last reduce's compute: its fetches done), the
    reduce (that to the job's end) and the run (first container to end)."""
    w, m, sh, rd, run = [], [], [], [], []
    for name, _, jobs in rs:
        ts, _ = tasks_of(res, name)
        last_map, last_red = {}, {}
        for t_ in ts:
            if not t_["end_s"]:
                continue
            end = float(t_["end_s"])
            if t_["kind"] == "map":
                last_map[t_["job"]] = max(last_map.get(t_["job"], 0.0), end)
            else:
                last_red[t_["job"]] = max(last_red.get(t_["job"], 0.0), end - float(t_["duration_s"]))
        for r in jobs:
            if r["finished"] != "1" or r["job"] not in last_map:
                continue
            start, end, me = float(r["start_s"]), float(r["end_s"]), last_map[r["job"]]
            red_start = last_red.get(r["job"], me)
            w.append(float(r["start_s"]) - float(r["submit_s"]))
            m.append(me - start)
            sh.append(max(0.0, red_start - me))
            rd.append(end - max(red_start, me))
            run.append(end - start)
    w.sort()
    return (len(w), median(w), w[int(0.9 * (len(w) - 1))] if w else None, median(m), median(sh), median(rd),
            median(run))


wr = {k: v for k, v in per_system("online", None, phases, study).items() if v[0]}
if wr:
    t = Table("phases", [("system", "system", None), ("jobs", "jobs", None), ("wait, median (s)", "wait_s", "%.2f"),
                         ("wait, 90th pct (s)", "wait_p90_s", "%.2f"), ("maps (s)", "maps_s", "%.2f"),
                         ("shuffle (s)", "shuffle_s", "%.2f"), ("reduce (s)", "reduce_s", "%.2f"),
                         ("run (s)", "run_s", "%.2f")])
    for sysn, v in wr.items():
        t.add(system=sysn, jobs=v[0], wait_s=v[1], wait_p90_s=v[2], maps_s=v[3], shuffle_s=v[4], reduce_s=v[5],
              run_s=v[6])
    section("Online: where the time goes (medians over the finished jobs)", t)


# ---- the online scenario at other arrival rates (run.sh's load sweep: this study's runs, then its
# simulator twin's)
def busy_share(root, name, makespan):
    """The share of the containers' time the run's tasks held them."""
    ts, slots = tasks_of(root, name)
    busy = sum(float(t_["end_s"]) - float(t_["start_s"]) for t_ in ts if t_["start_s"] and t_["end_s"])
    return div(busy, slots * makespan) if slots else None


def load_view(st):
    """Per arrival rate (x GENI's; 1 = the online scenario): per system, the median of its pooled
    JCTs; F-EPS's mean busy share; JobPacker's runs."""
    rates = {float(sc[4:]): sc for sc, _ in st.runs if re.match(r"load[0-9.]+$", sc)}
    if not rates:
        return []
    rates[1.0] = "online"
    rows = []
    for rate in sorted(rates, reverse=True):
        sc = rates[rate]
        md = {sysn: median(v[0]) for sysn, v in online_view(None, st, sc).items()}
        busy = mean([busy_share(st.root, name, s["makespan_s"]) for name, s, _ in st.pick(sc, "F-EPS")])
        rows.append((rate, busy, md, len(st.pick(sc, "JobPacker"))))
    return rows


def backend_of(st):
    return next((s.get("parameters", {}).get("backend") for rs in st.runs.values() for _, s, _ in rs), None)


lsrc = [(backend_of(st), rows) for st in (study, twin) if st for rows in [load_view(st)] if rows]
if lsrc:
    names = {"emu": "emulator", "sim": "simulator"}
    cols = [("backend", "backend", lambda r: names.get(r["backend"], r["backend"])),
            ("arrival rate (× GENI's)", "rate", "%g"), ("JobPacker runs", "runs", None),
            ("F-EPS busy", "feps_busy_share", lambda r: share(r["feps_busy_share"], "%.0f%%"))]
    cols += [(None, "median_jct_%s" % sysn, None) for sysn in SYSTEMS]
    cols += [("JobPacker median JCT (s)", None, lambda r: fmt(r["median_jct_JobPacker"], "%.2f")),
             ("JobPacker ÷ F-EPS", "jp_over_feps", "%.3f"), ("JobPacker ÷ F-Hybrid", "jp_over_fhybrid", "%.3f"),
             ("JobPacker ÷ Corral", "jp_over_corral", "%.3f"), ("F-EPS ÷ F-Hybrid", "feps_over_fhybrid", "%.3f"),
             ("Corral ÷ F-Hybrid", "corral_over_fhybrid", "%.3f")]
    t = Table("load", cols)
    for be, rows in lsrc:
        for rate, busy, md, n in rows:
            def r_(a, b_):
                return div(md.get(a), md.get(b_))
            row = dict(backend=be, rate=rate, runs=n, feps_busy_share=busy, jp_over_feps=r_("JobPacker", "F-EPS"),
                       jp_over_fhybrid=r_("JobPacker", "F-Hybrid"), jp_over_corral=r_("JobPacker", "Corral"),
                       feps_over_fhybrid=r_("F-EPS", "F-Hybrid"), corral_over_fhybrid=r_("Corral", "F-Hybrid"))
            row.update({"median_jct_%s" % sysn: md.get(sysn) for sysn in SYSTEMS})
            t.add(**row)
    section("Online: median JCT against the arrival rate (paper, × 1: JobPacker ≈ F-EPS, 0.58 of F-Hybrid, "
            "0.73 of Corral; F-EPS ≈ 0.58 of F-Hybrid)", t)

# ---- mixed recurring / ad hoc (Fig. 4.19)
m = mixed_view()
bases = m.get("F-Hybrid", (None, None))
mix_ci = [resampled(normalised(mixed_view, k), "mixed") for k in (0, 1)]
t = Table("mixed", [("system", "system", None), ("median JCT, recurring (s)", "median_recurring_s", "%.2f"),
                    ("median JCT, ad hoc (s)", "median_adhoc_s", "%.2f"),
                    ("recurring ÷ F-Hybrid", "norm_recurring", "%.3f"),
                    ("5th–95th pct over resampled seeds", "rec_lo", lambda r: span(r["rec_lo"], r["rec_hi"])),
                    (None, "rec_hi", None), (None, "paper_recurring", None),
                    ("ad hoc ÷ F-Hybrid", "norm_adhoc", "%.3f"),
                    ("5th–95th pct over resampled seeds", "adhoc_lo", lambda r: span(r["adhoc_lo"], r["adhoc_hi"])),
                    (None, "adhoc_hi", None), (None, "paper_adhoc", None),
                    ("paper, recurring / ad hoc", None, lambda r: PAPER_TEXT["mixed"][r["system"]]),
                    ("runs", "reps", None)])
for sysn, (mr, ma) in m.items():
    (rlo, rhi), (alo, ahi) = (mix_ci[k].get(sysn, (None, None)) for k in (0, 1))
    t.add(system=sysn, median_recurring_s=mr, median_adhoc_s=ma, norm_recurring=div(mr, bases[0]), rec_lo=rlo,
          rec_hi=rhi, paper_recurring=PAPER_FIG["recurring"][sysn], norm_adhoc=div(ma, bases[1]), adhoc_lo=alo,
          adhoc_hi=ahi, paper_adhoc=PAPER_FIG["adhoc"][sysn], reps=len(study.pick("mixed", sysn)))
if t.rows:
    section("Mixed recurring and ad-hoc jobs (Fig. 4.19)", t)
# Which half is recurring is drawn at random: a seed whose recurring half holds little of the
# shuffle leaves JobPacker little EPS load to take off the ad-hoc jobs.
if "JobPacker" in m and "F-Hybrid" in m:
    t = Table("mixed_seeds", [("seed", "seed", None),
                              ("recurring jobs' share of the shuffle bytes", "recurring_shuffle_share",
                               lambda r: share(r["recurring_shuffle_share"], "%.0f%%")),
                              ("JobPacker ÷ F-Hybrid, recurring", "jp_over_fhybrid_recurring", "%.3f"),
                              ("JobPacker ÷ F-Hybrid, ad hoc", "jp_over_fhybrid_adhoc", "%.3f")])
    for sd in sorted({seed_of(n) for n, _, _ in study.pick("mixed", "F-Hybrid")}):
        jobs = study.pick("mixed", "F-Hybrid", sd)[0][2]
        total = sum(int(r["shuffle_bytes"]) for r in jobs)
        rec = sum(int(r["shuffle_bytes"]) for r in jobs if r["recurring"] == "1")
        v = mixed_view(sd)
        t.add(seed=sd, recurring_shuffle_share=div(rec, total),
              jp_over_fhybrid_recurring=div(v["JobPacker"][0], v["F-Hybrid"][0]),
              jp_over_fhybrid_adhoc=div(v["JobPacker"][1], v["F-Hybrid"][1]))
    section("Mixed: per seed", t)

# ---- sensitivity (the emulated study's sweeps; the paper's are simulations).  The default point
# is the batch scenario's JobPacker runs of the seeds the sweep ran: one seed moves a mean by more
# than the sweep does.
srows, sseeds = [], set()
for (sc, sysn), rs in sorted(runs.items()):
    mm = re.match(r"sens-(interval|delta)(.+)$", sc)
    if mm:
        srows.append([mm.group(1), float(mm.group(2)), mean([s["makespan_s"] for _, s, _ in rs]),
                      mean([s["ocs_share"] for _, s, _ in rs]), " ".join(str(seed_of(n)) for n, _, _ in rs)])
        sseeds |= {seed_of(n) for n, _, _ in rs}
bj = sorted((r for r in runs.get(("batch", "JobPacker"), []) if seed_of(r[0]) in sseeds), key=lambda r: seed_of(r[0]))
if bj:
    at_default = [mean([s["makespan_s"] for _, s, _ in bj]), mean([s["ocs_share"] for _, s, _ in bj]),
                  " ".join(str(seed_of(n)) for n, _, _ in bj)]
    srows += [["interval", 1.0] + at_default, ["delta", 0.01] + at_default]
srows.sort(key=lambda r: (r[0], r[1]))
t = Table("sensitivity", [("parameter", "param", None), ("value", "value", "%g"), ("makespan (s)", "makespan_s", "%.1f"),
                          ("OCS share", "ocs_share", lambda r: share(r["ocs_share"])), ("seeds", "seeds", None)])
for p, v, mk, sh, sds in srows:
    t.add(param=p, value=v, makespan_s=mk, ocs_share=sh, seeds=sds)
if srows:
    section("Sensitivity of JobPacker's batch makespan (interval: OCS reconfiguration interval, s; "
            "delta: reconfiguration delay, s)", t)
else:
    t.write_csv(out)


# ---- the emulator beside its simulator twin: the same workload, scenario and system on both
# backends, run by run
def run_measure(sc, s, jobs):
    return s["makespan_s"] if sc == "batch" else median(jcts(jobs))


if twin:
    twin_runs = {name: (s, jobs) for rs in twin.runs.values() for name, s, jobs in rs}
    # A twin only where both runs recorded the same setup (a run of another --jobs is no twin).
    twin_runs = {name: r for rs in runs.values() for name, s, _ in rs for r in [twin_runs.get(name)]
                 if r and setup_of(r[0]) == setup_of(s)}
    cols = [("scenario", "scenario", None), ("measure", "measure", None)]
    for sysn in SYSTEMS:
        cols += [(sysn, sysn + "_mean", lambda r, n=sysn: "%s (%s)" % (fmt(r[n + "_mean"], "%.2f"),
                                                                   span(r[n + "_min"], r[n + "_max"], "%.2f"))
                  if r[n + "_pairs"] else MISSING),
                 (None, sysn + "_min", None), (None, sysn + "_max", None), (None, sysn + "_pairs", None)]
    t = Table("twin", cols)
    every_q = []
    for sc, what in (("batch", "makespan"), ("online", "median JCT"), ("mixed", "median JCT")):
        row = {"scenario": sc, "measure": what}
        for sysn in SYSTEMS:
            q = [div(run_measure(sc, s, jobs), run_measure(sc, *twin_runs[name]))
                 for name, s, jobs in study.pick(sc, sysn) if name in twin_runs]
            q = [x for x in q if ok(x)]
            every_q += q
            row.update({sysn + "_mean": mean(q), sysn + "_min": min(q) if q else None,
                        sysn + "_max": max(q) if q else None, sysn + "_pairs": len(q)})
        t.add(**row)
    if every_q:
        section("The emulator beside its simulator twin: this study's value ÷ the simulator's, run by run, "
                "mean (lowest–highest) over the seeds", t)
        dev = sorted(abs(x - 1) for x in every_q)
        t = Table("twin_summary", [("run pairs", "pairs", None),
                                   ("median distance of the ratio from 1", "median_deviation",
                                    lambda r: share(r["median_deviation"], "%.0f%%")),
                                   ("largest distance from 1", "max_deviation", lambda r: share(r["max_deviation"], "%.0f%%")),
                                   ("this study's seeds", "seeds", None), ("the simulator's seeds", "twin_seeds", None)])
        t.add(pairs=len(dev), median_deviation=median(dev), max_deviation=dev[-1], seeds=len(study.seeds()),
              twin_seeds=len(twin.seeds()))
        t.emit(lines, out)

# ---- fidelity of every run
allr = study.all_runs()


def saturated(fd):
    """The share of a run's monitor samples (one a second) with every CPU over 95% busy."""
    return div(fd.get("cpu_saturated_samples", 0), fd.get("samples")) if fd.get("samples") else 0.0


def lateness(s):
    return s["fidelity"].get("task_lateness")


def syns(s):
    tcp = s.get("emu", {}).get("tcp")
    return tcp["syn_retransmits"] if tcp else None


if allr:
    verdict_count = {}
    for _, _, _, s, _ in allr:
        v = s["fidelity"]["verdict"]
        verdict_count[v] = verdict_count.get(v, 0) + 1
    t = Table("verdicts", [("verdict", "verdict", None), ("runs", "runs", None)])
    for v, n in sorted(verdict_count.items()):
        t.add(verdict=v, runs=n)
    section("Fidelity of every run", t)
    any_hot = any(saturated(s["fidelity"]) for _, _, _, s, _ in allr)   # a simulated study has no CPU to saturate
    any_late = any(lateness(s) for _, _, _, s, _ in allr)              # summaries from before the measure have none
    any_tcp = any(syns(s) is not None for _, _, _, s, _ in allr)
    if any_hot or any_late:
        cols = [("system", "system", None), ("runs", "runs", None)]
        if any_hot:
            cols.append(("CPU saturated, mean", "cpu_saturated", lambda r: share(r["cpu_saturated"], "%.0f%%")))
        if any_late:
            cols.append(("maps late, mean (ms)", "maps_late_s", lambda r: fmt(r["maps_late_s"] and 1e3 * r["maps_late_s"],
                                                                               "%.0f")))
        t = Table("fidelity_systems", cols)
        for sysn in SYSTEMS:
            ss = [s for _, n, _, s, _ in allr if n == sysn]
            if ss:
                t.add(system=sysn, runs=len(ss), cpu_saturated=mean([saturated(s["fidelity"]) for s in ss]),
                      maps_late_s=mean([lateness(s)["mean_s"] for s in ss if lateness(s)]))
        t.emit(lines, out)
    cols = [("run", "run", None), ("verdict", "verdict", None)]
    emulated = any_hot or any_late or any_tcp or set(verdict_count) != {"simulated"}
    if any_hot:
        cols.append(("CPU saturated", "cpu_saturated", lambda r: share(r["cpu_saturated"], "%.0f%%")))
    if any_late:
        cols += [("maps late", "maps_late_s",
                  lambda r: "%.0f ms (%.1f%%)" % (1e3 * r["maps_late_s"], 100 * r["maps_late_share"])
                  if ok(r["maps_late_s"]) and ok(r["maps_late_share"]) else MISSING), (None, "maps_late_share", None)]
    if any_tcp:
        cols.append(("SYNs sent again", "syn_retransmits", None))
    cols.append(("detail", "detail", None))
    t = Table("fidelity", cols)
    for _, _, name, s, _ in allr:
        tl = lateness(s)
        t.add(run=name, verdict=s["fidelity"]["verdict"], cpu_saturated=saturated(s["fidelity"]),
              maps_late_s=tl["mean_s"] if tl else None, maps_late_share=tl["share_of_compute"] if tl else None,
              syn_retransmits=syns(s), detail=s["fidelity"].get("detail", ""))
    if emulated:   # a simulated run has nothing to say here but its verdict
        t.emit(lines, out)
    else:
        t.write_csv(out)

# ---- the figures plots.gp draws from the CSVs above
FIGS = (("fig4.13_makespan.png", "batch", "Fig. 4.13: batch makespan ÷ F-Hybrid"),
        ("fig4.14_ocs_share.png", "batch", "Fig. 4.14: batch OCS share"),
        ("fig4.15_jct_cdf.png", "online", "Fig. 4.15: online JCT CDF"),
        ("fig4.16_median_jct.png", "online", "Fig. 4.16: online median JCT ÷ F-Hybrid"),
        ("fig4.19_mixed.png", "mixed", "Fig. 4.19: mixed median JCT ÷ F-Hybrid"))
figs = [(png, title) for png, sc, title in FIGS if any(s == sc for s, _ in runs)]
if figs:
    lines += ["## Figures (`plots.gp`; grey: the paper's bars; whiskers: 5th–95th pct over resampled seeds)", ""]
    lines += ["![%s](%s)" % (title, png) for png, title in figs] + [""]

with open(os.path.join(out, "REPORT.md"), "w") as f:
    f.write("\n".join(lines))
