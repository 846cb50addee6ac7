#!/usr/bin/env python3
"""A capacity-planning study in the style of a notebook: how much should the
busiest team of a shared GPU cluster be allowed to borrow?

The trace is a real one: three days of the Philly cluster's job log
(../shared/traces/philly, sliced into scenarios/capacity-planning/data),
three virtual clusters sharing 80 GPUs through a cohort
(scenarios/capacity-planning/base.yaml, docs/capacity-planning.md). The
study sweeps the borrowing limit of the busiest ClusterQueue and prints,
for each value, the p50 / p90 wait of every team and the GPU utilization.

    PYTHONPATH=build/release/python python3 examples/python/borrowing_limit_sweep.py

(After `./dev.sh run`, plain `python3` finds the module.)
"""
import os
import sys

import kueuesim

ROOT = os.environ.get("KUEUESIM_SOURCE_DIR",
                      os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
STUDY = os.path.join(ROOT, "scenarios", "capacity-planning")
BUSY_TEAM = "vc-6c71a0"             # the ClusterQueue with the most demand
LIMITS = ["0", "8", "16", "32", kueuesim.NO_LIMIT]


def minutes(seconds):
    if seconds is None:  # no data: the team admitted nothing
        return "-"
    return "%.0fm" % (seconds / 60.0)


def main():
    # 1. Load the study once: the cluster's Kueue objects and the trace.
    base = kueuesim.load([os.path.join(STUDY, "base.yaml"), os.path.join(STUDY, "common.yaml")])
    teams = sorted(cq["name"] for cq in base.cluster_queues())

    # 2. One run per borrowing limit, on a copy of the scenario.
    rows = []
    for limit in LIMITS:
        scenario = base.copy()
        scenario.set_quota(BUSY_TEAM, "gpu", "nvidia.com/gpu", borrowing_limit=limit)
        sim = scenario.simulation()
        sim.run()
        summary = sim.summary()
        queues = {cq["name"]: cq for cluster in summary["clusters"] for cq in cluster["clusterQueues"]}
        row = {"limit": "none" if limit == kueuesim.NO_LIMIT else limit}
        used = nominal = 0.0
        for team in teams:
            wait = queues[team]["waitSeconds"]
            row[team] = (wait["p50"], wait["p90"])
            for r in queues[team]["resources"]:
                if r["resource"] == "nvidia.com/gpu" and r["utilization"] is not None:
                    quota = float(r["nominalQuota"])
                    used += r["utilization"] * quota
                    nominal += quota
        row["utilization"] = used / nominal if nominal else 0.0
        rows.append(row)

    # 3. The table.
    header = ["borrowing limit of " + BUSY_TEAM] + ["%s p50/p90" % t for t in teams] + ["GPU utilization"]
    print(" | ".join(header))
    print(" | ".join("---" for _ in header))
    for row in rows:
        cells = [row["limit"]]
        cells += ["%s / %s" % (minutes(row[t][0]), minutes(row[t][1])) for t in teams]
        cells.append("%.1f %%" % (100 * row["utilization"]))
        print(" | ".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
