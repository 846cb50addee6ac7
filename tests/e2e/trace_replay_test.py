#!/usr/bin/env python3
"""Trace replay end to end: kueuesim replays the Alibaba GPU 2023 pod list
slice in scenarios/traces/ with its recorded start times (Trace option
replayRecordedStart) and must reproduce the trace's own wait times,
computed here independently from the raw CSV (scheduled_time -
creation_time, pods never scheduled left out):

  - one row per scheduled pod in the --workloads table (CSV and JSON Lines
    agree), with wait, arrival and run time equal to the trace's;
  - the summary's wait statistics (count, nearest-rank p50/p90/p99, max,
    mean) equal the ones computed from the CSV;
  - the import report counts every row (read = workloads + skipped) and
    the never-scheduled pods by reason;
  - the same run gives byte-identical tables.

Usage: trace_replay_test.py --sim PATH --root SCENARIOS_DIR
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile

SCENARIO = "traces/alibaba-recorded-starts.yaml"
DATA = "traces/data/alibaba-openb-default-head1000.csv"


def nearest_rank(sorted_values, percent):
    rank = max(1, (len(sorted_values) * percent + 99) // 100)
    return sorted_values[rank - 1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sim", required=True)
    ap.add_argument("--root", required=True)
    args = ap.parse_args()
    failures = []

    def check(condition, message):
        if not condition:
            failures.append(message)

    # The trace's own figures, from the raw CSV.
    expected = {}
    never_scheduled = 0
    with open(os.path.join(args.root, DATA), newline="") as fh:
        rows = list(csv.DictReader(fh))
    for row in rows:
        if row["scheduled_time"] == "":
            never_scheduled += 1
            continue
        created, scheduled = float(row["creation_time"]), float(row["scheduled_time"])
        expected["alibaba/" + row["name"]] = {
            "arrival": created,
            "wait": scheduled - created,
            "run": float(row["deletion_time"]) - scheduled,
        }
    waits = sorted(e["wait"] for e in expected.values())

    with tempfile.TemporaryDirectory() as tmp:
        outputs = {}
        for name in ("a.csv", "b.csv", "c.jsonl"):
            summary = os.path.join(tmp, name + ".summary.json")
            cmd = [args.sim, "run", os.path.join(args.root, SCENARIO), "--quiet", "--summary", summary,
                   "--workloads", os.path.join(tmp, name)]
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
            if p.returncode != 0:
                print(f"FAIL: {' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()}")
                return 1
            check(p.stderr == "", f"stderr is not empty (no progress line in a pipe): {p.stderr[:200]!r}")
            with open(os.path.join(tmp, name)) as fh:
                outputs[name] = fh.read()
            with open(summary) as fh:
                outputs[name + ".summary"] = json.load(fh)

        check(outputs["a.csv"] == outputs["b.csv"], "two runs wrote different workload tables")
        table = list(csv.DictReader(outputs["a.csv"].splitlines()))
        jsonl = [json.loads(line) for line in outputs["c.jsonl"].splitlines()]
        check(len(table) == len(expected), f"{len(table)} table rows, want {len(expected)}")
        check(len(jsonl) == len(table), f"{len(jsonl)} JSON Lines rows, want {len(table)}")
        for row, obj in zip(table, jsonl):
            check(obj["workload"] == row["workload"] and float(obj["wait"]) == float(row["wait"]),
                  f"CSV and JSON Lines rows differ: {row} / {obj}")
        seen = set()
        for row in table:
            name = row["workload"]
            want = expected.get(name)
            if want is None:
                check(False, f"unexpected workload {name}")
                continue
            seen.add(name)
            check(row["status"] == "finished", f"{name}: status {row['status']}")
            check(abs(float(row["arrival"]) - want["arrival"]) < 1e-6, f"{name}: arrival {row['arrival']}, "
                  f"trace {want['arrival']}")
            check(abs(float(row["wait"]) - want["wait"]) < 1e-6, f"{name}: wait {row['wait']}, trace {want['wait']}")
            check(abs(float(row["runTime"]) - want["run"]) < 1e-6, f"{name}: run time {row['runTime']}, "
                  f"trace {want['run']}")
        check(seen == set(expected), f"missing workloads: {sorted(set(expected) - seen)[:5]}")

        summary = outputs["a.csv.summary"]
        cq = summary["clusters"][0]["clusterQueues"][0]
        stats = cq["waitSeconds"]
        want_stats = {"count": len(waits), "p50": nearest_rank(waits, 50), "p90": nearest_rank(waits, 90),
                      "p99": nearest_rank(waits, 99), "max": waits[-1], "mean": sum(waits) / len(waits)}
        for key, value in want_stats.items():
            tolerance = 1e-6 if key != "mean" else 1e-4  # the summary rounds the mean to the microsecond
            check(abs(float(stats[key]) - value) <= tolerance, f"summary wait {key} {stats[key]}, trace {value}")
        trace = summary["traces"][0]
        check(trace["rowsRead"] == len(rows), f"rowsRead {trace['rowsRead']}, want {len(rows)}")
        check(trace["workloads"] == len(expected), f"workloads {trace['workloads']}, want {len(expected)}")
        check(trace["skipped"] == {"never scheduled": never_scheduled},
              f"skipped {trace['skipped']}, want never scheduled: {never_scheduled}")
        print(f"trace waits: n={want_stats['count']} p50={want_stats['p50']} p90={want_stats['p90']} "
              f"p99={want_stats['p99']} max={want_stats['max']} mean={want_stats['mean']:.3f}; "
              f"simulated: {stats}")

    for f in failures[:30]:
        print("FAIL:", f)
    if failures:
        print(f"{len(failures)} failure(s)")
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
