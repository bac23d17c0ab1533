#!/usr/bin/env python3
"""Solo runs for the classifier's labels (dissertation §5.2.2, §5.3.1): every
job run alone on a scale-up platform and on a scale-out one; its label is the
platform on which it finished sooner.

  solo.py chain DRYRUN OUT.json
      the jobs `emu run --dry-run` printed, as a native workload in which each
      job waits for the one before it (deps): run on a platform, every job
      has the platform to itself
  solo.py labels CHAIN.json UP_DIR OUT_DIR LABELS.csv
      from the two chained runs' jobs.csv: each job's solo time on each
      platform (its end minus the end of the job before it) and its label,
      up when it was faster there, out otherwise (a tie is no gain)
"""
import csv
import json
import sys

UNITS = {"B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12}


def size(text):
    for unit in sorted(UNITS, key=len, reverse=True):
        if text.endswith(unit):
            return round(float(text[: -len(unit)]) * UNITS[unit])
    raise ValueError("bad size " + text)


def chain(dryrun, out):
    jobs = []
    for line in open(dryrun):
        f = line.split()
        if len(f) < 7 or not f[0].startswith("job") or f[0] == "job":
            continue
        job = {"name": f[0], "input": size(f[4]), "shuffle": size(f[5]), "output": size(f[6]),
               "maps": int(f[2]), "reduces": int(f[3])}
        if jobs:
            job["deps"] = [jobs[-1]["name"]]
        jobs.append(job)
    with open(out, "w") as fh:
        json.dump({"comment": "one job at a time: each waits for the one before it", "jobs": jobs}, fh)
        fh.write("\n")


def solo_times(run_dir):
    rows = sorted(csv.DictReader(open(run_dir + "/jobs.csv")), key=lambda r: int(r["job"]))
    times, before = [], 0.0
    for r in rows:
        end = float(r["end_s"])
        times.append(end - before)
        before = end
    return times


def labels(chain_json, up_dir, out_dir, dst):
    jobs = json.load(open(chain_json))["jobs"]
    up, out = solo_times(up_dir), solo_times(out_dir)
    with open(dst, "w", newline="") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["job", "maps", "reduces", "input_bytes", "shuffle_bytes", "t_up_s", "t_out_s", "label"])
        for i, j in enumerate(jobs):
            w.writerow([i, j["maps"], j["reduces"], j["input"], j["shuffle"], "%.3f" % up[i], "%.3f" % out[i],
                        "up" if up[i] < out[i] else "out"])


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "chain":
        chain(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 6 and sys.argv[1] == "labels":
        labels(*sys.argv[2:])
    else:
        sys.exit(__doc__)
