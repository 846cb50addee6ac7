#!/usr/bin/env python3
"""A capacity-planning study in the style of a notebook: how much should the
busiest team of a shared GPU cluster be allowed to borrow?

The trace is a real one: three days of the Philly cluster's job log
(../shared/traces/philly, sliced into scenarios/capacity-planning/data),
three virtual clusters sharing 80 GPUs through a cohort
(scenarios/capacity-planning/base.yaml, docs/capacity-planning.md). The
study sweeps the borrowing limit of the busiest ClusterQueue and prints,
for each value, the p50 / p90 wait of every team and the GPU utilization,
working on the run's tables as pandas DataFrames (Simulation.summary_frames).

    PYTHONPATH=build/release/python python3 examples/python/borrowing_limit_sweep.py

(After `./dev.sh run`, plain `python3` finds the module.)
"""
import os
import sys

import kueuesim
import pandas

ROOT = os.environ.get("KUEUESIM_SOURCE_DIR",
                      os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
STUDY = os.path.join(ROOT, "scenarios", "capacity-planning")
BUSY_TEAM = "vc-6c71a0"             # the ClusterQueue with the most demand
LIMITS = ["0", "8", "16", "32", kueuesim.NO_LIMIT]


def minutes(seconds):
    if pandas.isna(seconds):  # no data: the team admitted nothing
        return "-"
    return "%.0fm" % (seconds / 60.0)


def main():
    # 1. Load the study once: the cluster's Kueue objects and the trace.
    base = kueuesim.load([os.path.join(STUDY, "base.yaml"), os.path.join(STUDY, "common.yaml")])

    # 2. One run per borrowing limit, on a copy of the scenario; keep the
    #    summary's tables (pandas DataFrames, numbers as numbers).
    queues, resources = [], []
    for limit in LIMITS:
        scenario = base.copy()
        scenario.set_quota(BUSY_TEAM, "gpu", "nvidia.com/gpu", borrowing_limit=limit)
        sim = scenario.simulation()
        sim.run()
        tables = sim.summary_frames()
        label = "none" if limit == kueuesim.NO_LIMIT else limit
        queues.append(tables["clusterQueues"].assign(limit=label))
        resources.append(tables["resources"].assign(limit=label))
    queues = pandas.concat(queues)
    gpus = pandas.concat(resources).query("resource == 'nvidia.com/gpu'")

    # 3. The table: waits per team, GPU utilization weighted by quota.
    waits = queues.pivot(index="limit", columns="clusterQueue", values=["waitP50Seconds", "waitP90Seconds"])
    used = (gpus["utilization"] * gpus["nominalQuota"]).groupby(gpus["limit"]).sum()
    utilization = used / gpus.groupby("limit")["nominalQuota"].sum()
    teams = sorted(queues["clusterQueue"].unique())
    header = ["borrowing limit of " + BUSY_TEAM] + ["%s p50/p90" % t for t in teams] + ["GPU utilization"]
    print(" | ".join(header))
    print(" | ".join("---" for _ in header))
    for limit in ["none" if l == kueuesim.NO_LIMIT else l for l in LIMITS]:
        cells = [limit]
        cells += ["%s / %s" % (minutes(waits.loc[limit, ("waitP50Seconds", t)]),
                               minutes(waits.loc[limit, ("waitP90Seconds", t)])) for t in teams]
        cells.append("%.1f %%" % (100 * utilization[limit]))
        print(" | ".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
