#!/usr/bin/env python3
"""The Philly fan-out study of docs/multikueue.md ("Fan-out of a recorded
load"): one week of the Philly trace through a MultiKueue manager over five
workers (philly-fleet.yaml), dispatched three ways:

  AllAtOnce     philly-all-at-once.yaml (Kueue's default dispatcher)
  Incremental   philly-incremental.yaml (Kueue's, stepSize 1)
  most-free     the dispatcher below, written in Python and registered as
                "example.com/most-free-then-all"; run on
                philly-all-at-once.yaml with spec.policies.dispatcher set to
                it (Scenario.set_policy), so only the dispatcher differs.

It prints the table of docs/multikueue.md (Markdown) and, with --json FILE,
writes the figures as JSON: philly-fanout.figures.json is that file, checked
by tests/python/test_philly_fanout.py (the three runs, from Python) and by
tests/e2e/sweep_test.py (the Kueue dispatchers' runs, from the CLI's Sweep).
Needs the Python module (docs/python.md; `./dev.sh run` puts it on the path):

  python3 scenarios/multikueue/philly_fanout.py [--json FILE]

figures() needs only the summary, not the module.
"""
import argparse
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FLEET = os.path.join(HERE, "philly-fleet.yaml")
MOST_FREE = "example.com/most-free-then-all"


class MostFreeThenAll:
    """One copy, on the connected worker with the most free quota for the
    job's largest request, among the workers where the whole job fits now
    (ties: the MultiKueueConfig's order); a copy on every worker when it
    fits nowhere now, or when the single copy is still not admitted after
    `widenAfter` seconds (default 60: another job took the room first).

    It keeps AllAtOnce's reach without its duplicate reservations while
    some worker has room, and falls back to AllAtOnce when none has."""

    def __init__(self, parameters):
        self.widen_after = float(parameters.get("widenAfter", "60"))

    def nominate(self, request):
        usable = [i for i, c in enumerate(request.clusters) if c.connected and c.has_queue]
        if request.nominated:
            if len(request.nominated) >= len(usable):
                return request.nominated
            widen_at = request.last_nomination + self.widen_after
            if request.now < widen_at:
                return {"nominated": request.nominated, "recheck_at": widen_at}
            return usable
        key = max(request.requests, key=lambda r: request.requests[r])

        def fits(cluster):
            return all(cluster.free.get(r, 0) >= amount for r, amount in request.requests.items())

        fitting = [i for i in usable if fits(request.clusters[i])]
        if not fitting:
            return usable
        best = max(fitting, key=lambda i: request.clusters[i].free[key])  # the first of the largest
        return {"nominated": [best], "recheck_at": request.now + self.widen_after}


def register():
    """Registers MostFreeThenAll as MOST_FREE (once per process)."""
    import kueuesim
    if not any(p["kind"] == "dispatcher" and p["name"] == MOST_FREE for p in kueuesim.policies()):
        kueuesim.register_dispatcher(MOST_FREE, MostFreeThenAll,
                                     "one copy on the worker with the most free quota where the job fits; "
                                     "every worker when none fits or after widenAfter seconds")

RUNS = [
    ("AllAtOnce", "philly-all-at-once.yaml", None),
    ("Incremental (stepSize 1)", "philly-incremental.yaml", None),
    ("most-free-then-all (Python)", "philly-all-at-once.yaml", MOST_FREE),
]


def percentile(values, q):
    """Nearest rank: the smallest value with at least q of the values at or below it."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def figures(summary):
    """The study's figures from a run's summary (the CLI's --summary document)."""
    mk = summary["multiKueue"][0]
    jobs = mk["perWorkload"]
    # A job's wait: from its submission to the manager until a worker admitted it.
    waits = [w["admitted"] - w["arrival"] for w in jobs]
    workers = [c for c in summary["clusters"] if c["name"] != mk["manager"]]
    used = sum(r["usedAmountSeconds"] for c in workers for q in c["clusterQueues"] for r in q["resources"]
               if r["resource"] == "nvidia.com/gpu")
    won = {w["name"]: w["won"] for w in mk["workers"]}
    return {
        "jobs": len(jobs),
        "finished": mk["finished"],
        "waitMeanSeconds": round(sum(waits) / len(waits), 1),
        "waitP50Seconds": percentile(waits, 0.50),
        "waitP95Seconds": percentile(waits, 0.95),
        "waitMaxSeconds": max(waits),
        "waitedOverAMinute": sum(1 for w in waits if w > 60),
        # GPU-hours the workers' quota was held (the winners' runs, the
        # losing copies' reservations) over the fleet's 2,490 GPUs for the
        # week the jobs were submitted in.
        "workerGpuHours": round(used / 3600, 1),
        "fleetUtilizationWeek": round(used / (2490 * 7 * 86400), 4),
        "copies": mk["copies"],
        "copiesPerJob": round(mk["copies"] / len(jobs), 2),
        "reservations": mk["reservations"],
        "losingReservations": mk["losingReservations"],
        "losingQuotaGpuHours": round(mk["losingQuotaSeconds"].get("nvidia.com/gpu", 0.0) / 3600, 2),
        "duplicateRunSeconds": mk["duplicateRunSeconds"],
        "apiOperations": sum(mk["apiOperations"].values()),
        "wonByWorker": won,
    }


def run(variant, dispatcher):
    """The summary of one run of the study (RUNS: variant file, dispatcher or None)."""
    import kueuesim
    scenario = kueuesim.load([os.path.join(HERE, variant), FLEET])
    if dispatcher is not None:
        if dispatcher == MOST_FREE:
            register()
        scenario.set_policy("dispatcher", dispatcher)
    sim = scenario.simulation()
    sim.run()
    return sim.summary()


def hms(seconds):
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} m {seconds % 60} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60} m"


def table(results):
    rows = [
        ("jobs finished", lambda f: f"{f['finished']}"),
        ("wait (submission to worker admission), mean", lambda f: hms(f["waitMeanSeconds"])),
        ("p50", lambda f: hms(f["waitP50Seconds"])),
        ("p95", lambda f: hms(f["waitP95Seconds"])),
        ("max", lambda f: hms(f["waitMaxSeconds"])),
        ("jobs that waited over a minute", lambda f: f"{f['waitedOverAMinute']}"),
        ("fleet GPU utilization over the week", lambda f: f"{100 * f['fleetUtilizationWeek']:.1f} %"),
        ("copies (per job)", lambda f: f"{f['copies']} ({f['copiesPerJob']:.2f})"),
        ("worker reservations", lambda f: f"{f['reservations']}"),
        ("of which losing (duplicate)", lambda f: f"{f['losingReservations']}"),
        ("GPU-hours held by losing copies", lambda f: f"{f['losingQuotaGpuHours']:.2f}"),
        ("jobs running twice", lambda f: hms(f["duplicateRunSeconds"])),
        ("API operations", lambda f: f"{f['apiOperations']}"),
        ("jobs won by worker-01 .. 05", lambda f: " / ".join(str(v) for v in f["wonByWorker"].values())),
    ]
    out = ["| | " + " | ".join(name for name, _ in results) + " |", "|---" * (len(results) + 1) + "|"]
    for label, cell in rows:
        out.append(f"| {label} | " + " | ".join(cell(f) for _, f in results) + " |")
    return "\n".join(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", help="write the figures to this file")
    args = parser.parse_args()
    results = [(name, figures(run(variant, dispatcher))) for name, variant, dispatcher in RUNS]
    print(table(results))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({name: f for name, f in results}, fh, indent=1, sort_keys=True)
            fh.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
