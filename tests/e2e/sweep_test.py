#!/usr/bin/env python3
"""kueuesim sweep and sweep-merge end to end.

Setup: scenarios/docs/fair-sharing.yaml with examples/sweeps/
fair-sharing-sweep.yaml (3 x 2 x 2 = 12 points), run unsharded and as
shards 0/5 .. 4/5 (uneven: 12 points over 5 shards).
Invariant: the shards together write every point exactly once; merging
the shards gives byte-for-byte the table of the unsharded run; each point
file holds its parameter values and the summary of `kueuesim run` on the
scenario with those values (checked for the x-cpu values by editing the
quota by hand); --jobs 1 and --jobs 4 write byte-identical point files;
a missing shard, an overlapping shard, a bad --shard and a
Sweep naming an unknown ClusterQueue fail clearly.
"""
import argparse
import csv
import glob
import importlib.util
import json
import os
import subprocess
import sys
import tempfile


def run(cmd, expect=0):
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != expect:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {result.returncode} (expected {expect}):\n{result.stderr}")
    return result


def points_in(directory):
    return sorted(int(os.path.basename(p)[6:12]) for p in glob.glob(os.path.join(directory, "point-*.json")))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sim", required=True)
    parser.add_argument("--source", required=True)
    parser.add_argument("--sanitized", action="store_true",
                        help="a sanitizer build (tens of times slower): the Philly study's figures are "
                             "left to the optimized build; its scenarios run for a few simulated hours only")
    args = parser.parse_args()
    scenario = os.path.join(args.source, "scenarios", "docs", "fair-sharing.yaml")
    sweep = os.path.join(args.source, "examples", "sweeps", "fair-sharing-sweep.yaml")
    with tempfile.TemporaryDirectory() as tmp:
        whole = os.path.join(tmp, "whole")
        run([args.sim, "sweep", scenario, sweep, "--out", whole])
        if points_in(whole) != list(range(12)):
            sys.exit(f"FAIL: the unsharded sweep wrote points {points_in(whole)}")
        shards = []
        seen = []
        for i in range(5):
            d = os.path.join(tmp, f"shard{i}")
            run([args.sim, "sweep", scenario, sweep, "--out", d, "--shard", f"{i}/5"])
            if points_in(d) != [p for p in range(12) if p % 5 == i]:
                sys.exit(f"FAIL: shard {i}/5 wrote points {points_in(d)}")
            seen += points_in(d)
            shards.append(d)
        if sorted(seen) != list(range(12)):
            sys.exit(f"FAIL: the shards cover {sorted(seen)}, not every point exactly once")

        # Points run on several threads write the same bytes as on one.
        serial = os.path.join(tmp, "serial")
        threaded = os.path.join(tmp, "threaded")
        run([args.sim, "sweep", scenario, sweep, "--out", serial, "--jobs", "1"])
        run([args.sim, "sweep", scenario, sweep, "--out", threaded, "--jobs", "4"])
        for p in range(12):
            name = f"point-{p:06d}.json"
            a = open(os.path.join(serial, name)).read()
            b = open(os.path.join(threaded, name)).read()
            c = open(os.path.join(whole, name)).read()
            if not (a == b == c):
                sys.exit(f"FAIL: {name} differs between --jobs 1, --jobs 4 and the default")
        run([args.sim, "sweep", scenario, sweep, "--out", os.path.join(tmp, "zero"), "--jobs", "0"], expect=2)

        whole_csv = os.path.join(tmp, "whole.csv")
        merged_csv = os.path.join(tmp, "merged.csv")
        run([args.sim, "sweep-merge", whole, "-o", whole_csv])
        run([args.sim, "sweep-merge", *reversed(shards), "-o", merged_csv])
        whole_text, merged_text = open(whole_csv).read(), open(merged_csv).read()
        if whole_text != merged_text:
            sys.exit(f"FAIL: merged shards differ from the unsharded table:\n{whole_text}\n---\n{merged_text}")
        lines = whole_text.splitlines()
        if len(lines) != 13 or not lines[0].startswith("point,x-cpu,y-weight,ordering,admitted,"):
            sys.exit(f"FAIL: table shape: {lines[:2]}")

        # A point equals a plain run of the scenario with its values.
        original = open(scenario).read()
        if original.count('nominalQuota: "10"') < 1:
            sys.exit("FAIL: the scenario no longer has x's cpu quota \"10\"; update this test")
        for point, x_cpu in ((0, "6"), (8, "14")):
            doc = json.load(open(os.path.join(whole, f"point-{point:06d}.json")))
            if doc["parameters"] != {"x-cpu": x_cpu, "y-weight": "1", "ordering": ""} or doc["points"] != 12:
                sys.exit(f"FAIL: point {point} parameters {doc['parameters']}")
            edited = os.path.join(tmp, f"edited{point}.yaml")
            # x is the first ClusterQueue with a "10" cpu quota in the file.
            with open(edited, "w") as f:
                f.write(original.replace('nominalQuota: "10"', f'nominalQuota: "{x_cpu}"', 1))
            summary_path = os.path.join(tmp, f"summary{point}.json")
            run([args.sim, "run", edited, "--summary", summary_path, "--quiet"])
            expected = json.load(open(summary_path))
            if doc["summary"]["clusters"] != expected["clusters"] or doc["summary"]["endTime"] != expected["endTime"]:
                sys.exit(f"FAIL: point {point} summary differs from a run with x cpu {x_cpu}")
            admitted = sum(cq["admitted"] for c in expected["clusters"] for cq in c["clusterQueues"])
            if doc["figures"]["admitted"] != admitted:
                sys.exit(f"FAIL: point {point} figures.admitted {doc['figures']['admitted']} != {admitted}")

        # The Philly fan-out study's Sweep over the MultiKueue dispatcher
        # (docs/multikueue.md): each point gives the study's checked figures
        # for its dispatcher (philly-fanout.figures.json, also checked from
        # Python by tests/python/test_philly_fanout.py), and the table's mk:
        # columns are its summary's figures.
        mk_dir = os.path.join(args.source, "scenarios", "multikueue")
        if not args.sanitized:
            spec = importlib.util.spec_from_file_location("philly_fanout", os.path.join(mk_dir, "philly_fanout.py"))
            study = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(study)  # figures() only: no Python module needed
            with open(os.path.join(mk_dir, "philly-fanout.figures.json")) as fh:
                checked = json.load(fh)
            philly = os.path.join(tmp, "philly")
            run([args.sim, "sweep", os.path.join(mk_dir, "philly-all-at-once.yaml"),
                 os.path.join(mk_dir, "philly-fleet.yaml"), os.path.join(mk_dir, "philly-dispatchers-sweep.yaml"),
                 "--out", philly])
            philly_csv = os.path.join(tmp, "philly.csv")
            run([args.sim, "sweep-merge", philly, "-o", philly_csv])
            with open(philly_csv) as fh:
                table = list(csv.DictReader(fh))
            for point, name in ((0, "AllAtOnce"), (1, "Incremental (stepSize 1)")):
                summary = json.load(open(os.path.join(philly, f"point-{point:06d}.json")))["summary"]
                if study.figures(summary) != checked[name]:
                    sys.exit(f"FAIL: Philly sweep point {point}: figures {study.figures(summary)} != checked {checked[name]}")
                mk = summary["multiKueue"][0]
                want = {
                    "copies": mk["copies"],
                    "losing_reservations": mk["losingReservations"],
                    "losing_preemptions": mk["losingPreemptions"],
                    "admission_p50_s": mk["timeToAdmissionSeconds"]["p50"],
                    "admission_p90_s": mk["timeToAdmissionSeconds"]["p90"],
                    "losing_gpu_h": mk["losingQuotaSeconds"].get("nvidia.com/gpu", 0.0) / 3600,
                    "duplicate_run_s": mk["duplicateRunSeconds"],
                    "api_operations": sum(mk["apiOperations"].values()),
                }
                row = table[point]
                for key, value in want.items():
                    got = row.get("mk:manager:" + key)
                    if got is None or abs(float(got) - value) > 1e-6:
                        sys.exit(f"FAIL: Philly sweep point {point}: mk:manager:{key} is {got}, the summary says {value}")
        # The study's scenarios keep Kueue's invariants (e2e.scenarios does
        # not run them: see philly-all-at-once.yaml): AllAtOnce over the
        # first day, Incremental through worker-01's maintenance in the
        # week's largest burst (3d to 3d6h), a few seconds in all.
        variants = (("philly-all-at-once.yaml", "1d"), ("philly-incremental.yaml", "3d7h"))
        if args.sanitized:
            variants = (("philly-all-at-once.yaml", "6h"), ("philly-incremental.yaml", "6h"))
        for variant, until in variants:
            run([args.sim, "run", os.path.join(mk_dir, variant), os.path.join(mk_dir, "philly-fleet.yaml"),
                 "--quiet", "--check-invariants", "--until", until])

        # Failures.
        result = run([args.sim, "sweep-merge", *shards[1:], "-o", merged_csv], expect=1)
        if "missing point(s) 0, 5, 10" not in result.stderr:
            sys.exit(f"FAIL: a missing shard: {result.stderr}")
        result = run([args.sim, "sweep-merge", whole, shards[0], "-o", merged_csv], expect=1)
        if "appears twice" not in result.stderr:
            sys.exit(f"FAIL: overlapping shards: {result.stderr}")
        for bad in ("5/5", "1", "a/3", "0/0"):
            run([args.sim, "sweep", scenario, sweep, "--out", os.path.join(tmp, "bad"), "--shard", bad], expect=2)
        bad_sweep = os.path.join(tmp, "bad-sweep.yaml")
        with open(bad_sweep, "w") as f:
            f.write(open(sweep).read().replace("clusterQueue: x,", "clusterQueue: nope,"))
        result = run([args.sim, "sweep", scenario, bad_sweep, "--out", os.path.join(tmp, "bad")], expect=1)
        if "x-cpu" not in result.stderr or "no ClusterQueue nope" not in result.stderr:
            sys.exit(f"FAIL: unknown ClusterQueue: {result.stderr}")
        result = run([args.sim, "sweep", scenario, "--out", os.path.join(tmp, "bad")], expect=1)
        if "no kueuesim.io/v1alpha1 Sweep" not in result.stderr:
            sys.exit(f"FAIL: no Sweep object: {result.stderr}")
    print("sweep: ok")


if __name__ == "__main__":
    main()
