#!/usr/bin/env python3
"""kueuesim compare end to end.

Setup: the fair-sharing documentation scenario as the base; as variants the
same scenario again, and a comma-joined pair (the scenario plus a file that
adds one more workload to ClusterQueue x).
Invariant: the table and --json agree with `kueuesim run --summary` of each
scenario (admitted, finished, preempted per ClusterQueue and overall), every
delta is variant minus base (all zero for the identical variant), --until
stops every run there, output is byte-identical across runs, and a missing
file fails with exit 1 naming it.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

EXTRA_WORKLOAD = """apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: extra
  namespace: {namespace}
  annotations:
    kueuesim.io/arrival: "10m"
    kueuesim.io/duration: "20m"
spec:
  queueName: {queue}
  podSets:
  - name: main
    count: 1
    template:
      spec:
        containers:
        - name: c
          resources:
            requests:
              cpu: "1"
"""


def run(cmd, expect=0):
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != expect:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {result.returncode} (expected {expect}):\n{result.stderr}")
    return result


def local_queue_of(scenario_text, cluster_queue):
    """(namespace, name) of a LocalQueue pointing at cluster_queue."""
    docs = scenario_text.split("\n---")
    for doc in docs:
        if "kind: LocalQueue" in doc and f"clusterQueue: {cluster_queue}" in doc:
            name = namespace = None
            for line in doc.splitlines():
                stripped = line.strip()
                if stripped.startswith("name:") and name is None:
                    name = stripped.split(":", 1)[1].strip()
                if stripped.startswith("namespace:") and namespace is None:
                    namespace = stripped.split(":", 1)[1].strip()
            return namespace or "default", name
    sys.exit(f"FAIL: no LocalQueue for {cluster_queue} in the scenario")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sim", required=True)
    parser.add_argument("--root", required=True)
    args = parser.parse_args()
    base = os.path.join(args.root, "docs", "fair-sharing.yaml")
    with tempfile.TemporaryDirectory() as tmp:
        namespace, queue = local_queue_of(open(base).read(), "x")
        extra = os.path.join(tmp, "extra.yaml")
        with open(extra, "w") as f:
            f.write(EXTRA_WORKLOAD.format(namespace=namespace, queue=queue))
        variant = f"{base},{extra}"
        out_json = os.path.join(tmp, "compare.json")
        table = run([args.sim, "compare", base, base, variant, "--json", out_json]).stdout
        again = run([args.sim, "compare", base, base, variant, "--json", out_json + ".2"]).stdout
        if table != again or open(out_json).read() != open(out_json + ".2").read():
            sys.exit("FAIL: compare output differs between two identical invocations")
        doc = json.load(open(out_json))
        if [len(r["files"]) for r in doc["runs"]] != [1, 1, 2]:
            sys.exit(f"FAIL: runs {doc['runs']}")
        figures = {f["figure"]: f for f in doc["figures"]}

        summaries = []
        for i, files in enumerate([[base], [base], [base, extra]]):
            path = os.path.join(tmp, f"summary{i}.json")
            run([args.sim, "run", *files, "--summary", path, "--quiet"])
            summaries.append(json.load(open(path)))
        for key, field in (("admitted", "admitted"), ("finished", "finished"), ("preempted", "preempted")):
            expected = [sum(cq[field] for c in s["clusters"] for cq in c["clusterQueues"]) for s in summaries]
            if figures[key]["values"] != expected:
                sys.exit(f"FAIL: {key}: compare {figures[key]['values']}, summaries {expected}")
            for s_index, s in enumerate(summaries):
                for cq in s["clusters"][0]["clusterQueues"]:
                    row = figures[f"cq {cq['name']} {key}"]
                    if row["values"][s_index] != cq[field]:
                        sys.exit(f"FAIL: cq {cq['name']} {key}: {row['values']} vs summary {cq[field]}")
        if figures["admitted"]["values"][2] != figures["admitted"]["values"][0] + 1:
            sys.exit(f"FAIL: the variant with one more workload admitted {figures['admitted']['values']}")
        for figure in doc["figures"]:
            values, deltas = figure["values"], figure["deltas"]
            if deltas[0] is not None:
                sys.exit(f"FAIL: the base has a delta: {figure}")
            for i in (1, 2):
                if values[i] is None or values[0] is None:
                    continue
                if abs(deltas[i] - (values[i] - values[0])) > 1e-9:
                    sys.exit(f"FAIL: delta is not variant - base: {figure}")
                if i == 1 and deltas[i] != 0:
                    sys.exit(f"FAIL: the identical variant differs: {figure}")
        if "utilization default-flavor/cpu" not in figures:
            sys.exit(f"FAIL: no utilization row: {sorted(figures)}")
        for needle in ("base: fair-sharing.yaml", "fair-sharing.yaml,extra.yaml", "admitted", "(+1)"):
            if needle not in table:
                sys.exit(f"FAIL: the table lacks {needle!r}:\n{table}")

        run([args.sim, "compare", base, variant, "--until", "30m", "--json", out_json])
        doc = json.load(open(out_json))
        if doc["until"] != "30m" or any(r["endTime"] > 1800 for r in doc["runs"]):
            sys.exit(f"FAIL: --until 30m: {doc['runs']}")

        missing = os.path.join(tmp, "missing.yaml")
        result = run([args.sim, "compare", base, missing], expect=1)
        if "missing.yaml" not in result.stderr:
            sys.exit(f"FAIL: the error does not name the missing file: {result.stderr}")
        run([args.sim, "compare", base], expect=2)
        check_multikueue(args, tmp)
    print("compare: ok")


def check_multikueue(args, tmp):
    """MultiKueue rows count manager workloads (not copies) and agree with
    each run's summary."""
    mk = os.path.join(args.root, "multikueue")
    clusters = os.path.join(mk, "ten-workers-clusters.yaml")
    scenarios = [[os.path.join(mk, "ten-workers-all-at-once.yaml"), clusters],
                 [os.path.join(mk, "ten-workers-incremental.yaml"), clusters]]
    out_json = os.path.join(tmp, "compare-mk.json")
    run([args.sim, "compare", *[",".join(files) for files in scenarios], "--json", out_json])
    figures = {f["figure"]: f for f in json.load(open(out_json))["figures"]}
    for i, files in enumerate(scenarios):
        path = os.path.join(tmp, f"summary-mk{i}.json")
        run([args.sim, "run", *files, "--summary", path, "--quiet"])
        manager = json.load(open(path))["multiKueue"][0]
        for figure, value in (("workloads", manager["workloads"]), ("finished", manager["finished"]),
                              ("copies", manager["copies"]), ("losing reservations", manager["losingReservations"])):
            row = figures.get(f"multikueue manager {figure}")
            if row is None or row["values"][i] != value:
                sys.exit(f"FAIL: multikueue {figure}: compare {row}, summary {value}")
        if figures["multikueue manager workloads"]["values"][i] == manager["copies"]:
            sys.exit("FAIL: the MultiKueue workloads row counts copies")


if __name__ == "__main__":
    main()
