#!/usr/bin/python3
"""Drive the live view in headless Chromium (tests/integ/test_web.c).

  test_web_browser.py live URL RESULTS_DIR OUT_DIR   watch a run until it is over
  test_web_browser.py replay URL RESULTS_DIR OUT_DIR move emu view's slider

Checks that the circuits the page shows are those of ocs.csv at the time the
page shows, and that the jobs finished at the end are summary.json's.  Keeps
a screenshot in OUT_DIR.  Exit 0 ok, 1 a check failed, 77 no browser here."""
import csv
import json
import os
import sys
import time

try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
except ImportError:
    print("skip: python3-selenium is not installed")
    sys.exit(77)
for f in ("/usr/bin/chromium", "/usr/bin/chromedriver"):
    if not os.access(f, os.X_OK):
        print(f"skip: {f} is missing (Debian: chromium, chromium-driver)")
        sys.exit(77)


def browser():
    o = webdriver.ChromeOptions()
    o.binary_location = "/usr/bin/chromium"
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--window-size=1400,1000", "--no-proxy-server"):
        o.add_argument(a)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=o)


def ocs_log(results):
    """[(t_s, sorted circuits)] from ocs.csv, as the page writes them."""
    rows = []
    with open(os.path.join(results, "ocs.csv")) as f:
        for r in csv.DictReader(f):
            cfg = r["config"]
            rows.append((float(r["t_s"]), sorted(cfg.split()) if cfg != "none" else []))
    return rows


def config_at(rows, t):
    cur = []
    for ts, cfg in rows:
        if ts > t:
            break
        cur = cfg
    return cur


def shown(d):
    """What the page shows: its time, circuits, jobs finished, status."""
    return d.execute_script(
        "return [document.body.dataset.t || null, document.getElementById('circuits').dataset.circuits,"
        " (document.getElementById('jobs-finished') || {}).textContent, document.getElementById('status').textContent]")


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def wait_summary(results, timeout):
    path = os.path.join(results, "summary.json")
    end = time.time() + timeout
    while not os.path.exists(path):
        if time.time() > end:
            fail(f"{path} never appeared")
        time.sleep(0.2)
    with open(path) as f:
        return json.load(f)


def check_circuits(samples, rows, slack):
    """Each sample's circuits are ocs.csv's at its time (within slack s: the
    page's clock and the log's may differ by the reconfiguration in between)."""
    bad = 0
    for t, circ in samples:
        ok = any(config_at(rows, t + dt) == circ for dt in (0, -slack, slack))
        if not ok:
            bad += 1
            print(f"at t={t}: page shows {circ}, ocs.csv has {config_at(rows, t)}")
    return bad


def live(url, results, out):
    d = browser()
    # The test starts the run once the browser is up; its page comes with it.
    open(os.path.join(out, "browser-ready"), "w").close()
    samples, seen_circuits, last = [], 0, None
    try:
        end = time.time() + 60
        while True:
            try:
                d.get(url)
                if d.execute_script("return !!document.getElementById('status')"):
                    break
            except Exception:
                pass
            if time.time() > end:
                fail(f"{url} never came up")
            time.sleep(0.3)
        end = time.time() + 240
        while time.time() < end:
            t, circ, fin, status = shown(d)
            if t is not None:
                last = (float(t), circ.split() if circ else [], fin, status)
                if not samples or samples[-1][0] != last[0]:
                    samples.append((last[0], sorted(last[1])))
                    seen_circuits += bool(last[1])
                if status == "run over":
                    break
            time.sleep(0.2)
        d.save_screenshot(os.path.join(out, "live.png"))
    finally:
        d.quit()
    if not last or last[3] != "run over":
        fail(f"the page never showed the end of the run (last: {last})")
    summary = wait_summary(results, 60)
    rows = ocs_log(results)
    print(f"live: {len(samples)} snapshots seen, {seen_circuits} with circuits; ocs.csv {len(rows)} reconfigurations")
    if len(samples) < 3:
        fail("fewer than 3 snapshots: the page was not updated every second")
    if check_circuits(samples, rows, 0.2) > max(1, len(samples) // 10):
        fail("the circuits shown are not ocs.csv's")
    if int(last[2]) != summary["jobs_finished"]:
        fail(f"the page ended with {last[2]} jobs finished, summary.json says {summary['jobs_finished']}")


def replay(url, results, out):
    summary = wait_summary(results, 1)
    rows = ocs_log(results)
    d = browser()
    samples = []
    try:
        d.get(url)
        end = time.time() + 20
        while shown(d)[0] is None and time.time() < end:
            time.sleep(0.1)
        t_end = float(d.find_element("id", "slider").get_attribute("max"))
        times = [t_end * k / 20 for k in range(21)] + [ts + 0.05 for ts, _ in rows[:10]]
        for t in times:
            d.execute_script("const s = document.getElementById('slider'); s.value = arguments[0];"
                             " s.dispatchEvent(new Event('input'));", str(t))
            want = float(d.find_element("id", "slider").get_attribute("value"))
            deadline = time.time() + 10
            while time.time() < deadline:
                st, circ, fin, _ = shown(d)
                if st is not None and abs(float(st) - want) < 1e-6:
                    break
                time.sleep(0.05)
            else:
                fail(f"the page never showed t={want}")
            samples.append((want, sorted(circ.split()) if circ else []))
        d.save_screenshot(os.path.join(out, "replay.png"))
        d.execute_script("const s = document.getElementById('slider'); s.value = s.max;"
                         " s.dispatchEvent(new Event('input'));")
        time.sleep(0.5)
        fin = shown(d)[2]
    finally:
        d.quit()
    print(f"replay: {len(samples)} positions, ocs.csv {len(rows)} reconfigurations")
    if check_circuits(samples, rows, 0):
        fail("the circuits shown are not ocs.csv's")
    if not any(c for _, c in samples):
        fail("no circuit was ever shown")
    if int(fin) != summary["jobs_finished"]:
        fail(f"the page shows {fin} jobs finished at the end, summary.json says {summary['jobs_finished']}")


if __name__ == "__main__":
    if len(sys.argv) != 5 or sys.argv[1] not in ("live", "replay"):
        print(__doc__)
        sys.exit(2)
    (live if sys.argv[1] == "live" else replay)(*sys.argv[2:])
    print("ok")
