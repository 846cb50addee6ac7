#!/usr/bin/env python3
"""`kueuesim explain`: describes one workload of scenarios/docs/pending-reasons.yaml
like `kubectl describe workload`: at 10m `small` waits with Kueue's
WaitingForQuota message; at the end it is finished and its history shows the
pending reason, the reservation and the completion; `big-train` waits with
ExceedsMaxQuota, `orphan` with Misconfigured; a bare name means namespace
default; an unknown workload is exit 1, a bad --at exit 2. Also checks the
workload table's pendingReason/pendingMessage columns and the summary's
pendingByReason.

Usage: explain_test.py --sim PATH --root SCENARIOS_DIR
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sim", required=True)
    ap.add_argument("--root", required=True)
    args = ap.parse_args()
    scenario = os.path.join(args.root, "docs", "pending-reasons.yaml")
    results = []

    def expect(name, ok, detail):
        results.append(ok)
        print(("ok   " if ok else "FAIL ") + name + ("" if ok else ": " + detail))

    waiting = ("couldn't assign flavors to pod set main: insufficient unused quota for cpu in flavor default, "
               "2 more needed")
    code, out, err = run([args.sim, "explain", scenario, "--workload", "research/small", "--at", "10m"])
    expect("small at 10m waits for quota",
           code == 0 and "Name:           small" in out and "Status:         Pending at 10m" in out
           and "QuotaReserved  False  WaitingForQuota" in out and waiting in out
           and "Admitted       False  NoReservation" in out
           and "Finished" not in out,
           f"exit {code}\n{out}{err}")
    history = out[out.find("History:"):]
    expect("history at 10m: arrival then the pending reason",
           history.find("Arrived") < history.find("Pending") and "1m" in history and "QuotaReserved" not in history,
           history)

    code, out, err = run([args.sim, "explain", scenario, "--workload", "research/small"])
    expect("small at the end: finished, history complete",
           code == 0 and "QuotaReserved  True   QuotaReserved" in out
           and "Quota reserved in ClusterQueue research" in out
           and "Finished       True   Succeeded" in out
           and "Admitted by ClusterQueue research" in out,
           f"exit {code}\n{out}{err}")

    code, out, err = run([args.sim, "explain", scenario, "--workload", "research/big-train"])
    expect("big-train exceeds the maximum capacity",
           code == 0 and "ExceedsMaxQuota" in out
           and "current podset request (12) > maximum capacity (10)" in out,
           f"exit {code}\n{out}{err}")

    code, out, err = run([args.sim, "explain", scenario, "--workload", "research/orphan"])
    expect("orphan has no LocalQueue", code == 0 and "Misconfigured" in out
           and "LocalQueue nope doesn't exist" in out and "Cluster Queue:  <none>" in out,
           f"exit {code}\n{out}{err}")

    code, out, err = run([args.sim, "explain", scenario, "--workload", "selected"])
    expect("a bare name is namespace default: not found, exit 1",
           code == 1 and "no workload default/selected" in err, f"exit {code}\n{out}{err}")

    code, out, err = run([args.sim, "explain", scenario, "--workload", "research/small", "--at", "soon"])
    expect("a bad --at is exit 2", code == 2 and "--at" in err, f"exit {code}\n{out}{err}")

    with tempfile.TemporaryDirectory() as tmp:
        table = os.path.join(tmp, "workloads.csv")
        summary = os.path.join(tmp, "summary.json")
        code, out, err = run([args.sim, "run", scenario, "--quiet", "--workloads", table, "--summary", summary])
        rows = {}
        if code == 0:
            with open(table) as fh:
                rows = {r["workload"]: r for r in csv.DictReader(fh)}
        expect("workload table: the last pending reason and message",
               code == 0 and rows.get("research/small", {}).get("pendingReason") == "WaitingForQuota"
               and rows["research/small"]["pendingMessage"] == waiting
               and rows["research/small"]["status"] == "finished"
               and rows.get("research/selected", {}).get("pendingMessage")
               == "workload namespace doesn't match ClusterQueue selector"
               and rows.get("research/fill", {}).get("pendingReason") == "",
               f"exit {code}\n{rows}\n{err}")
        doc = {}
        if code == 0:
            with open(summary) as fh:
                doc = json.load(fh)
        cluster = doc.get("clusters", [{}])[0]
        queues = {q["name"]: q for q in cluster.get("clusterQueues", [])}
        expect("summary: pending workloads by reason",
               cluster.get("pendingByReason") == {"ExceedsMaxQuota": 1, "Misconfigured": 2}
               and queues.get("research", {}).get("pendingByReason") == {"ExceedsMaxQuota": 1}
               and queues.get("restricted", {}).get("pendingByReason") == {"Misconfigured": 1},
               json.dumps(cluster)[:2000])
        code, out, err = run([args.sim, "run", scenario])
        expect("text summary: top reasons with an example",
               code == 0 and "Pending at the end, by QuotaReserved reason:" in out
               and "e.g. research/orphan: LocalQueue nope doesn't exist" in out,
               f"exit {code}\n{out}{err}")

    print(f"{sum(results)}/{len(results)} checks passed")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
