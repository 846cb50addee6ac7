#!/usr/bin/env python3
"""The HTML report renders right in headless Chromium.

Runs scenarios into run directories, writes reports of them (twice each:
byte-identical) and loads each in headless Chromium with the page's
self-test (`report.html#ks-selftest`), then reads the DOM Chromium built:

  - one offline file: dygraphs inlined, no external script, style or URL;
  - no console error or script error (the page's hook writes them into
    #ks-errors and body[data-errors]; Chromium's log is checked too);
  - the number of charts: every <figure> of the file drawn (or, with no
    data in any run, marked empty), body[data-charts] agreeing;
  - every ClusterQueue of every run's summary has its pending and wait
    charts (idle ones included), and every legend lists every run;
  - step data were drawn by dygraphs with stepPlot on (no ramps), runs
    with different dash patterns, one zoom that changed the x range;
  - known values: each wait chart's data-p90 (read off the plotted CDF)
    equals the run summary's waitSeconds.p90; tooltips carry units and,
    with a startTime, UTC wall-clock times;
  - a distribution of one value (all waits 0) is marked degenerate and
    drawn (not an invisible single point);
  - table columns hold one unit each (the unit in the header, numbers in
    the cells);
  - MultiKueue and LeaderWorkerSet runs get their own sections in the
    table of contents;
  - without the charting library (KUEUESIM_DYGRAPHS_DIR pointing nowhere)
    `kueuesim report` fails with an error naming the file and the package
    and writes nothing.
The capacity-planning report (two runs, wall-clock axes) is also
screenshotted into OUT_DIR/report-capacity-planning.png and the picture
checked for both runs' colours.

With --philly TRACES_DIR it instead renders the report of the Philly year
(TRACES_DIR/philly/philly.csv, all virtual clusters; bench/philly_compare.py
writes the scenario) and checks the same things plus the time Chromium
took to draw it.

Fails (never skips) when chromium is not installed: dev.sh installs it.

  report_render_test.py --sim KUEUESIM --root SOURCE_DIR --out-dir DIR [--philly TRACES_DIR]
"""
import argparse
import html.parser
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib

FAILURES = []


def check(condition, message):
    if not condition:
        FAILURES.append(message)
        print(f"FAIL: {message}", file=sys.stderr)
    return condition


def run(command, **kwargs):
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        sys.exit(f"FAIL: {' '.join(command)} exited {result.returncode}:\n{result.stderr}")
    return result


class Dom(html.parser.HTMLParser):
    """Figures (attributes, legend entries), body attributes, #ks-errors
    text, TOC entries and table rows."""

    def __init__(self):
        super().__init__()
        self.figures = []
        self.body = {}
        self.errors = ""
        self.toc = []
        self.tables = {}
        self.axis_labels = []
        self._in = []
        self._table = None
        self._row = None
        self._cell = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = a.get("class", "") or ""
        if tag == "body":
            self.body = a
        if tag == "figure" and "chart" in cls.split():
            self.figures.append({"attrs": a, "legend": [], "text": ""})
        if tag == "li" and "data-run" in a and self.figures:
            self.figures[-1]["legend"].append(a["data-run"])
        if tag == "pre" and a.get("id") == "ks-errors":
            self._in.append("errors")
        if tag == "a" and a.get("href", "").startswith("#sec-"):
            self._in.append("toc")
            self.toc.append("")
        if tag == "div" and "dygraph-axis-label-x" in cls:
            self._in.append("axis")
            self.axis_labels.append("")
        if tag == "table":
            self._table = cls
            self.tables[cls] = []
        if tag == "tr" and self._table is not None:
            self._row = []
            self.tables[self._table].append(self._row)
        if tag in ("td", "th") and self._row is not None:
            self._cell = {"tag": tag, "text": "", "attrs": a}
            self._row.append(self._cell)

    def handle_endtag(self, tag):
        if tag in ("pre", "a", "div") and self._in:
            self._in.pop()
        if tag == "table":
            self._table = None
            self._row = None
        if tag in ("td", "th"):
            self._cell = None

    def handle_data(self, data):
        if self._in and self._in[-1] == "errors":
            self.errors += data
        if self._in and self._in[-1] == "toc":
            self.toc[-1] += data
        if self._in and self._in[-1] == "axis":
            self.axis_labels[-1] += data
        if self._cell is not None:
            self._cell["text"] += data


def parse(text):
    dom = Dom()
    dom.feed(text)
    return dom


def chromium_binary():
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if binary is None:
        sys.exit("FAIL: chromium is not installed (apt-get install -y chromium, or ./dev.sh installs it)")
    return binary


def chromium(work, args, timeout=180):
    flags = ["--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars",
             f"--user-data-dir={os.path.join(work, 'chromium-profile')}", "--enable-logging=stderr", "--v=0"]
    start = time.monotonic()
    result = subprocess.run([chromium_binary()] + flags + args, capture_output=True, text=True, timeout=timeout)
    elapsed = time.monotonic() - start
    if result.returncode != 0:
        sys.exit(f"FAIL: chromium {' '.join(args)} exited {result.returncode}:\n{result.stderr[-3000:]}")
    return result, elapsed


def summary_p90s(run_dir):
    """{(cluster, ClusterQueue): p90 seconds or None} of a run directory."""
    summary = json.load(open(os.path.join(run_dir, "summary.json")))
    out = {}
    for cluster in summary["clusters"]:
        for cq in cluster.get("clusterQueues", []):
            out[(cluster["name"], cq["name"])] = cq.get("waitSeconds", {}).get("p90")
    return out


def queue_name(cluster, name):
    return name if not cluster else f"{cluster}/{name}"


def start_time(run_dir):
    path = os.path.join(run_dir, "run.json")
    return json.load(open(path)).get("startTime") if os.path.exists(path) else None


def check_report(name, work, html_path, runs, max_render_ms=None):
    """runs: [(label, run directory)]. Returns the parsed DOM."""
    starts = {start_time(d) for _, d in runs}
    wall_clock = len(starts) == 1 and None not in starts
    text = open(html_path, encoding="utf-8").read()
    check("new Dygraph(" in text and "dygraphs (Debian libjs-dygraphs), inlined" in text,
          f"{name}: dygraphs is not inlined")
    check(not re.search(r'<script[^>]*\ssrc=|<link\b|\s(src|href)="(https?:)?//', text),
          f"{name}: the report references external scripts, styles or URLs")
    file_figures = len(re.findall(r'<figure class="chart"', text))
    check(file_figures > 0, f"{name}: no charts in the file")

    result, elapsed = chromium(work, ["--dump-dom", f"file://{html_path}#ks-selftest"])
    dom = parse(result.stdout)
    check("data-errors" not in dom.body and dom.errors.strip() == "",
          f"{name}: script or console errors in the page: {dom.errors.strip()[:500]}")
    check(not re.search(r"Uncaught|CONSOLE\(\d+\).*[Ee]rror", result.stderr),
          f"{name}: Chromium logged a script error: "
          f"{[l for l in result.stderr.splitlines() if 'Uncaught' in l or 'CONSOLE' in l][:3]}")
    check(len(dom.figures) == file_figures,
          f"{name}: {len(dom.figures)} charts in the DOM, {file_figures} in the file")
    drawn = [f for f in dom.figures if f["attrs"].get("data-rendered") == "true"]
    empty = [f for f in dom.figures if f["attrs"].get("data-rendered") == "empty"]
    check(len(drawn) + len(empty) == len(dom.figures),
          f"{name}: {len(dom.figures) - len(drawn) - len(empty)} charts were never drawn (script stopped?)")
    check(dom.body.get("data-charts") == str(len(drawn)),
          f"{name}: body data-charts={dom.body.get('data-charts')}, {len(drawn)} charts drawn")
    render_ms = int(dom.body.get("data-render-ms", "-1"))
    if max_render_ms is not None:
        check(0 <= render_ms <= max_render_ms, f"{name}: drawing the charts took {render_ms} ms (> {max_render_ms})")

    labels = [label for label, _ in runs]
    titles = {}
    for f in dom.figures:
        a = f["attrs"]
        title = a.get("data-title", "")
        titles[title] = f
        # Every run in every legend (capacity lines come in addition).
        check(all(str(i) in f["legend"] for i in range(len(runs))),
              f"{name}: the legend of '{title}' lists runs {sorted(set(f['legend']))}, not all {len(runs)}")
        if a.get("data-rendered") != "true":
            continue
        if a.get("data-step") == "true":
            check(a.get("data-step-drawn") == "true", f"{name}: '{title}' is step data drawn without steps")
        dashes = a.get("data-dashes", "").split("|")
        if len(runs) > 1:
            check(len(set(dashes)) > 1, f"{name}: '{title}' draws every run with the same dash {dashes}")
        tip = a.get("data-tooltip", "")
        check(tip.strip() != "", f"{name}: '{title}' shows no values under the pointer")
        kind = a.get("data-kind")
        if kind in ("pending", "utilization", "borrowed", "wait"):
            unit = {"pending": "workloads", "utilization": "%", "borrowed": "", "wait": "%"}[kind]
            check(unit in tip, f"{name}: the tooltip of '{title}' lacks the unit '{unit}': {tip!r}")
        if a.get("data-x") == "wall":
            check("UTC" in tip, f"{name}: the tooltip of wall-clock chart '{title}' has no UTC time: {tip!r}")
    check(sum(1 for f in dom.figures if f["attrs"].get("data-zoom") == "true") == 1,
          f"{name}: zooming the first chart did not narrow its x range")
    time_charts = [f for f in drawn if f["attrs"].get("data-x") in ("time", "wall")]
    if wall_clock:
        check(time_charts and all(f["attrs"]["data-x"] == "wall" for f in time_charts),
              f"{name}: the scenario has a startTime but the time axes are not wall-clock")
    else:
        check(all(f["attrs"]["data-x"] == "time" for f in time_charts),
              f"{name}: wall-clock axes without a startTime")

    # Every ClusterQueue of every run: its pending chart and wait chart;
    # each wait chart's p90 equals the summary's.
    for index, (label, run_dir) in enumerate(runs):
        events = os.path.exists(os.path.join(run_dir, "events.jsonl"))
        for (cluster, cq), p90 in summary_p90s(run_dir).items():
            queue = queue_name(cluster, cq)
            check(f"pending in {queue}" in titles, f"{name}: no pending chart for ClusterQueue {queue}")
            if not events:
                continue
            wait = titles.get(f"wait CDF in {queue}")
            if not check(wait is not None, f"{name}: no wait chart for ClusterQueue {queue}"):
                continue
            if p90 is None:
                continue
            shown = dict(item.split("=", 1) for item in wait["attrs"].get("data-p90", "").split(";") if "=" in item)
            key = next((k for k in shown if k == label or k.startswith(label + " #")), None)
            value = shown.get(key) if key is not None else None
            check(value is not None and value != "none" and abs(float(value) - p90) <= max(1e-3, 1e-6 * p90),
                  f"{name}: wait chart of {queue}, run {label}: p90 {value}, the summary says {p90}")

    # One unit per column: the unit in the header, plain numbers below.
    for table in ("queues", "runs"):
        rows = dom.tables.get(table, [])
        if not check(rows, f"{name}: no {table} table"):
            continue
        header = [c["text"] for c in rows[0]]
        for column, head in enumerate(header):
            match = re.fullmatch(r"(wait p\d+|simulated) \((s|min|h|d)\)", head)
            if head.startswith("wait") or head.startswith("simulated"):
                check(match is not None, f"{name}: {table} column '{head}' states no unit")
            if match is None:
                continue
            for row in rows[1:]:
                if column < len(row) and row[column]["attrs"].get("colspan") is None:
                    cell = row[column]["text"]
                    check(re.fullmatch(r"-|\d+\.\d\d", cell) is not None,
                          f"{name}: {table} column '{head}' holds '{cell}' (a unit per cell?)")
    return dom, text, elapsed, render_ms


def png_colours(path):
    """{(r, g, b): pixels} of an 8-bit RGB(A) non-interlaced PNG."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and colour in (2, 6) and interlace == 0, f"unexpected PNG format {header}"
    channels = 3 if colour == 2 else 4
    stride = width * channels
    raw = zlib.decompress(idat)
    colours, previous = {}, bytearray(stride)
    for y in range(height):
        filter_type = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            up_left = previous[i - channels] if i >= channels else 0
            if filter_type == 1:
                line[i] = (line[i] + left) & 255
            elif filter_type == 2:
                line[i] = (line[i] + up) & 255
            elif filter_type == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif filter_type == 4:
                p = left + up - up_left
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - up_left)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else (up if pb <= pc else up_left))) & 255
        for x in range(0, stride, channels):
            pixel = bytes(line[x:x + 3])
            colours[pixel] = colours.get(pixel, 0) + 1
        previous = line
    return width, height, colours


IDLE_SCENARIO = """apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: busy}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources:
      - {name: cpu, nominalQuota: "8"}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: idle}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources:
      - {name: cpu, nominalQuota: "8"}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: main, namespace: team}
spec: {clusterQueue: busy}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: spare, namespace: team}
spec: {clusterQueue: idle}
"""

JOB = """---
apiVersion: batch/v1
kind: Job
metadata:
  name: job-{i}
  namespace: team
  labels: {{kueue.x-k8s.io/queue-name: main}}
  annotations: {{kueuesim.io/duration: 10m}}
spec:
  parallelism: 1
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: c
        image: busybox
        resources: {{requests: {{cpu: "1"}}}}
"""


def report(sim, work, name, run_dirs):
    out = os.path.join(work, f"{name}.html")
    run([sim, "report"] + run_dirs + ["-o", out])
    again = os.path.join(work, f"{name}-again.html")
    run([sim, "report"] + run_dirs + ["-o", again])
    check(open(out, "rb").read() == open(again, "rb").read(), f"{name}: the same runs gave different HTML")
    return out


def small_scenarios(args, work):
    sim, root = args.sim, args.root

    def sim_run(scenario_files, out):
        run([sim, "run"] + scenario_files + ["--out", out, "--quiet"])
        return out

    # The capacity-planning study: two runs, a startTime, cohort and borrowing.
    cp = os.path.join(root, "scenarios", "capacity-planning")
    base = sim_run([os.path.join(cp, "base.yaml"), os.path.join(cp, "common.yaml")], os.path.join(work, "base"))
    lending = sim_run([os.path.join(cp, "more-lending.yaml"), os.path.join(cp, "common.yaml")],
                      os.path.join(work, "more-lending"))
    html_path = report(sim, work, "capacity-planning", [base, lending])
    dom, text, elapsed, render_ms = check_report("capacity-planning", work, html_path,
                                                 [("base", base), ("more-lending", lending)])
    kinds = {f["attrs"].get("data-kind") for f in dom.figures}
    for kind in ("utilization", "borrowed", "cohort", "pending", "wait", "preemptions"):
        check(kind in kinds, f"capacity-planning: no '{kind}' chart")
    check(start_time(base) == "2017-10-09T00:01:56Z", f"capacity-planning: run.json holds {start_time(base)}")
    check(any("Oct" in label for label in dom.axis_labels),
          f"capacity-planning: no wall-clock (October 2017) axis labels: {dom.axis_labels[:6]}")
    print(f"capacity-planning: {len(dom.figures)} charts, drawn in {render_ms} ms, chromium {elapsed:.1f} s")
    shot = os.path.join(args.out_dir, "report-capacity-planning.png")
    chromium(work, ["--window-size=1300,2400", f"--screenshot={shot}", f"file://{html_path}"])
    if check(os.path.exists(shot) and os.path.getsize(shot) > 0, "chromium wrote no screenshot"):
        width, height, colours = png_colours(shot)
        series = {name: colours.get(bytes(rgb), 0)
                  for name, rgb in (("#1f77b4", (0x1f, 0x77, 0xb4)), ("#d62728", (0xd6, 0x27, 0x28)))}
        print(f"screenshot {shot} {width}x{height}: {len(colours)} colours, series pixels {series}")
        check(len(colours) >= 16, "the screenshot has almost no colours: the page did not render")
        for colour, count in series.items():
            check(count >= 200, f"hardly any pixels in the run colour {colour}: its series were not drawn")

    # Without the charting library: a clear error and no file (never a page
    # without charts).
    missing = os.path.join(work, "no-library.html")
    env = dict(os.environ, KUEUESIM_DYGRAPHS_DIR=os.path.join(work, "no-such-dir"))
    result = subprocess.run([sim, "report", base, "-o", missing], capture_output=True, text=True, env=env)
    check(result.returncode != 0 and "dygraph.min.js" in result.stderr and "libjs-dygraphs" in result.stderr,
          f"report without dygraphs: exit {result.returncode}, stderr {result.stderr!r}")
    check(not os.path.exists(missing), "report without dygraphs wrote a file")

    # An idle ClusterQueue and waits that are all 0, in two identical runs.
    scenario = os.path.join(work, "idle.yaml")
    with open(scenario, "w") as fh:
        fh.write(IDLE_SCENARIO + "".join(JOB.format(i=i) for i in range(3)))
    first = sim_run([scenario], os.path.join(work, "first"))
    second = sim_run([scenario], os.path.join(work, "second"))
    html_path = report(sim, work, "idle", [first, second])
    dom, text, _, _ = check_report("idle", work, html_path, [("first", first), ("second", second)])
    titles = {f["attrs"].get("data-title"): f for f in dom.figures}
    for title in ("pending in idle", "idle default cpu", "wait CDF in idle"):
        check(title in titles, f"idle: the idle ClusterQueue has no chart '{title}'")
    check(titles.get("pending in idle", {}).get("attrs", {}).get("data-rendered") == "true",
          "idle: the idle ClusterQueue's pending chart (0 throughout) was not drawn")
    wait = titles.get("wait CDF in busy", {"attrs": {}})["attrs"]
    check(wait.get("data-degenerate") == "true" and wait.get("data-rendered") == "true",
          f"idle: the all-zero wait distribution is not drawn as a degenerate one: {wait}")
    check(int(wait.get("data-rows", "0")) >= 2, "idle: the all-zero wait CDF is a single point")

    # Fair sharing (weighted shares) and preemptions.
    fair = sim_run([os.path.join(root, "scenarios", "docs", "fair-sharing.yaml")], os.path.join(work, "fair-sharing"))
    preemption = sim_run([os.path.join(root, "scenarios", "docs", "cli-preemption.yaml")],
                         os.path.join(work, "cli-preemption"))
    html_path = report(sim, work, "fair", [fair, preemption])
    dom, _, _, _ = check_report("fair", work, html_path, [("fair-sharing", fair), ("cli-preemption", preemption)])
    check(any(f["attrs"].get("data-kind") == "share" for f in dom.figures), "fair: no weighted-share chart")

    # MultiKueue: a section per cluster and a MultiKueue section in the contents.
    mk = sim_run([os.path.join(root, "scenarios", "multikueue", "worker-loss.yaml")], os.path.join(work, "worker-loss"))
    html_path = report(sim, work, "multikueue", [mk])
    dom, _, _, _ = check_report("multikueue", work, html_path, [("worker-loss", mk)])
    clusters = [t for t in dom.toc if t.startswith("cluster ")]
    check(len(clusters) >= 2, f"multikueue: the contents list {clusters}, not a section per cluster")
    check("MultiKueue" in dom.toc, f"multikueue: no MultiKueue section in the contents {dom.toc}")
    check(any(f["attrs"].get("data-kind") == "multikueue" for f in dom.figures), "multikueue: no MultiKueue chart")

    # LeaderWorkerSet: its own section.
    lws = sim_run([os.path.join(root, "scenarios", "serving", "rollout-surge-borrows.yaml")],
                  os.path.join(work, "rollout"))
    html_path = report(sim, work, "lws", [lws])
    dom, _, _, _ = check_report("lws", work, html_path, [("rollout", lws)])
    check("LeaderWorkerSets" in dom.toc, f"lws: no LeaderWorkerSets section in the contents {dom.toc}")
    check(any(f["attrs"].get("data-kind") == "lws" for f in dom.figures), "lws: no LeaderWorkerSet chart")


def philly(args, work):
    sys.path.insert(0, os.path.join(args.root, "bench"))
    import philly_compare  # noqa: E402
    traces = os.path.abspath(args.philly)
    philly_csv = os.path.join(traces, "philly", "philly.csv")
    if not os.path.exists(philly_csv):
        sys.exit(f"FAIL: {philly_csv} not found (the shared traces)")
    scenario = philly_compare.write_scenario(work, philly_csv, os.path.join(traces, "philly", "philly_vc.csv"))
    out = os.path.join(work, "philly-year")
    run([args.sim, "run", scenario, "--out", out, "--quiet"])
    summary = json.load(open(os.path.join(out, "summary.json")))
    workloads = sum(c["workloads"] for c in summary["clusters"])
    start = time.monotonic()
    html_path = report(args.sim, work, "philly-year", [out])
    report_seconds = (time.monotonic() - start) / 2
    dom, text, elapsed, render_ms = check_report("philly-year", work, html_path, [("philly-year", out)], max_render_ms=args.max_render_ms)
    print(f"Philly year: {workloads} workloads, report {len(text) / 1e6:.1f} MB written in {report_seconds:.2f} s, "
          f"{len(dom.figures)} charts drawn by Chromium in {render_ms} ms (whole chromium --dump-dom {elapsed:.1f} s)")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sim", required=True)
    parser.add_argument("--root", required=True)
    parser.add_argument("--out-dir", required=True, help="where the screenshot goes (the build directory)")
    parser.add_argument("--philly", help="the shared traces directory: render the Philly year instead")
    parser.add_argument("--max-render-ms", type=int, default=15000)
    args = parser.parse_args()
    args.sim = os.path.abspath(args.sim)
    args.root = os.path.abspath(args.root)
    os.makedirs(args.out_dir, exist_ok=True)
    args.out_dir = os.path.abspath(args.out_dir)
    with tempfile.TemporaryDirectory() as work:
        if args.philly:
            philly(args, work)
        else:
            small_scenarios(args, work)
    if FAILURES:
        print(f"{len(FAILURES)} failure(s)", file=sys.stderr)
        return 1
    print("report renders: every check passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
