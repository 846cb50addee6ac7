#!/usr/bin/env python3
"""Real clusters in, as they are: the CLI on a directory of kubectl output.

Setup: a temporary directory holding a ClusterQueue setup (YAML), Jobs as
`kubectl get jobs -o json` prints them (a List; one with generateName, none
with kueuesim.io/duration), an Argo Workflow (.yml), a README.md and a
subdirectory with another Job.
Invariant: `run DIR` loads the .yaml, .yml and .json files in name order
and not the subdirectory; the unsimulated Workflow and the workloads
without a run time are warnings (stderr, summary JSON `warnings`,
`unsimulatedWorkloadKinds`, `workloadsWithoutDuration`, the text summary);
`validate` passes (exit 0) while `validate --strict` fails with exit 1 and
says why; with a Simulation defaultDurations file added, the workloads
run with a default (`defaultDurations` in the JSON, a `Default run time`
line) and the warning about missing run times is gone; the output is
byte-identical across runs and the seed changes the drawn run times.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

SETUP = """apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: default, resources: [{name: cpu, nominalQuota: "4"}]}]
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: user-queue, namespace: default}
spec: {clusterQueue: cq}
"""

JOBS_JSON = {
    "apiVersion": "v1",
    "kind": "List",
    "metadata": {"resourceVersion": ""},
    "items": [
        {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {"generateName": "sample-job-", "namespace": "default",
                         "labels": {"kueue.x-k8s.io/queue-name": "user-queue"}},
            "spec": {"parallelism": 3, "completions": 3,
                     "template": {"spec": {"restartPolicy": "Never", "containers": [
                         {"name": "c", "image": "i", "resources": {"requests": {"cpu": "1"}}}]}}},
        },
        {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {"name": "named", "namespace": "default",
                         "labels": {"kueue.x-k8s.io/queue-name": "user-queue"}},
            "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [
                {"name": "c", "image": "i", "resources": {"requests": {"cpu": "1"}}}]}}},
        },
    ],
}

WORKFLOW = """apiVersion: argoproj.io/v1alpha1
kind: Workflow
metadata: {generateName: hello-, namespace: default}
spec:
  entrypoint: main
  templates: [{name: main, container: {image: busybox}}]
"""

DEFAULTS = """apiVersion: kueuesim.io/v1alpha1
kind: Simulation
metadata: {name: defaults}
spec:
  defaultDurations:
  - distribution: {type: exponential, mean: 10m}
"""


def run(cmd, expect=0):
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != expect:
        sys.exit(f"FAIL: {' '.join(cmd)} exited {result.returncode} (expected {expect}):\n"
                 f"{result.stdout}\n{result.stderr}")
    return result


def check(condition, message):
    if not condition:
        sys.exit("FAIL: " + message)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sim", required=True)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        cluster = os.path.join(tmp, "cluster")
        os.makedirs(os.path.join(cluster, "older"))
        with open(os.path.join(cluster, "00-setup.yaml"), "w") as fh:
            fh.write(SETUP)
        with open(os.path.join(cluster, "10-jobs.json"), "w") as fh:
            json.dump(JOBS_JSON, fh, indent=4)
        with open(os.path.join(cluster, "20-workflow.yml"), "w") as fh:
            fh.write(WORKFLOW)
        with open(os.path.join(cluster, "README.md"), "w") as fh:
            fh.write("# not a manifest\n")
        with open(os.path.join(cluster, "older", "job.yaml"), "w") as fh:
            fh.write("this: [is not read\n")

        summary_path = os.path.join(tmp, "summary.json")
        result = run([args.sim, "run", cluster, "--summary", summary_path])
        with open(summary_path) as fh:
            summary = json.load(fh)
        check(summary["unsimulatedWorkloadKinds"] == {"argoproj.io/v1alpha1/Workflow": 1},
              f"unsimulatedWorkloadKinds: {summary.get('unsimulatedWorkloadKinds')}")
        check(summary["workloadsWithoutDuration"] == 2, f"workloadsWithoutDuration: {summary}")
        check(any("carry workloads kueuesim does not simulate" in w for w in summary["warnings"]),
              "no warning about the Workflow")
        check(any("2 workload(s) have no run time" in w and "default/job-named" in w and "default/job-sample-job-" in w
                  for w in summary["warnings"]), f"no warning about run times: {summary['warnings']}")
        check("kueuesim: warning: 2 workload(s) have no run time" in result.stderr, result.stderr)
        check("Not simulated: 1 object(s) of kinds that carry workloads (argoproj.io/v1alpha1/Workflow 1)"
              in result.stdout, result.stdout)
        check("No run time: 2 workload(s) run until the end of the simulation" in result.stdout, result.stdout)
        check(summary["clusters"][0]["workloads"] == 2, f"workloads: {summary['clusters'][0]}")

        result = run([args.sim, "validate", cluster])
        check(result.stdout.startswith("valid:"), result.stdout)
        result = run([args.sim, "validate", "--strict", cluster], expect=1)
        check("--strict: 2 warning(s) while loading" in result.stderr, result.stderr)

        # Defaults: every workload gets a drawn run time; same seed, same output.
        defaults = os.path.join(tmp, "defaults.yaml")
        with open(defaults, "w") as fh:
            fh.write(DEFAULTS)
        outputs = []
        for seed in ["1", "1", "2"]:
            out = os.path.join(tmp, f"summary-{len(outputs)}.json")
            events = os.path.join(tmp, f"events-{len(outputs)}.jsonl")
            result = run([args.sim, "run", cluster, defaults, "--seed", seed, "--summary", out, "--events", events])
            with open(out) as fh, open(events) as ev:
                outputs.append((fh.read(), ev.read(), result.stdout))
        check(outputs[0] == outputs[1], "two runs with the same seed differ")
        check(outputs[0][1] != outputs[2][1], "the seed does not change the drawn run times")
        summary = json.loads(outputs[0][0])
        check(summary["defaultDurations"] == [
            {"rule": "defaultDurations[0] (all): exponential, mean 10m0s", "workloads": 2}],
            f"defaultDurations: {summary.get('defaultDurations')}")
        check("workloadsWithoutDuration" not in summary, "workloads still without a run time")
        check(not any("have no run time" in w for w in summary["warnings"]), "run-time warning with defaults")
        check("Default run time: 2 workload(s) from defaultDurations[0] (all): exponential, mean 10m0s"
              in outputs[0][2], outputs[0][2])
        check(summary["clusters"][0]["clusterQueues"][0]["finished"] == 2, "the workloads did not finish")

        # An empty directory is an input error.
        empty = os.path.join(tmp, "empty")
        os.makedirs(empty)
        result = run([args.sim, "validate", empty], expect=1)
        check("no .yaml, .yml or .json file" in result.stderr, result.stderr)
    print("PASS")


if __name__ == "__main__":
    main()
