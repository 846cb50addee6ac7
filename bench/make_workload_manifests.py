#!/usr/bin/env python3
"""Writes the Philly year as a cluster export: the Workload objects a user
gets from `kubectl get workloads -A -o yaml` (or `-o json`), one per job, as
Kueue's job controller creates them (owner reference, job-uid label, a pod
set with its container's requests, the pending conditions), plus a small
file with the cluster's queues (one StrictFIFO ClusterQueue per virtual
cluster, nodes x 8 GPUs).

This is the input of issue 21's manifest-loading targets: `kueuesim
validate` (and `run`) on tens of megabytes of exported Workloads. The output
is deterministic (no clock, no randomness), so two machines measure the same
bytes.

Usage:
  make_workload_manifests.py --traces ../shared/traces --out-dir DIR
      [--format yaml|json] [--layout list|documents] [--style kubectl|compact] [--limit N]

Writes DIR/cluster.yaml and DIR/workloads.<yaml|json> and prints their sizes
and the number of Workloads.
"""
import argparse
import csv
import datetime
import hashlib
import json
import os
import sys

GPUS_PER_NODE = 8


def uid(*parts):
    digest = hashlib.sha1("/".join(parts).encode()).hexdigest()
    return f"{digest[0:8]}-{digest[8:12]}-{digest[12:16]}-{digest[16:20]}-{digest[20:32]}"


def rfc3339(philly_timestamp):
    when = datetime.datetime.strptime(philly_timestamp, "%Y-%m-%d %H:%M:%S")
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def compact(item):
    """The same Workload with only what a hand-written manifest states: no
    status, owner, labels or container defaults (about 380 bytes of YAML)."""
    container = item["spec"]["podSets"][0]["template"]["spec"]["containers"][0]
    return {
        "apiVersion": item["apiVersion"],
        "kind": "Workload",
        "metadata": {
            "annotations": item["metadata"]["annotations"],
            "creationTimestamp": item["metadata"]["creationTimestamp"],
            "name": item["metadata"]["name"],
            "namespace": item["metadata"]["namespace"],
        },
        "spec": {
            "podSets": [{
                "count": 1,
                "name": "main",
                "template": {"spec": {"containers": [{
                    "name": container["name"],
                    "resources": {"requests": container["resources"]["requests"]},
                }], "restartPolicy": "Never"}},
            }],
            "queueName": "main",
        },
    }


def workload(index, row):
    vc = row["cluster"]
    job = f"philly-{index:06d}"
    job_uid = uid("job", job)
    created = rfc3339(row["timestamp"])
    gpus = int(row["num_gpus"])
    seconds = int(float(row["duration"]))
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Workload",
        "metadata": {
            "annotations": {"kueuesim.io/duration": f"{seconds}s"},
            "creationTimestamp": created,
            "generation": 1,
            "labels": {
                "kueue.x-k8s.io/job-uid": job_uid,
                "kueue.x-k8s.io/queue-name": "main",
            },
            "name": f"job-{job}-{job_uid[:5]}",
            "namespace": f"vc-{vc}",
            "ownerReferences": [{
                "apiVersion": "batch/v1",
                "blockOwnerDeletion": True,
                "controller": True,
                "kind": "Job",
                "name": job,
                "uid": job_uid,
            }],
            "resourceVersion": str(1000 + index),
            "uid": uid("workload", job),
        },
        "spec": {
            "active": True,
            "podSets": [{
                "count": 1,
                "name": "main",
                "template": {
                    "metadata": {},
                    "spec": {
                        "containers": [{
                            "image": "registry.example.com/philly/train:2017.10",
                            "imagePullPolicy": "IfNotPresent",
                            "name": "train",
                            "resources": {
                                "limits": {"nvidia.com/gpu": str(gpus)},
                                "requests": {"nvidia.com/gpu": str(gpus)},
                            },
                            "terminationMessagePath": "/dev/termination-log",
                            "terminationMessagePolicy": "File",
                        }],
                        "dnsPolicy": "ClusterFirst",
                        "restartPolicy": "Never",
                        "schedulerName": "default-scheduler",
                        "securityContext": {},
                        "terminationGracePeriodSeconds": 30,
                    },
                },
            }],
            "priority": 0,
            "priorityClassSource": "",
            "queueName": "main",
        },
        "status": {
            "conditions": [{
                "lastTransitionTime": created,
                "message": f"couldn't assign flavors to pod set main: insufficient quota for nvidia.com/gpu in flavor gpu, request > maximum capacity ({gpus} > 0)",
                "observedGeneration": 1,
                "reason": "Pending",
                "status": "False",
                "type": "QuotaReserved",
            }],
        },
    }


# A small YAML emitter for the shapes above, in kubectl's style (keys in the
# order given, block style, two-space indentation, sequences not indented
# under their key). Python's yaml module is not needed.
def yaml_scalar(value):
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    text = str(value)
    if text == "" or text[0] in "0123456789-!&*{}[]|>'\"%@`#" or ": " in text or text.lower() in ("true", "false", "null", "yes", "no", "on", "off", "~"):
        return json.dumps(text)
    return text


def emit_yaml(value, indent, out):
    pad = " " * indent
    if isinstance(value, dict):
        if not value:
            out.append(" {}\n")
            return
        first = True
        for key, item in value.items():
            lead = "\n" if first and out and not out[-1].endswith("\n") else ""
            first = False
            if isinstance(item, dict) and item:
                out.append(f"{lead}{pad}{key}:\n")
                emit_yaml(item, indent + 2, out)
            elif isinstance(item, list) and item:
                out.append(f"{lead}{pad}{key}:\n")
                emit_yaml(item, indent, out)
            elif isinstance(item, dict):
                out.append(f"{lead}{pad}{key}: {{}}\n")
            elif isinstance(item, list):
                out.append(f"{lead}{pad}{key}: []\n")
            else:
                out.append(f"{lead}{pad}{key}: {yaml_scalar(item)}\n")
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, dict) and item:
                lines = []
                emit_yaml(item, indent + 2, lines)
                text = "".join(lines)
                out.append(f"{pad}- {text[indent + 2:]}")
            else:
                out.append(f"{pad}- {yaml_scalar(item)}\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--traces", default=os.path.join(os.path.dirname(__file__), "..", "..", "shared", "traces"))
    parser.add_argument("--out-dir", required=True)
    parser.add_argument("--format", choices=["yaml", "json"], default="yaml")
    parser.add_argument("--layout", choices=["list", "documents"], default="list",
                        help="list: one `kind: List` as kubectl prints it; documents: one document per Workload")
    parser.add_argument("--limit", type=int, default=0, help="at most this many Workloads (0: all)")
    parser.add_argument("--style", choices=["kubectl", "compact"], default="kubectl",
                        help="kubectl: as exported from a cluster (default); compact: only the fields a person writes")
    args = parser.parse_args()

    philly = os.path.join(args.traces, "philly")
    os.makedirs(args.out_dir, exist_ok=True)
    vcs = []
    with open(os.path.join(philly, "philly_vc.csv"), newline="") as fh:
        for row in csv.DictReader(fh):
            vcs.append((row["vc"], int(row["node num"]) * GPUS_PER_NODE))

    cluster = ["apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata:\n  name: gpu\n"]
    for vc, gpus in vcs:
        cluster.append(f"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: vc-{vc}\n")
        cluster.append(f"apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata:\n  name: vc-{vc}\n"
                       "spec:\n  namespaceSelector: {}\n  queueingStrategy: StrictFIFO\n  resourceGroups:\n"
                       "  - coveredResources: [nvidia.com/gpu]\n    flavors:\n    - name: gpu\n"
                       f"      resources:\n      - name: nvidia.com/gpu\n        nominalQuota: {gpus}\n")
        cluster.append(f"apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata:\n  name: main\n"
                       f"  namespace: vc-{vc}\nspec:\n  clusterQueue: vc-{vc}\n")
    cluster_path = os.path.join(args.out_dir, "cluster.yaml")
    with open(cluster_path, "w") as fh:
        fh.write("---\n".join(cluster))

    known = {vc for vc, _ in vcs}
    items = []
    with open(os.path.join(philly, "philly.csv"), newline="") as fh:
        for index, row in enumerate(csv.DictReader(fh)):
            if row["cluster"] not in known:
                continue
            item = workload(index, row)
            items.append(compact(item) if args.style == "compact" else item)
            if args.limit and len(items) >= args.limit:
                break

    out_path = os.path.join(args.out_dir, f"workloads.{args.format}")
    with open(out_path, "w") as fh:
        if args.format == "json":
            if args.layout == "list":
                json.dump({"apiVersion": "v1", "items": items, "kind": "List",
                           "metadata": {"resourceVersion": ""}}, fh, indent=4)
                fh.write("\n")
            else:
                for item in items:
                    fh.write(json.dumps(item, separators=(",", ":")))
                    fh.write("\n")
        else:
            out = []
            if args.layout == "list":
                out.append("apiVersion: v1\nitems:\n")
                emit_yaml(items, 0, out)
                out.append("kind: List\nmetadata:\n  resourceVersion: \"\"\n")
            else:
                for item in items:
                    out.append("---\n")
                    emit_yaml(item, 0, out)
            fh.write("".join(out))
    for path in (cluster_path, out_path):
        print(f"{path}: {os.path.getsize(path):,} bytes")
    print(f"{len(items):,} Workloads")


if __name__ == "__main__":
    sys.exit(main())
