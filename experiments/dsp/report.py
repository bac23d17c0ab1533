#!/usr/bin/env python3
"""DSP's study: our numbers beside the seed's orderings (seed 004, §V, Figs. 5-7).

    report.py RESULTS_ROOT OUT_DIR [PREFIX] [--keep RUNS_CSV]

Reads RESULTS_ROOT/PREFIX-{50,30}/<scheduler>/sim-j<jobs>-s<seed>/ (summary.json,
jobs.csv, tasks.csv) and the workload beside each run (...-workload.json: the
DAGs and deadlines), and PREFIXemu-6 when there; writes OUT_DIR/REPORT.md,
runs.csv (one row a run) and claims.csv.  Every sentence is fixed text; every
number comes from the runs.  --keep adds the ended runs of an earlier
report's runs.csv that RESULTS_ROOT does not have: a study made in parts
(out/full/ was) grows without keeping every part's results."""
import csv, json, os, re, sys
from collections import defaultdict


def die(msg):
    print(f"report.py: {msg}", file=sys.stderr)
    sys.exit(2)


ARGS = sys.argv[1:]
KEEP = None
if "--keep" in ARGS:
    k = ARGS.index("--keep")
    if k + 1 >= len(ARGS):
        die("--keep needs a runs.csv")
    KEEP = ARGS[k + 1]
    del ARGS[k:k + 2]
if len(ARGS) not in (2, 3):
    die("usage: report.py RESULTS_ROOT OUT_DIR [PREFIX] [--keep RUNS_CSV]")
ROOT, OUT = ARGS[0], ARGS[1]
PREFIX = ARGS[2] if len(ARGS) > 2 else "dsp"
NAMES = {"dsp": "DSP", "dsp-nopp": "DSPW/oPP", "aalo": "Aalo", "tetris-simdep": "TetrisW/SimDep",
         "tetris-nodep": "TetrisW/oDep", "amoeba": "Amoeba", "natjam": "Natjam", "srpt": "SRPT"}
ORDER = list(NAMES)
NEAR = 0.15   # "≈": within 15% of each other (the notes' caveat: 10-15%)


def waiting(d, wpath):
    """Mean over jobs of the mean over its tasks of the time after it could start
    (its job arrived and its parents ended) that it did not compute: in the
    queue, suspended, recovering (notes OPEN-34's first choice)."""
    try:
        w = json.load(open(wpath))
    except (OSError, ValueError):
        return None
    tasks = list(csv.DictReader(open(os.path.join(d, "tasks.csv"))))
    jobs = {r["job"]: float(r["submit_s"]) for r in csv.DictReader(open(os.path.join(d, "jobs.csv")))}
    byjob = defaultdict(list)
    for t in tasks:
        byjob[t["job"]].append(t)
    per_job = []
    for jid, ts in byjob.items():
        spec = w["jobs"][int(jid)]
        first, off = {}, 0
        for st in spec["stages"]:
            first[st["name"]] = off
            off += st["tasks"]
        ts.sort(key=lambda t: int(t["task"]))   # job-relative order: stage by stage
        if len(ts) != off:
            return None
        vals = []
        for k, t in enumerate(ts):
            if t["state"] != "done":
                continue
            st = next(s for s in spec["stages"] if first[s["name"]] <= k < first[s["name"]] + s["tasks"])
            ready = jobs[jid]
            tp = st.get("task_parents")
            if tp:
                for pst, idx in tp[k - first[st["name"]]].items():
                    for i in idx:
                        ready = max(ready, float(ts[first[pst] + i]["end_s"]))
            vals.append(max(0.0, float(t["end_s"]) - ready - float(t["duration_s"])))
        if vals:
            per_job.append(sum(vals) / len(vals))
    return sum(per_job) / len(per_job) if per_job else None


def bound(d, wpath):
    """The makespan no schedule can beat: over jobs, the latest arrival plus
    the job's critical path (its DAG's longest chain of the run's own task
    durations; fetches not counted).  Returns (bound, last end), run time."""
    try:
        w = json.load(open(wpath))
    except (OSError, ValueError):
        return None, None
    tasks = list(csv.DictReader(open(os.path.join(d, "tasks.csv"))))
    if any(t["state"] != "done" for t in tasks):
        return None, None
    jobs = {r["job"]: float(r["submit_s"]) for r in csv.DictReader(open(os.path.join(d, "jobs.csv")))}
    byjob = defaultdict(list)
    for t in tasks:
        byjob[t["job"]].append(t)
    best = 0.0
    for jid, ts in byjob.items():
        spec = w["jobs"][int(jid)]
        first, size, off = {}, {}, 0
        for st in spec["stages"]:
            first[st["name"]], size[st["name"]] = off, st["tasks"]
            off += st["tasks"]
        ts.sort(key=lambda t: int(t["task"]))
        if len(ts) != off:
            return None, None
        fin = [0.0] * off   # each task's earliest end from its job's arrival
        for st in spec["stages"]:
            whole = max((fin[first[p] + i] for p, kind in st.get("parents", {}).items() if kind != "tasks"
                         for i in range(size[p])), default=0.0)
            tp = st.get("task_parents")
            for i in range(st["tasks"]):
                r = whole
                for p, idx in (tp[i].items() if tp else ()):
                    r = max([r] + [fin[first[p] + x] for x in idx])
                fin[first[st["name"]] + i] = r + float(ts[first[st["name"]] + i]["duration_s"])
        best = max(best, jobs[jid] + max(fin, default=0.0))
    return best, max(float(t["end_s"]) for t in tasks)


def cores_of(n):
    """The cluster's cores: topologies/dsp-<n>.conf's servers (n) times its class's cores."""
    conf = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "topologies", f"dsp-{n}.conf")
    try:
        return n * int(re.search(r"cores\s*=\s*(\d+)", open(conf).read())[1])
    except (OSError, TypeError):
        return None


def cores_bound(wpath, n):
    """The makespan no schedule can beat for want of cores: every task's work
    (its duration on these servers, of speed 1) times the cores it asks, over
    the cluster's cores."""
    try:
        w = json.load(open(wpath))
    except (OSError, ValueError):
        return None
    cores = cores_of(n)
    if not cores:
        return None
    work = 0.0
    for job in w["jobs"]:
        for st in job["stages"]:
            x = st["work"]   # one number for all, or one per task ([value, count]: count of them)
            x = sum(v[0] * v[1] if isinstance(v, list) else v for v in x) if isinstance(x, list) else x * st["tasks"]
            work += x * st.get("cpu", 1)
    return work / cores


def suspensions(d):
    """Suspensions, the tasks they hit, and how many hit a task suspended before."""
    seen, n, again = set(), 0, 0
    try:
        for r in csv.DictReader(open(os.path.join(d, "preemptions.csv"))):
            if r["op"] == "suspend":
                n += 1
                again += r["task"] in seen
                seen.add(r["task"])
    except OSError:
        return None, None
    return len(seen), again


def load_run(d, wpath, n):
    try:
        s = json.load(open(os.path.join(d, "summary.json")))
    except (OSError, ValueError):
        return None
    jobs = list(csv.DictReader(open(os.path.join(d, "jobs.csv"))))
    trows = list(csv.DictReader(open(os.path.join(d, "tasks.csv"))))
    ends = sorted(float(r["end_s"]) for r in trows if r["state"] == "done")
    starts = [float(r["start_s"]) for r in trows if r["start_s"] not in ("", None) and float(r["start_s"]) >= 0]
    done = len(ends)
    try:
        spec = json.load(open(wpath))["jobs"]
    except (OSError, ValueError):
        spec = None
    met = None
    if spec is not None:
        met = sum(1 for r in jobs if r["finished"] == "1" and spec[int(r["job"])].get("deadline") and
                  float(r["end_s"]) - float(r["submit_s"]) <= spec[int(r["job"])]["deadline"] + 1e-9)
    ms = s["makespan_s"]
    b, last = bound(d, wpath)
    stasks, again = suspensions(d)
    above = last - b if b is not None else None
    return {"partial": bool(s.get("partial")), "stop": s.get("stop_reason", ""), "jobs": s["jobs"],
            "finished": s["jobs_finished"], "makespan": ms,
            "tput": done / ms if ms else None,   # tasks/s (Figs. 6b, 7b: tasks/ms)
            "met_per_min": met / (ms / 60) if ms and met is not None else None,   # §III's definition
            "disorders": s["disorders"]["starts"], "breaks": s["disorders"]["deadlock_breaks"],
            # % of the cluster's core-seconds held by tasks waiting for their parents
            "hold": 100 * s["disorders"]["hold_share"] if "hold_share" in s["disorders"]
            else 0.0 if s["disorders"]["starts"] == 0 else None,
            "preempt": s["preemptions"]["kills"] + s["preemptions"]["suspends"],
            "kills": s["preemptions"]["kills"], "suspends": s["preemptions"]["suspends"],
            "wait": waiting(d, wpath), "wall": s.get("wall_s"), "bound": b, "above": above,
            "cores_bound": cores_bound(wpath, n),
            "ends": ends, "run_s": s.get("run_s"), "susp_tasks": stasks, "susp_again": again,
            "ntasks": len(trows), "t0": min(starts) if starts else 0.0}


runs = {}   # (servers, jobs, seed, sched) -> row
for n in (50, 30):
    base = os.path.join(ROOT, f"{PREFIX}-{n}")
    if not os.path.isdir(base):
        continue
    for sc in os.listdir(base):
        for name in os.listdir(os.path.join(base, sc)):
            m = re.fullmatch(r"sim-j(\d+)-s(\d+)", name)
            d = os.path.join(base, sc, name)
            if m and os.path.isdir(d):
                r = load_run(d, d + "-workload.json", n)
                if r:
                    runs[(n, int(m[1]), int(m[2]), sc)] = r


def kept_row(row):
    """An ended run's row of an earlier runs.csv, as load_run gives it (what
    only stopped runs need, their ends and run time, is not there)."""
    num = lambda k: float(row[k]) if row.get(k, "") != "" else None
    r = {k: num(k) for k in ("makespan", "tput", "met_per_min", "hold", "wait", "bound", "above", "cores_bound")}
    r.update({k: int(row[k]) if row[k] != "" else None for k in ("finished", "disorders", "breaks", "preempt", "kills",
                                                                 "suspends", "susp_tasks", "susp_again")})
    r.update({"partial": False, "stop": row["stop"], "jobs": int(row["jobs"]), "wall": None, "ends": [],
              "run_s": None, "ntasks": None, "t0": 0.0})
    return r


if KEEP:
    try:
        rows = list(csv.DictReader(open(KEEP)))
    except OSError as e:
        die(f"{KEEP}: {e.strerror}")
    for line, row in enumerate(rows, 2):
        try:
            key = (int(row["servers"]), int(row["jobs"]), int(row["seed"]), row["scheduler"])
            if row["partial"] == "False" and key not in runs:
                runs[key] = kept_row(row)
        except (KeyError, ValueError) as e:
            die(f"{KEEP}:{line}: not a runs.csv row of this report ({e})")



def setting_cores_bound(n, j, sd):
    """The cores' bound is the workload's: the same for every scheduler of a seed-setting."""
    return next((r["cores_bound"] for (n2, j2, s2, _), r in runs.items()
                 if (n2, j2, s2) == (n, j, sd) and r["cores_bound"] is not None), None)


for (n, j, sd, sc), r in runs.items():   # a kept row without it takes another run's
    if r["cores_bound"] is None:
        r["cores_bound"] = setting_cores_bound(n, j, sd)

os.makedirs(OUT, exist_ok=True)
COLS = ["servers", "jobs", "seed", "scheduler", "finished", "makespan", "tput", "met_per_min", "disorders",
        "breaks", "hold", "preempt", "kills", "suspends", "susp_tasks", "susp_again", "wait", "bound", "above",
        "cores_bound", "partial", "stop"]
with open(os.path.join(OUT, "runs.csv"), "w", newline="") as f:
    wr = csv.writer(f)
    wr.writerow(COLS)
    for (n, j, s, sc), r in sorted(runs.items(), key=lambda kv: (-kv[0][0], kv[0][1], kv[0][2], ORDER.index(kv[0][3]) if kv[0][3] in ORDER else 99)):
        wr.writerow([n, j, s, sc] + [("" if r[c] is None else round(r[c], 6) if isinstance(r[c], float) else r[c])
                                      for c in COLS[4:]])

settings = sorted({(n, j) for (n, j, _, _) in runs}, key=lambda x: (-x[0], x[1]))
seeds = sorted({s for (_, _, s, _) in runs})


def val(n, j, s, sc, k):
    r = runs.get((n, j, s, sc))
    if not r or r["partial"] or r[k] is None:
        return None
    return r[k]


def less(a, b):
    return a is not None and b is not None and a < b


def near(a, b):
    return a is not None and b is not None and abs(a - b) <= NEAR * max(abs(a), abs(b))


# The seed's claims: each a test of one seed's runs in one setting.
def c_makespan(n, j, s):
    v = [val(n, j, s, sc, "makespan") for sc in ("dsp", "aalo", "tetris-simdep", "tetris-nodep")]
    return None if None in v else v[0] < v[1] < v[2] < v[3]


TIE = 0.005   # "≤" in the relaxed claims: no more than 0.5% above


def le(a, b):
    return a is not None and b is not None and a <= b * (1 + TIE)


def c_makespan_ties(n, j, s):
    v = [val(n, j, s, sc, "makespan") for sc in ("dsp", "aalo", "tetris-simdep", "tetris-nodep")]
    return None if None in v else le(v[0], v[1]) and le(v[1], v[2]) and v[2] < v[3]


def c_makespan_dep(n, j, s):
    v = [val(n, j, s, sc, "makespan") for sc in ("dsp", "aalo", "tetris-simdep")]
    return None if None in v else v[0] < v[1] < v[2]


def c_makespan_baselines(n, j, s):
    v = [val(n, j, s, sc, "makespan") for sc in ("aalo", "tetris-simdep")]
    return None if None in v else v[0] < v[1]


def c_tput_ties(n, j, s):
    d, p, a, nj, sr = (val(n, j, s, sc, "tput") for sc in ("dsp", "dsp-nopp", "amoeba", "natjam", "srpt"))
    if None in (d, p, a, nj, sr):
        return None
    return le(p, d) and p > max(a, nj) and min(a, nj) > sr


def c_disorders(n, j, s):
    v = val(n, j, s, "dsp", "disorders")
    return None if v is None else v == 0


def c_tput(n, j, s):
    d, p, a, nj, sr = (val(n, j, s, sc, "tput") for sc in ("dsp", "dsp-nopp", "amoeba", "natjam", "srpt"))
    if None in (d, p, a, nj, sr):
        return None
    return d > p > max(a, nj) and min(a, nj) > sr and near(a, nj)


def c_preempt(n, j, s):
    v = [val(n, j, s, sc, "preempt") for sc in ("dsp", "dsp-nopp", "natjam", "amoeba", "srpt")]
    return None if None in v else v[0] < v[1] < v[2] < v[3] < v[4]


def c_wait(n, j, s):
    d, p, nj, sr, a = (val(n, j, s, sc, "wait") for sc in ("dsp", "dsp-nopp", "natjam", "srpt", "amoeba"))
    if None in (d, p, nj, sr, a):
        return None
    return d < p < min(nj, sr) and max(nj, sr) < a and near(nj, sr)


def c_pair(key, sign):
    """DSP against DSPW/oPP alone on one metric: sign -1, DSP's lower; +1, higher."""
    def f(n, j, s):
        d, p = val(n, j, s, "dsp", key), val(n, j, s, "dsp-nopp", key)
        return None if None in (d, p) else (d - p) * sign > 0
    return f


CLAIMS = [("Makespan: DSP < Aalo < TetrisW/SimDep < TetrisW/oDep (Fig. 5)", c_makespan),
          ("Disorders: DSP = 0 (Figs. 6a, 7a)", c_disorders),
          ("Throughput (tasks/s; the seed's tasks/ms): DSP > DSPW/oPP > Amoeba ≈ Natjam > SRPT (Figs. 6b, 7b)", c_tput),
          ("Preemptions: DSP < DSPW/oPP < Natjam < Amoeba < SRPT (Figs. 6d, 7d)", c_preempt),
          ("Waiting time: DSP < DSPW/oPP < Natjam ≈ SRPT < Amoeba (Figs. 6c, 7c)", c_wait),
          ("(ours, ties within 0.5% allowed) Makespan: DSP ≤ Aalo ≤ TetrisW/SimDep < TetrisW/oDep", c_makespan_ties),
          ("(ours, without TetrisW/oDep) Makespan: DSP < Aalo < TetrisW/SimDep", c_makespan_dep),
          ("(ours, Fig. 5's baselines alone) Makespan: Aalo < TetrisW/SimDep", c_makespan_baselines),
          ("(ours, ties within 0.5% allowed, no ≈) Throughput: DSP ≥ DSPW/oPP > Amoeba, Natjam > SRPT", c_tput_ties),
          ("(ours, PP's ablation alone) Throughput: DSP > DSPW/oPP", c_pair("tput", 1)),
          ("(ours, PP's ablation alone) Preemptions: DSP < DSPW/oPP", c_pair("preempt", -1)),
          ("(ours, PP's ablation alone) Waiting time: DSP < DSPW/oPP", c_pair("wait", -1))]


def mean(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


def fmt(x, nd=0):
    return "–" if x is None else f"{x:,.{nd}f}"


lines = ["# DSP (seed 004): our runs beside the seed's orderings", "",
         "Generated by `experiments/dsp/report.py` from the runs under the results root; every number is "
         "from them (see `experiments/dsp/README.md` for the setup and the choices). Means over the seeds "
         f"({', '.join(map(str, seeds)) or '–'}); a run stopped early (`partial`) counts in no mean and no claim.", ""]

# Claims table.
claim_rows = []
lines += ["## Claims", "",
          "A claim holds in a setting (servers, jobs) when it holds in at least 2 of its seeds' runs; "
          "overall, when it holds in every setting. ≈: within 15%.", "",
          "| claim (seed) | " + " | ".join(f"{n} srv, {j} jobs" for n, j in settings) + " | ours |",
          "|---|" + "---|" * (len(settings) + 1)]
for text, fn in CLAIMS:
    cells, ok_all, known = [], True, True
    for n, j in settings:
        res = [fn(n, j, s) for s in seeds]
        have = [r for r in res if r is not None]
        k = sum(1 for r in have if r)
        cells.append(f"{k}/{len(have)}" if have else "–")
        need = min(2, len(have)) if have else 1
        if not have:
            known = False
        elif k < need:
            ok_all = False
        claim_rows.append([text, n, j, k, len(have)])
    verdict = "holds" if ok_all and known else ("does not hold" if known or not ok_all else "not measured")
    lines.append(f"| {text} | " + " | ".join(cells) + f" | **{verdict}** |")
with open(os.path.join(OUT, "claims.csv"), "w", newline="") as f:
    wr = csv.writer(f)
    wr.writerow(["claim", "servers", "jobs", "seeds_holding", "seeds"])
    wr.writerows(claim_rows)

# Each ordering step by step: where a chain breaks.
STEPS = [("Makespan", "makespan", [("dsp", "<", "aalo"), ("aalo", "<", "tetris-simdep"),
                                   ("tetris-simdep", "<", "tetris-nodep")]),
         ("Throughput", "tput", [("dsp", ">", "dsp-nopp"), ("dsp-nopp", ">", "amoeba"), ("dsp-nopp", ">", "natjam"),
                                 ("amoeba", "≈", "natjam"), ("amoeba", ">", "srpt"), ("natjam", ">", "srpt")]),
         ("Preemptions", "preempt", [("dsp", "<", "dsp-nopp"), ("dsp-nopp", "<", "natjam"), ("natjam", "<", "amoeba"),
                                     ("amoeba", "<", "srpt")]),
         ("Waiting time", "wait", [("dsp", "<", "dsp-nopp"), ("dsp-nopp", "<", "natjam"), ("dsp-nopp", "<", "srpt"),
                                   ("natjam", "≈", "srpt"), ("natjam", "<", "amoeba"), ("srpt", "<", "amoeba")])]


def span(n, j, s, sc, key):
    """The metric's range: a point for an ended run; for a run stopped early what it already
    shows (makespan past the run time reached, tasks/s below all tasks over that, preemptions
    at least those made); None when unknown."""
    r = runs.get((n, j, s, sc))
    if not r:
        return None
    if not r["partial"]:
        return None if r[key] is None else (r[key], r[key])
    reach = (r["run_s"] or 0) - r["t0"]
    if reach <= 0:
        return None
    return {"makespan": (reach, float("inf")), "tput": (0.0, r["ntasks"] / reach),
            "preempt": (r["preempt"], float("inf"))}.get(key)


def step(n, j, s, key, a, op, b):
    """(holds, from a stopped run's range) or None when the ranges overlap or are unknown."""
    x, y = span(n, j, s, a, key), span(n, j, s, b, key)
    if x is None or y is None:
        return None
    stopped = x[0] != x[1] or y[0] != y[1]
    if op == "≈":
        return None if stopped else (near(x[0], y[0]), False)
    if op == ">":
        x, y = y, x
    if x[1] < y[0]:
        return True, stopped
    if x[0] >= y[1]:
        return False, stopped
    return None


lines += ["", "Each ordering step by step: seeds where the step holds / seeds where it is decided, and the "
          "means over the seeds whose runs both ended. A run stopped early decides a step when what it "
          "already shows settles it (its makespan is past the run time it reached, its tasks/s below all "
          "its tasks over that time, its preemptions at least those made); such cells are marked †.", "",
          "| ordering | step | " + " | ".join(f"{n} srv, {j} jobs" for n, j in settings) + " |",
          "|---|---|" + "---|" * len(settings)]
for title, key, chain in STEPS:
    for a, op, b in chain:
        cells = []
        for n, j in settings:
            res = [(s, step(n, j, s, key, a, op, b)) for s in seeds]
            have = [(s, r) for s, r in res if r is not None]
            if not have:
                cells.append("–")
                continue
            ended = [s for s, r in have if not r[1]]
            ma = mean([val(n, j, s, a, key) for s in ended])
            mb = mean([val(n, j, s, b, key) for s in ended])
            nd = 2 if key == "tput" else 0
            mark = "†" if any(r[1] for _, r in have) else ""
            means = f" ({fmt(ma, nd)} vs {fmt(mb, nd)})" if ended else ""
            cells.append(f"{sum(1 for _, r in have if r[0])}/{len(have)}{mark}{means}")
        lines.append(f"| {title} | {NAMES[a]} {op} {NAMES[b]} | " + " | ".join(cells) + " |")

# 30 against 50 servers.
lines += ["", "30 servers against 50 (the seed: more waiting and more preemptions on EC2's 30), per scheduler, "
          "means over seeds and job counts run on both:", "",
          "| scheduler | waiting 50 → 30 (s) | preemptions 50 → 30 | more waiting | more preemptions |",
          "|---|---|---|---|---|"]
jobs_both = sorted({j for (n, j) in settings if (50, j) in settings and (30, j) in settings})
for sc in ORDER:
    w5 = mean([val(50, j, s, sc, "wait") for j in jobs_both for s in seeds])
    w3 = mean([val(30, j, s, sc, "wait") for j in jobs_both for s in seeds])
    p5 = mean([val(50, j, s, sc, "preempt") for j in jobs_both for s in seeds])
    p3 = mean([val(30, j, s, sc, "preempt") for j in jobs_both for s in seeds])
    if w5 is None and p5 is None:
        continue
    yes = lambda a, b: "–" if a is None or b is None else ("yes" if b > a else "no")
    lines.append(f"| {NAMES[sc]} | {fmt(w5, 1)} → {fmt(w3, 1)} | {fmt(p5)} → {fmt(p3)} | {yes(w5, w3)} | {yes(p5, p3)} |")

# What sets the makespan: the bound against the last end.
BOUNDED = ("dsp", "aalo", "tetris-simdep")
lines += ["", "What sets the makespan: the bound is, over jobs, the latest arrival plus the job's critical path "
          "(its DAG's longest chain of the run's task durations), which no schedule beats; per scheduler, how far "
          "its last task ends after it (s), means over seeds. A seed-setting is bound-limited when DSP, Aalo and "
          f"TetrisW/SimDep all end within {TIE:.1%} of the bound: there the makespan claim can only tie.", "",
          "| servers, jobs | bound (s) | " + " | ".join(NAMES[sc] for sc in ORDER) + " | bound-limited seeds |",
          "|---|---|" + "---|" * (len(ORDER) + 1)]
for n, j in settings:
    bs = [val(n, j, s, "tetris-simdep", "bound") or val(n, j, s, "dsp", "bound") for s in seeds]
    lim = [all(le(val(n, j, s, sc, "bound") + val(n, j, s, sc, "above"), val(n, j, s, sc, "bound"))
               for sc in BOUNDED) for s in seeds
           if all(val(n, j, s, sc, "above") is not None for sc in BOUNDED)]
    lines.append(f"| {n}, {j} | {fmt(mean(bs))} | " +
                 " | ".join(fmt(mean([val(n, j, s, sc, "above") for s in seeds]), 1) for sc in ORDER) +
                 f" | {sum(lim)}/{len(lim)} |")
lines += ["", "The cores' bound: the run's core-seconds (each task's work times the cores it asks) over the "
          "cluster's cores, which no schedule beats either; per scheduler, its makespan over that bound, means "
          "over seeds.", "",
          "| servers, jobs | cores' bound (s) | " + " | ".join(NAMES[sc] for sc in ORDER) + " |",
          "|---|---|" + "---|" * len(ORDER)]
for n, j in settings:
    cb = [setting_cores_bound(n, j, s) for s in seeds]
    ratio = lambda sc: mean([val(n, j, s, sc, "makespan") / val(n, j, s, sc, "cores_bound")
                             if val(n, j, s, sc, "makespan") and val(n, j, s, sc, "cores_bound") else None
                             for s in seeds])
    lines.append(f"| {n}, {j} | {fmt(mean(cb))} | " + " | ".join(fmt(ratio(sc), 2) for sc in ORDER) + " |")

# Per-setting tables.
METRICS = [("makespan", "makespan (s)", 0), ("tput", "tasks/s", 2), ("met_per_min", "deadline-met jobs/min", 2),
           ("disorders", "disorders", 0), ("hold", "held waiting (% of cores)", 1), ("preempt", "preemptions", 0),
           ("wait", "waiting (s)", 1)]
for n, j in settings:
    lines += ["", f"## {n} servers, {j} jobs", "",
              "| scheduler | jobs done | " + " | ".join(h for _, h, _ in METRICS) + " | kills (breaks) |",
              "|---|---|" + "---|" * (len(METRICS) + 1)]
    for sc in ORDER:
        rs = [runs.get((n, j, s, sc)) for s in seeds]
        rs = [r for r in rs if r]
        if not rs:
            continue
        ok = [r for r in rs if not r["partial"]]
        fin = "/".join(f"{r['finished']}{'*' if r['partial'] else ''}" for r in rs)
        cells = [fmt(mean([r[k] for r in ok]), nd) for k, _, nd in METRICS]
        kb = f"{fmt(mean([r['kills'] for r in ok]))} ({fmt(mean([r['breaks'] for r in ok]))})"
        lines.append(f"| {NAMES.get(sc, sc)} | {fin} | " + " | ".join(cells) + f" | {kb} |")
    lines.append("")
    lines.append("Jobs done per seed; * a run stopped early (its timeout).")
    rows = []
    for sc in ORDER:
        ok = [r for r in (runs.get((n, j, s, sc)) for s in seeds) if r and not r["partial"] and r["suspends"]]
        if ok and all(r["susp_tasks"] is not None for r in ok):
            sus = mean([r["suspends"] for r in ok])
            rows.append(f"| {NAMES[sc]} | {fmt(sus)} | {fmt(mean([r['susp_tasks'] for r in ok]))} | "
                        f"{fmt(mean([100 * r['susp_again'] / r['suspends'] for r in ok]), 1)} |")
    if rows:
        lines += ["", "Suspensions (`preemptions.csv`), means over the seeds: how many, the tasks they hit, and the "
                  "share that hit a task suspended before.", "",
                  "| scheduler | suspensions | tasks suspended | of a task suspended before (%) |",
                  "|---|---|---|---|"] + rows

# Runs stopped early, beside the others at the time they reached.
stopped = sorted(k for k, r in runs.items() if r["partial"] and r["run_s"])
if stopped:
    lines += ["", "## Runs stopped early", "",
              "Each run stopped before its end (interrupted: its wall-clock limit; stalled: nothing in flight "
              "for an hour of run time, the simulator's stop): the run time it reached, and the tasks each "
              "scheduler of the same seed and setting had done by then.", "",
              "| servers, jobs, seed | stopped | why | reached (s) | " + " | ".join(NAMES[sc] for sc in ORDER) + " |",
              "|---|---|---|---|" + "---|" * len(ORDER)]
    for n, j, s, sc in stopped:
        t = runs[(n, j, s, sc)]["run_s"]
        cells = []
        for o in ORDER:
            r = runs.get((n, j, s, o))
            ok = r and (not r["partial"] or (r["run_s"] or 0) >= t)
            cells.append(f"{sum(1 for e in r['ends'] if e <= t):,}" if ok else "–")
        why = runs[(n, j, s, sc)]["stop"].split(":")[0] or "–"
        lines.append(f"| {n}, {j}, {s} | {NAMES[sc]} | {why} | {fmt(t)} | " + " | ".join(cells) + " |")

# The reduced emulated run, if there.
emu = os.path.join(ROOT, f"{PREFIX}emu-6")
if os.path.isdir(emu):
    lines += ["", "## Reduced emulated run (6 servers, 6 jobs of dsp-dag:scale=0.05)", "",
              "| scheduler | backend | jobs done | makespan (s) | suspends | kills | disorders |", "|---|---|---|---|---|---|---|"]
    for sc in ("dsp", "amoeba", "natjam", "srpt"):
        for be in ("emu", "sim"):
            ds = [x for x in (os.listdir(os.path.join(emu, sc)) if os.path.isdir(os.path.join(emu, sc)) else [])
                  if x.startswith(be + "-") and os.path.isdir(os.path.join(emu, sc, x))]
            for x in sorted(ds):
                r = load_run(os.path.join(emu, sc, x), os.path.join(emu, sc, x) + "-workload.json", 6)
                if r:
                    lines.append(f"| {NAMES[sc]} | {be} | {r['finished']} | {fmt(r['makespan'])} | {r['suspends']} | "
                                 f"{r['kills']} | {r['disorders']} |")

open(os.path.join(OUT, "REPORT.md"), "w").write("\n".join(lines) + "\n")
print(f"{len(runs)} runs; {os.path.join(OUT, 'REPORT.md')}")
