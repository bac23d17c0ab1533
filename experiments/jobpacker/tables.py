"""Shared by the Chapter 4 reports (report.py, report_sim.py): the runs of a results root, and
tables written twice, as Markdown into REPORT.md and as a CSV beside it with the same rows
(numbers at full precision), so that a report holds only data and fixed text.

A value that cannot be computed (no runs, a division by zero) is None or NaN: "–" in the
report, "NaN" in the CSV (gnuplot's `set datafile missing "NaN"`)."""
import csv, glob, gzip, json, math, os, re

SYSTEMS = ["JobPacker", "F-Hybrid", "Corral", "F-EPS"]
MISSING = "–"
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def ok(x):
    """x is a number that can be shown (not None, NaN or infinite)."""
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def div(a, b):
    """a / b, or None when either is missing or b is 0."""
    return a / b if ok(a) and ok(b) and b != 0 else None


def mean(xs):
    xs = [x for x in xs if ok(x)]
    return sum(xs) / len(xs) if xs else None


def pct(xs, q):
    """The q-th percentile (0..100) by linear interpolation; None if empty."""
    xs = sorted(x for x in xs if ok(x))
    if not xs:
        return None
    k = (len(xs) - 1) * q / 100.0
    f = math.floor(k)
    c = min(f + 1, len(xs) - 1)
    return xs[f] + (xs[c] - xs[f]) * (k - f)


def fmt(x, spec="%.3f"):
    return spec % x if ok(x) else MISSING


def share(x, spec="%.1f%%"):
    """A fraction as a percentage."""
    return spec % (100 * x) if ok(x) else MISSING


def span(lo, hi, spec="%.3f"):
    return "%s–%s" % (spec % lo, spec % hi) if ok(lo) and ok(hi) else MISSING


def csv_value(x):
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "NaN"
    if isinstance(x, bool):
        return "1" if x else "0"
    if isinstance(x, float):
        return "%.10g" % x
    return str(x)


class Table:
    """Rows (dicts) under columns (heading, key, render): `key` names the CSV column (None: in
    the Markdown only), `heading` the Markdown column (None: in the CSV only), and `render`
    shows the Markdown cell: a printf format for row[key], a function of the row, or None for
    row[key] as it is."""

    def __init__(self, name, cols):
        self.name, self.cols, self.rows = name, cols, []

    def add(self, **row):
        self.rows.append(row)

    def cell(self, col, row):
        _, key, render = col
        if callable(render):
            return render(row)
        v = row.get(key)
        if render is None:
            return MISSING if v is None or v == "" else str(v)
        return fmt(v, render)

    def markdown(self):
        cols = [c for c in self.cols if c[0] is not None]
        out = ["| " + " | ".join(c[0] for c in cols) + " |", "|" + "---|" * len(cols)]
        out += ["| " + " | ".join(self.cell(c, r).replace("|", "\\|") for c in cols) + " |" for r in self.rows]
        return out + [""]

    def write_csv(self, out):
        keys = [c[1] for c in self.cols if c[1] is not None]
        with open(os.path.join(out, self.name + ".csv"), "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(keys)
            for r in self.rows:
                w.writerow([csv_value(r.get(k)) for k in keys])

    def emit(self, lines, out):
        """Append the Markdown to lines and write <out>/<name>.csv."""
        self.write_csv(out)
        lines += self.markdown()


def clean(out, names):
    """Remove the CSVs a report writes (names, and the CDFs cdf_*.csv) from out, so that a
    table the runs no longer give does not stay behind from an earlier report."""
    for n in names:
        for p in glob.glob(os.path.join(out, n + ".csv")):
            os.remove(p)
    for p in glob.glob(os.path.join(out, "cdf_*.csv")):
        os.remove(p)


def shown(path):
    """A results path as the reports name it: from the repository's root when under it."""
    p = os.path.abspath(path)
    return os.path.relpath(p, REPO) if p.startswith(REPO + os.sep) else p


def open_csv(path):
    """A run's CSV, as the run left it or gzipped (run.sh gzips flows.csv and links.csv)."""
    for p in (path, path + ".gz"):
        if os.path.exists(p):
            return gzip.open(p, "rt") if p.endswith(".gz") else open(p)
    return None


def run_csv(root, name, file):
    """The rows of file (tasks.csv, flows.csv, ...) of run `name` under root/<scheduler>/;
    [] when the run has none."""
    for d in sorted(glob.glob(os.path.join(root, "*", name))):
        f = open_csv(os.path.join(d, file))
        if f:
            with f:
                return list(csv.DictReader(f))
    return []


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
            f = open_csv(os.path.join(d, "jobs.csv"))
            if f is None:
                continue
            with f:
                jobs = list(csv.DictReader(f))
        yield name, m.group(1), m.group(2), int(m.group(3)), s, jobs


def jcts(jobs, pred=lambda r: True):
    """The JCTs of the finished jobs (jobs.csv rows) that pred picks."""
    return [float(r["jct_s"]) for r in jobs if r["finished"] == "1" and pred(r)]


def median(xs):
    """statistics.median (the mean of the middle two of an even count) of the numbers in xs;
    None if there are none."""
    xs = sorted(x for x in xs if x is not None and x == x and abs(x) != math.inf)
    n = len(xs)
    if not n:
        return None
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def setup_table(summaries_by_run):
    """The setup as the runs recorded it: one row per parameter, its values over the runs
    (several where the runs differ, as a sweep's); `summaries_by_run`: (scenario, system,
    summary) triples."""
    rs = list(summaries_by_run)
    t = Table("setup", [("parameter", "parameter", None), ("value", "value", None)])
    if not rs:
        return t
    def vals(get):
        v = sorted({str(x) for x in (get(sc, n, s) for sc, n, s in rs) if x is not None and x != ""},
                   key=lambda x: (0, float(x), x) if re.match(r"-?[0-9.]+(e[-+]?[0-9]+)?$", x) else (1, 0, x))
        return " / ".join(v) if v else None
    def par(k):
        return lambda sc, n, s: s.get("parameters", {}).get(k)
    def g(x):
        return "%.10g" % x if ok(x) else x
    seeds = sorted({s.get("parameters", {}).get("seed") for _, _, s in rs} - {None})
    t.add(parameter="backend", value=vals(par("backend")))
    t.add(parameter="topology", value=vals(par("topology")))
    t.add(parameter="jobs per run", value=vals(lambda sc, n, s: s.get("jobs")))
    t.add(parameter="seeds", value=" ".join(map(str, seeds)) or None)
    t.add(parameter="workload", value=vals(lambda sc, n, s: str(s.get("parameters", {}).get("workload", ""))
                                           .split(",")[0].split(":")[0]))
    for label, k in (("least shuffle per job (bytes)", "min_shuffle_bytes"), ("most maps per job (0: as drawn)", "max_maps"),
                     ("data scale", "data_scale"), ("time scale", "time_scale"), ("rate scale", "rate_scale"),
                     ("elephant threshold (bytes)", "elephant_bytes"), ("OCS reconfiguration", "ocs_reconfig"),
                     ("OCS interval (s)", "ocs_interval_s"), ("OCS delta (s)", "ocs_delta_s"),
                     ("OCS mode", "ocs_mode"), ("copiers per reduce", "copiers")):
        t.add(parameter=label, value=vals(lambda sc, n, s, k=k: g(s.get("parameters", {}).get(k))))
    t.add(parameter="slowdown", value=vals(lambda sc, n, s: g(s.get("parameters", {}).get("slowdown", 1))))
    for sysn in SYSTEMS:
        v = vals(lambda sc, n, s: g(s.get("parameters", {}).get("slowstart")) if n == sysn and not sc.startswith("sens-")
                 else None)
        if v:
            t.add(parameter="slowstart, %s" % sysn, value=v)
    return t
