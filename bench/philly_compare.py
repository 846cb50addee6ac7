#!/usr/bin/env python3
"""The Philly year through kueuesim, side by side with the straightforward
Python strict-FIFO simulation (bench/philly_fifo.py).

Writes the scenario (the full philly.csv through the `philly` importer, one
StrictFIFO ClusterQueue per virtual cluster of philly_vc.csv with its
nodes x 8 GPUs, no cohort), runs `kueuesim run` on it (printing its
summary, as a user runs it) and the Python reference, ROUNDS times each,
alternating, and prints both median whole-process times and their ratio;
then one more kueuesim run writes the per-workload table, whose mean wait
and mean JCT must equal the reference's (the same decisions must come
out), else the exit status is non-zero.

Usage: philly_compare.py --sim build/release/cli/kueuesim [--traces ../shared/traces] [--rounds 3]
"""
import argparse
import csv
import os
import statistics
import subprocess
import sys
import tempfile
import time
import json  # noqa: E401

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GPUS_PER_NODE = 8


def write_scenario(directory, philly_csv, vc_csv):
    docs = [f"""apiVersion: kueuesim.io/v1alpha1
kind: Trace
metadata: {{name: philly}}
spec:
  format: philly
  path: {philly_csv}
""", """apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: gpu}
"""]
    with open(vc_csv, newline="") as fh:
        for row in csv.DictReader(fh):
            vc, gpus = row["vc"], int(row["node num"]) * GPUS_PER_NODE
            docs.append(f"""apiVersion: v1
kind: Namespace
metadata: {{name: vc-{vc}}}
""")
            docs.append(f"""apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {{name: main, namespace: vc-{vc}}}
spec: {{clusterQueue: vc-{vc}}}
""")
            docs.append(f"""apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {{name: vc-{vc}}}
spec:
  namespaceSelector: {{}}
  queueingStrategy: StrictFIFO
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: gpu
      resources:
      - {{name: nvidia.com/gpu, nominalQuota: "{gpus}"}}
""")
    path = os.path.join(directory, "philly-year.yaml")
    with open(path, "w") as fh:
        fh.write("---\n".join(docs))
    return path


def kueuesim_means(table):
    waits, jcts = [], []
    with open(table, newline="") as fh:
        for row in csv.DictReader(fh):
            if row["status"] != "finished":
                continue
            waits.append(float(row["wait"]))
            jcts.append(float(row["finished"]) - float(row["arrival"]))
    return len(waits), sum(waits) / len(waits), sum(jcts) / len(jcts)


def timed(command):
    start = time.monotonic()
    result = subprocess.run(command, check=True, capture_output=True, text=True)
    return time.monotonic() - start, result.stdout


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sim", required=True)
    parser.add_argument("--traces", default=os.path.join(os.path.dirname(ROOT), "shared", "traces"))
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    philly_csv = os.path.abspath(os.path.join(args.traces, "philly", "philly.csv"))
    vc_csv = os.path.abspath(os.path.join(args.traces, "philly", "philly_vc.csv"))
    if not os.path.exists(philly_csv):
        print(f"philly_compare: {philly_csv} not found (the shared traces); skipped")
        return 0
    reference = os.path.join(ROOT, "bench", "philly_fifo.py")
    sim_times, py_times = [], []
    with tempfile.TemporaryDirectory() as tmp:
        scenario = write_scenario(tmp, philly_csv, vc_csv)
        table = os.path.join(tmp, "workloads.csv")
        for _ in range(args.rounds):
            seconds, _ = timed([args.sim, "run", scenario])
            sim_times.append(seconds)
            seconds, out = timed([sys.executable, reference, philly_csv, vc_csv])
            py_times.append(seconds)
        # The check: one more run writing the per-workload table (not timed).
        timed([args.sim, "run", scenario, "--workloads", table])
        finished, sim_wait, sim_jct = kueuesim_means(table)
    python = json.loads(out)
    sim_median, py_median = statistics.median(sim_times), statistics.median(py_times)
    print(f"Philly year ({python['jobs']} jobs, strict FIFO per VC), median of {args.rounds}, whole process:")
    print(f"  kueuesim          {sim_median:7.3f} s   {finished} finished, mean wait {sim_wait:.3f} s, "
          f"mean JCT {sim_jct:.3f} s")
    print(f"  Python reference  {py_median:7.3f} s   {python['started']} finished, "
          f"mean wait {python['meanWaitSeconds']:.3f} s, mean JCT {python['meanJctSeconds']:.3f} s")
    print(f"  kueuesim is {py_median / sim_median:.2f}x the Python reference's speed")
    agree = (finished == python["started"] and abs(sim_wait - python["meanWaitSeconds"]) < 1e-3 and
             abs(sim_jct - python["meanJctSeconds"]) < 1e-3)
    if not agree:
        print("philly_compare: kueuesim and the Python reference disagree", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
