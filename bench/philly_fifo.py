#!/usr/bin/env python3
"""The straightforward Python simulation of the Philly year that kueuesim is
measured against (docs/performance.md, issue "trace replay near the limit").

Reads philly.csv (timestamp,duration,num_gpus,gpu_time,cluster; not sorted)
with the csv module and replays it as strict FIFO per virtual cluster: one
queue per VC listed in philly_vc.csv, with node_num x 8 GPUs; a job starts
when it is the oldest waiting job of its VC (submit time, then line) and its
GPUs are free; a job that can never fit blocks its VC for good, as a
StrictFIFO ClusterQueue's head does. Jobs of VCs without a queue never
start. One heap of running jobs per VC, one event heap for the whole trace.

Prints one JSON line: jobs, started, mean wait and mean JCT (seconds, over
the jobs that finished), and the time it took.

Usage: philly_fifo.py PHILLY_CSV PHILLY_VC_CSV
"""
import csv
import datetime
import heapq
import json
import sys
import time
from collections import deque

GPUS_PER_NODE = 8


def main():
    started_at = time.monotonic()
    philly_csv, vc_csv = sys.argv[1], sys.argv[2]
    capacity = {}
    with open(vc_csv, newline="") as fh:
        for row in csv.DictReader(fh):
            capacity[row["vc"]] = int(row["node num"]) * GPUS_PER_NODE
    epoch = datetime.datetime(1970, 1, 1)
    jobs = []  # (submit_us, line, duration_us, gpus, vc)
    with open(philly_csv, newline="") as fh:
        reader = csv.reader(fh)
        next(reader)
        for line, row in enumerate(reader, start=2):
            if not row:
                continue  # the empty last line
            submit = datetime.datetime.strptime(row[0], "%Y-%m-%d %H:%M:%S")
            submit_us = int((submit - epoch).total_seconds()) * 1_000_000
            jobs.append((submit_us, line, round(float(row[1]) * 1e6), int(row[2]), row[4]))
    jobs.sort()

    queues = {vc: deque() for vc in capacity}
    free = dict(capacity)
    events = []  # (time_us, kind, seq, payload): kind 0 = a job ends, 1 = a job arrives
    for i, job in enumerate(jobs):
        heapq.heappush(events, (job[0], 1, i, job))
    waits, jcts = [], []
    started = 0
    seq = len(jobs)
    while events:
        now, kind, _, payload = heapq.heappop(events)
        if kind == 0:
            vc, gpus = payload
            free[vc] += gpus
        else:
            vc = payload[4]
            if vc not in queues:
                continue  # no queue for this VC: never admitted
            queues[vc].append(payload)
        # Events at the same instant are all applied before admitting.
        if events and events[0][0] == now:
            continue
        for vc, queue in queues.items():
            while queue and queue[0][3] <= free[vc]:
                submit_us, _, duration_us, gpus, _ = queue.popleft()
                free[vc] -= gpus
                started += 1
                seq += 1
                heapq.heappush(events, (now + duration_us, 0, seq, (vc, gpus)))
                waits.append(now - submit_us)
                jcts.append(now - submit_us + duration_us)
    result = {
        "jobs": len(jobs),
        "started": started,
        "meanWaitSeconds": sum(waits) / len(waits) / 1e6 if waits else None,
        "meanJctSeconds": sum(jcts) / len(jcts) / 1e6 if jcts else None,
        "seconds": round(time.monotonic() - started_at, 3),
    }
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
