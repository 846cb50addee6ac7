#!/usr/bin/env python3
"""Random clusters, checked (issue 22, item 4): a structure-aware generator
of valid kueuesim scenarios and a property test over them.

For each seed, a scenario is generated (deterministically, from
random.Random(seed)): ResourceFlavors with node labels and taints, a cohort
tree of random depth (Cohort objects, some with their own quota and limits),
ClusterQueues with random quotas, limits, queueing strategies, preemption
and flavor-fungibility settings, optionally fair sharing or admission fair
sharing, Namespaces and LocalQueues, WorkloadPriorityClasses, Workloads of
random shapes (pod sets, counts, partial admission, node selectors,
tolerations, priorities, arrival/duration/startup-delay annotations, some
admitted in their input status), timed Changes (quotas, limits, weights,
stop policies, priority class values), a Simulation that bounds the run and,
sometimes, LeaderWorkerSets with timed rollouts, scales, partitions and
failed groups.
Then, for each scenario:

  1. kueuesim run --check-invariants SCENARIO --out DIR1   must exit 0;
  2. kueuesim run SCENARIO --out DIR2 (without the flag)   must exit 0 and
     write byte-identical outputs (events, summary, time series, workload
     table, standard output and error): the run is deterministic, and the
     invariant checker changes no output (docs/invariants.md). On a
     mismatch a third run, with the flag, tells nondeterminism from an
     effect of the flag.

Exit 1 from the first run means the generator wrote an invalid scenario
(a generator bug). Scenarios in tests/e2e/random_clusters_regressions/*.yaml
(when the directory exists) are checked the same way on every run.

--shrink: for each failing seed, whole documents (workloads, changes,
LocalQueues, ClusterQueues, cohorts, flavors, ...) are dropped greedily,
repairing the references the remaining documents make (a Change whose
target is gone, a workload admitted on a dropped ClusterQueue), as long as
the scenario stays valid (kueuesim validate) and fails the same way; the
smallest failing scenario is written next to the failing one.

Usage: random_clusters.py --sim PATH [--seeds N] [--first-seed S]
                          [--keep-failing DIR] [--shrink] [--jobs J]
       random_clusters.py --write-scenario SEED FILE   (FILE - : standard output)
"""
import argparse
import concurrent.futures
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

RUN_TIMEOUT = 120  # seconds per kueuesim run
REGRESSIONS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "random_clusters_regressions")

KUEUE = "kueue.x-k8s.io/v1beta2"
SIM = "kueuesim.io/v1alpha1"
GPU = "nvidia.com/gpu"
LABEL_KEY = "example.com/pool"
TAINT_KEY = "example.com/dedicated"

# ---------------------------------------------------------------------------
# A small YAML emitter (block style; strings quoted when they could be read
# as anything but a plain string).

_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_./-]*\Z")
_SPECIAL = {"y", "n", "yes", "no", "on", "off", "true", "false", "null"}


def _scalar(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    s = str(v)
    if _PLAIN.match(s) and s.lower() not in _SPECIAL:
        return s
    return json.dumps(s)


def _emit(v, indent, out):
    pad = " " * indent
    if isinstance(v, dict):
        for k, x in v.items():
            key = _scalar(k)
            if isinstance(x, (dict, list)) and x:
                out.append(f"{pad}{key}:")
                _emit(x, indent + 2 if isinstance(x, dict) else indent, out)
            else:
                out.append(f"{pad}{key}: {_flow(x)}")
    else:  # a non-empty list
        for x in v:
            if isinstance(x, (dict, list)) and x:
                sub = []
                _emit(x, indent + 2, sub)
                first = sub[0][indent + 2:]
                out.append(f"{pad}- {first}")
                out.extend(sub[1:])
            else:
                out.append(f"{pad}- {_flow(x)}")


def _flow(v):
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_scalar(k)}: {_flow(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(_flow(x) for x in v) + "]"
    return _scalar(v)


def to_yaml(docs, header=""):
    parts = []
    for d in docs:
        out = []
        _emit(d, 0, out)
        parts.append("\n".join(out) + "\n")
    return header + "---\n".join(parts)


# ---------------------------------------------------------------------------
# The generator.


def duration(r, seconds):
    """seconds (an int) in one of the spellings kueuesim reads."""
    style = r.random()
    if seconds == 0:
        return r.choice(["0", "0s"])
    if style < 0.2:
        return str(seconds)  # bare seconds
    if style < 0.35 and seconds % 1800 == 0:
        return f"{seconds / 3600:g}h"
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    out = ""
    if h:
        out += f"{h}h"
    if m:
        out += f"{m}m"
    if s or not out:
        out += f"{s}s"
    return out


def cpu_qty(r, milli):
    if milli % 1000 == 0 and r.random() < 0.8:
        return str(milli // 1000)
    if milli % 500 == 0 and r.random() < 0.5:
        return f"{milli / 1000:g}"
    return f"{milli}m"


def mem_qty(r, mib):
    if mib % 1024 == 0 and r.random() < 0.8:
        return f"{mib // 1024}Gi"
    return f"{mib}Mi"


def qty(r, resource, amount):
    """amount: millicores for cpu, MiB for memory, units otherwise."""
    if resource == "cpu":
        return cpu_qty(r, amount)
    if resource == "memory":
        return mem_qty(r, amount)
    return str(amount)


def quota_amount(r, resource):
    if resource == "cpu":
        return r.choice([0, 2000, 4000, 6000, 8000, 12000, 16000, 24000, 32000, 1500])
    if resource == "memory":
        return r.choice([0, 4096, 8192, 16384, 32768, 65536, 131072, 6144])
    return r.choice([0, 1, 2, 4, 8, 16])


def request_amount(r, resource):
    if resource == "cpu":
        return r.choice([100, 250, 500, 1000, 1000, 2000, 2000, 4000, 8000])
    if resource == "memory":
        return r.choice([128, 512, 1024, 2048, 4096, 8192, 16384])
    return r.choice([1, 1, 1, 2, 4, 8])


def meta(name, namespace=None, **extra):
    m = {"name": name}
    if namespace is not None:
        m["namespace"] = namespace
    m.update(extra)
    return m


def resource_entry(r, resource, amount, has_parent, lend_le_nominal=True):
    e = {"name": resource, "nominalQuota": qty(r, resource, amount)}
    if has_parent and r.random() < 0.3:
        e["borrowingLimit"] = qty(r, resource, r.choice([0, amount // 2, amount, 2 * amount + (1 if resource != "cpu" else 1000)]))
    if has_parent and r.random() < 0.25:
        top = amount if lend_le_nominal else 2 * amount + 1
        e["lendingLimit"] = qty(r, resource, r.randint(0, top))
    return e


def resource_groups(r, flavors, resources, has_parent, lend_le_nominal=True):
    """Resource groups over the given flavors: one group covering every
    resource, or (with a GPU and two flavors or more) cpu/memory and the GPU
    in two groups over disjoint flavors. Returns (groups, [(flavor, resource)])."""
    fl = list(flavors)
    r.shuffle(fl)
    groups = []
    if GPU in resources and len(fl) >= 2 and r.random() < 0.4:
        k = r.randint(1, len(fl) - 1)
        split = [([x for x in resources if x != GPU], fl[:k]), ([GPU], fl[k:])]
    else:
        split = [(list(resources), fl[: r.randint(1, len(fl))])]
    pairs = []
    for covered, fls in split:
        g = {"coveredResources": covered, "flavors": []}
        for f in fls:
            res = []
            for x in covered:
                res.append(resource_entry(r, x, quota_amount(r, x), has_parent, lend_le_nominal))
                pairs.append((f, x))
            g["flavors"].append({"name": f, "resources": res})
        groups.append(g)
    return groups, pairs


class Scenario:
    """The documents of one scenario, each with the references it makes so
    that the shrinker can drop documents and repair the rest."""

    def __init__(self, seed):
        self.seed = seed
        self.docs = []

    def add(self, doc):
        self.docs.append(doc)
        return doc

    def yaml(self):
        header = f"# random_clusters.py scenario, seed {self.seed}\n"
        return to_yaml(self.docs, header)


def generate(seed):
    r = random.Random(seed)
    sc = Scenario(seed)
    docs = sc.docs

    # Simulation: bound the run (workloads without a duration and
    # waitForPodsReady requeues could otherwise run long).
    sim = {"until": duration(r, r.choice([6, 12, 24, 48]) * 3600)}
    if r.random() < 0.5:
        sim["evictionDelay"] = duration(r, r.choice([1, 10, 30, 90]))
    if r.random() < 0.2:
        sim["defaultStartupDelay"] = duration(r, r.choice([5, 30, 60]))
    if r.random() < 0.15:
        sim["cycleDuration"] = r.choice(["100ms", "1s", "0s"])
    if r.random() < 0.15:
        sim["inadmissibleRequeueDelay"] = duration(r, r.choice([0, 1, 5]))
    if r.random() < 0.5:
        sim["seed"] = r.randint(0, 1000)
    sc.add({"apiVersion": SIM, "kind": "Simulation", "metadata": meta(f"random-{seed}"), "spec": sim})

    # Configuration: fair sharing, admission fair sharing, waitForPodsReady.
    fair = r.random() < 0.3
    afs = not fair and r.random() < 0.15
    config = {}
    if fair:
        config["fairSharing"] = r.choice([
            {}, {"preemptionStrategies": ["LessThanOrEqualToFinalShare", "LessThanInitialShare"]},
            {"preemptionStrategies": ["LessThanOrEqualToFinalShare"]},
            {"preemptionStrategies": ["LessThanInitialShare"]}])
    if afs:
        config["admissionFairSharing"] = {"usageHalfLifeTime": duration(r, r.choice([300, 1800, 3600])),
                                          "usageSamplingInterval": duration(r, r.choice([60, 300]))}
    if r.random() < 0.2:
        w = {"timeout": duration(r, r.choice([300, 600, 1800]))}
        if r.random() < 0.5:
            w["blockAdmission"] = r.random() < 0.5
        if r.random() < 0.5:
            w["requeuingStrategy"] = {"timestamp": r.choice(["Eviction", "Creation"]),
                                      "backoffLimitCount": r.randint(0, 3),
                                      "backoffBaseSeconds": r.choice([10, 60])}
        config["waitForPodsReady"] = w
    if r.random() < 0.1:
        config["featureGates"] = {r.choice(["PartialAdmission", "FlavorFungibility", "PrioritizePreemptorWorkloads",
                                            "FairSharingPreemptWithinNominal", "PrioritySortingWithinCohort"]):
                                  r.random() < 0.5}
    if config:
        sc.add(dict({"apiVersion": "config.kueue.x-k8s.io/v1beta2", "kind": "Configuration"}, **config))

    # ResourceFlavors.
    resources = ["cpu", "memory"] + ([GPU] if r.random() < 0.4 else [])
    flavors = {}
    for i in range(r.randint(1, 3)):
        name = ["on-demand", "spot", "reserved"][i]
        spec = {}
        labels = None
        taint = False
        if r.random() < 0.5:
            labels = {LABEL_KEY: name}
            if r.random() < 0.3:
                labels["example.com/zone"] = r.choice(["a", "b"])
            spec["nodeLabels"] = labels
        if r.random() < 0.25:
            taint = True
            spec["nodeTaints"] = [{"key": TAINT_KEY, "value": name, "effect": r.choice(["NoSchedule", "NoExecute"])}]
            if r.random() < 0.2:
                spec["tolerations"] = [{"key": TAINT_KEY, "operator": "Exists", "effect": "NoSchedule"}]
        flavors[name] = {"labels": labels, "taint": taint}
        doc = {"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": meta(name)}
        if spec:
            doc["spec"] = spec
        sc.add(doc)
    flavor_names = list(flavors)

    # Cohort tree: cohort i's parent is an earlier cohort (or none).
    cohorts = []
    cohort_parent = {}
    cohort_pairs = {}
    for i in range(r.choice([0, 1, 1, 2, 3, 4, 5])):
        name = f"co{i}"
        parent = None
        if cohorts and r.random() < 0.6:
            parent = r.choice(cohorts)
        cohorts.append(name)
        cohort_parent[name] = parent
        spec = {}
        if parent:
            spec["parentName"] = parent
        if r.random() < 0.3:
            groups, pairs = resource_groups(r, flavor_names, resources, parent is not None, lend_le_nominal=False)
            spec["resourceGroups"] = groups
            cohort_pairs[name] = pairs
        if fair and r.random() < 0.4:
            spec["fairSharing"] = {"weight": r.choice(["0", "1", "2", "500m", "3"])}
        if parent is None and not spec and r.random() < 0.3:
            continue  # an implicit cohort: named by ClusterQueues only
        doc = {"apiVersion": KUEUE, "kind": "Cohort", "metadata": meta(name)}
        if spec:
            doc["spec"] = spec
        sc.add(doc)

    # Namespaces.
    namespaces = ["team-a"] + (["team-b"] if r.random() < 0.6 else [])
    for ns in namespaces:
        sc.add({"apiVersion": "v1", "kind": "Namespace",
                "metadata": meta(ns, labels={"team": ns, "tier": r.choice(["prod", "dev"])})})

    # ClusterQueues.
    cqs = {}
    for i in range(r.randint(1, 6)):
        name = f"cq{i}"
        cohort = r.choice(cohorts) if cohorts and r.random() < 0.85 else None
        spec = {}
        if cohort:
            spec["cohortName"] = cohort
        sel = r.random()
        if sel < 0.8:
            spec["namespaceSelector"] = {}
        elif sel < 0.9:
            spec["namespaceSelector"] = {"matchLabels": {"team": r.choice(namespaces)}}
        else:
            spec["namespaceSelector"] = {"matchExpressions": [
                {"key": "tier", "operator": r.choice(["In", "NotIn"]), "values": ["prod"]}]}
        res = list(resources)
        if GPU in res and r.random() < 0.25:
            res.remove(GPU)  # a queue without GPUs: GPU workloads are inadmissible there
        groups, pairs = resource_groups(r, flavor_names, res, cohort is not None)
        spec["resourceGroups"] = groups
        if r.random() < 0.5:
            spec["queueingStrategy"] = r.choice(["StrictFIFO", "BestEffortFIFO"])
        if r.random() < 0.8:
            p = {}
            if r.random() < 0.8:
                p["withinClusterQueue"] = r.choice(["Never", "LowerPriority", "LowerOrNewerEqualPriority"])
            reclaim = r.choice(["Never", "LowerPriority", "Any"])
            if r.random() < 0.8:
                p["reclaimWithinCohort"] = reclaim
            else:
                reclaim = "Never"
            if reclaim != "Never" and r.random() < 0.4:
                b = {"policy": r.choice(["Never", "LowerPriority"])}
                if r.random() < 0.5:
                    b["maxPriorityThreshold"] = r.choice([0, 10, 100])
                p["borrowWithinCohort"] = b
            spec["preemption"] = p
        if r.random() < 0.35:
            ff = {"whenCanBorrow": r.choice(["MayStopSearch", "TryNextFlavor"]),
                  "whenCanPreempt": r.choice(["TryNextFlavor", "MayStopSearch"])}
            if ff["whenCanBorrow"] == "TryNextFlavor" and ff["whenCanPreempt"] == "TryNextFlavor" and r.random() < 0.5:
                ff["preference"] = r.choice(["BorrowingOverPreemption", "PreemptionOverBorrowing"])
            spec["flavorFungibility"] = ff
        if fair and r.random() < 0.5:
            spec["fairSharing"] = {"weight": r.choice(["0", "1", "2", "500m", "4"])}
        if afs and r.random() < 0.7:
            spec["admissionScope"] = {"admissionMode": r.choice(["UsageBasedAdmissionFairSharing",
                                                                 "NoAdmissionFairSharing"])}
        if r.random() < 0.05:
            spec["stopPolicy"] = r.choice(["Hold", "HoldAndDrain", "None"])
        cqs[name] = {"cohort": cohort, "pairs": pairs, "spec": spec}
        sc.add({"apiVersion": KUEUE, "kind": "ClusterQueue", "metadata": meta(name), "spec": spec})

    # LocalQueues: in each namespace, one per ClusterQueue (some left out).
    lqs = {ns: [] for ns in namespaces}
    for ns in namespaces:
        for cq in cqs:
            if r.random() < 0.8 or not lqs[ns]:
                lq = f"lq-{cq}"
                spec = {"clusterQueue": cq}
                if afs and r.random() < 0.5:
                    spec["fairSharing"] = {"weight": r.choice(["1", "2", "500m"])}
                lqs[ns].append((lq, cq))
                sc.add({"apiVersion": KUEUE, "kind": "LocalQueue", "metadata": meta(lq, ns), "spec": spec})

    # WorkloadPriorityClasses.
    classes = {}
    for name, value in zip(["low", "mid", "high"], sorted(r.sample([-10, 0, 10, 50, 100, 1000], 3))):
        if r.random() < 0.75:
            classes[name] = value
            sc.add({"apiVersion": KUEUE, "kind": "WorkloadPriorityClass", "metadata": meta(name), "value": value})

    # Workloads.
    n_workloads = r.randint(5, 40)
    horizon = r.choice([1800, 3600, 4 * 3600])
    used_at_start = {}  # (cq, flavor, resource) -> amount admitted in the input
    for i in range(n_workloads):
        ns = r.choice(namespaces)
        lq, cq = r.choice(lqs[ns])
        name = f"w{i:02d}"
        ann = {}
        if r.random() < 0.7:
            ann["kueuesim.io/arrival"] = duration(r, r.choice([0, r.randint(0, horizon), r.randint(0, horizon) // 60 * 60]))
        if r.random() < 0.95:
            ann["kueuesim.io/duration"] = duration(r, r.choice([60, 300, 600, 1800, 3600, 7200, r.randint(1, 10800)]))
        if r.random() < 0.1:
            ann["kueuesim.io/startup-delay"] = duration(r, r.choice([0, 30, 120, 2400]))
        spec = {"queueName": lq}
        prio = r.random()
        if prio < 0.5 and classes:
            spec["priorityClassRef"] = {"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass",
                                        "name": r.choice(list(classes))}
        elif prio < 0.75:
            spec["priority"] = r.choice([-5, 0, 0, 10, 100, 500])
        pod_sets = []
        wants_gpu = GPU in resources and r.random() < 0.5
        for j in range(1 if r.random() < 0.7 else 2):
            count = r.randint(1, 8)
            requests = {"cpu": qty(r, "cpu", request_amount(r, "cpu"))}
            if r.random() < 0.8:
                requests["memory"] = qty(r, "memory", request_amount(r, "memory"))
            if wants_gpu and (j == 0 or r.random() < 0.5):
                requests[GPU] = str(request_amount(r, GPU))
            containers = [{"name": "main", "resources": {"requests": requests}}]
            if r.random() < 0.15:
                containers.append({"name": "sidecar", "resources": {"requests": {"cpu": "100m"}}})
            pod = {"containers": containers}
            labelled = [f for f in flavor_names if flavors[f]["labels"]]
            if labelled and r.random() < 0.25:
                pod["nodeSelector"] = {LABEL_KEY: r.choice(labelled)}
            tainted = [f for f in flavor_names if flavors[f]["taint"]]
            if tainted and r.random() < 0.7:
                if r.random() < 0.3:
                    pod["tolerations"] = [{"operator": "Exists"}]
                else:
                    pod["tolerations"] = [{"key": TAINT_KEY, "operator": "Equal", "value": r.choice(tainted)}]
            ps = {"name": ["main", "worker"][j], "count": count, "template": {"spec": pod}}
            # Kueue's webhook: at most one pod set with a minCount.
            if count > 1 and r.random() < 0.3 and not any("minCount" in p for p in pod_sets):
                ps["minCount"] = r.randint(1, count)
            pod_sets.append(ps)
        spec["podSets"] = pod_sets
        doc = {"apiVersion": KUEUE, "kind": "Workload", "metadata": meta(name, ns), "spec": spec}
        if ann:
            doc["metadata"]["annotations"] = ann
        # Some workloads are admitted in their input (as exported from a
        # live cluster), within the ClusterQueue's nominal quota.
        if r.random() < 0.1 and not any("nodeSelector" in p["template"]["spec"] for p in pod_sets):
            admission = admit_in_input(r, cq, cqs[cq], pod_sets, flavors, used_at_start)
            if admission:
                doc["status"] = admission
        sc.add(doc)

    # Timed changes.
    for k in range(r.choice([0, 0, 1, 2, 3, 4])):
        kind = r.random()
        at = duration(r, r.randint(0, horizon + 3600))
        spec = {"at": at}
        if kind < 0.6:
            targets = [("ClusterQueue", n, cqs[n]["pairs"], cqs[n]["cohort"] is not None, True) for n in cqs]
            targets += [("Cohort", n, p, cohort_parent[n] is not None, False) for n, p in cohort_pairs.items()]
            tkind, tname, pairs, has_parent, is_cq = r.choice(targets)
            spec["target"] = {"kind": tkind, "name": tname}
            edits = []
            for f, x in r.sample(pairs, r.randint(1, min(3, len(pairs)))):
                amount = quota_amount(r, x)
                e = {"flavor": f, "name": x, "nominalQuota": qty(r, x, amount)}
                if has_parent:
                    if r.random() < 0.3:
                        e["borrowingLimit"] = None if r.random() < 0.5 else qty(r, x, amount)
                    # A ClusterQueue's lendingLimit may not exceed the new
                    # nominal quota: set it (or remove it) with the quota.
                    if is_cq or r.random() < 0.3:
                        e["lendingLimit"] = None if r.random() < 0.5 else qty(r, x, r.randint(0, amount))
                edits.append(e)
            spec["resources"] = edits
        elif kind < 0.7 and fair:
            tkind, tname = r.choice([("ClusterQueue", n) for n in cqs] + [("Cohort", n) for n in cohort_parent])
            spec["target"] = {"kind": tkind, "name": tname}
            spec["fairSharing"] = {"weight": r.choice(["0", "1", "3"])}
        elif kind < 0.8:
            spec["target"] = {"kind": "ClusterQueue", "name": r.choice(list(cqs))}
            spec["stopPolicy"] = r.choice(["None", "Hold", "HoldAndDrain"])
        elif kind < 0.9:
            ns = r.choice(namespaces)
            spec["target"] = {"kind": "LocalQueue", "namespace": ns, "name": r.choice(lqs[ns])[0]}
            spec["stopPolicy"] = r.choice(["None", "Hold", "HoldAndDrain"])
        elif classes:
            spec["target"] = {"kind": "WorkloadPriorityClass", "name": r.choice(list(classes))}
            spec["value"] = r.choice([-10, 0, 20, 2000])
        else:
            continue
        sc.add({"apiVersion": SIM, "kind": "Change", "metadata": meta(f"change-{k}"), "spec": spec})
    # A Cohort that only a Change names must exist as an object (an
    # implicit cohort cannot be a target): make sure it does.
    named = {d["metadata"]["name"] for d in docs if d["kind"] == "Cohort"}
    for d in list(docs):
        t = d.get("spec", {}).get("target", {}) if d["kind"] == "Change" else {}
        if t.get("kind") == "Cohort" and t["name"] not in named:
            named.add(t["name"])
            docs.insert(docs.index(d), {"apiVersion": KUEUE, "kind": "Cohort", "metadata": meta(t["name"])})
    # Drawn last, so that a seed's other documents stay what they were
    # before LeaderWorkerSets were generated.
    add_leader_worker_sets(r, sc, sim, namespaces, lqs, classes, resources, horizon)
    return sc


def add_leader_worker_sets(r, sc, sim, namespaces, lqs, classes, resources, horizon):
    """Sometimes 1 or 2 LeaderWorkerSets (issue 22: the group-table
    invariant), of random size, rolling-update settings, startup and restart
    policy, with timed rollouts, scales, partitions and failed groups."""
    if r.random() >= 0.3:
        return
    if r.random() < 0.3:
        sim["leaderWorkerSet"] = {r.choice(["kueueSurgeWorkloads", "kueuePercentageMaxSurge"]): r.choice(
            ["upstream", "fixed"])}
        if r.random() < 0.3:
            sim["leaderWorkerSet"]["statefulSetReplacement"] = r.choice(["concurrent", "serial"])
    for i in range(r.randint(1, 2)):
        ns = r.choice(namespaces)
        lq, _ = r.choice(lqs[ns])
        name = f"lws{i}"
        labels = {"kueue.x-k8s.io/queue-name": lq}
        if classes and r.random() < 0.4:
            labels["kueue.x-k8s.io/priority-class"] = r.choice(list(classes))
        ann = {}
        if r.random() < 0.8:
            ann["kueuesim.io/leader-startup-delay"] = duration(r, r.choice([0, 30, 60, 120]))
        if r.random() < 0.6:
            ann["kueuesim.io/worker-startup-delay"] = duration(r, r.choice([0, 30, 60]))
        replicas = r.randint(0, 5)
        rolling = {}
        for key in ("maxUnavailable", "maxSurge"):
            if r.random() < 0.8:
                rolling[key] = r.choice([0, 1, 1, 2, "25%", "50%"])
        def scaled(value, round_up):  # of spec.replicas, as LWS scales a percentage
            if isinstance(value, int):
                return value
            return -(-int(value[:-1]) * replicas // 100) if round_up else int(value[:-1]) * replicas // 100

        if replicas > 0 and scaled(rolling.get("maxUnavailable", 1), False) == 0 and \
                scaled(rolling.get("maxSurge", 0), True) == 0:
            rolling["maxSurge"] = 1  # LWS's validation: not both 0
        if r.random() < 0.2:
            rolling["partition"] = r.randint(0, max(replicas, 1))

        def template(container):
            requests = {"cpu": qty(r, "cpu", request_amount(r, "cpu"))}
            if r.random() < 0.6:
                requests["memory"] = qty(r, "memory", request_amount(r, "memory"))
            if GPU in resources and r.random() < 0.5:
                requests[GPU] = str(request_amount(r, GPU))
            return {"spec": {"containers": [{"name": container, "resources": {"requests": requests}}]}}

        lwt = {"size": r.randint(1, 3), "workerTemplate": template("worker")}
        if r.random() < 0.5:
            lwt["leaderTemplate"] = template("leader")
        if r.random() < 0.6:
            lwt["restartPolicy"] = r.choice(["RecreateGroupOnPodRestart", "RecreateGroupAfterStart", "None"])
        spec = {"replicas": replicas, "leaderWorkerTemplate": lwt}
        if r.random() < 0.5:
            spec["startupPolicy"] = r.choice(["LeaderCreated", "LeaderReady"])
        if rolling:
            spec["rolloutStrategy"] = {"type": "RollingUpdate", "rollingUpdateConfiguration": rolling}
        doc = {"apiVersion": "leaderworkerset.x-k8s.io/v1", "kind": "LeaderWorkerSet",
               "metadata": meta(name, ns, labels=labels), "spec": spec}
        if ann:
            doc["metadata"]["annotations"] = ann
        sc.add(doc)
        for k in range(r.choice([0, 1, 2, 3, 4])):
            change = {"at": duration(r, r.randint(0, horizon)),
                      "target": {"kind": "LeaderWorkerSet", "namespace": ns, "name": name}}
            kind = r.random()
            if kind < 0.4:
                change["rollout"] = True
            elif kind < 0.7:
                change["replicas"] = r.randint(0, 6)
            elif kind < 0.8:
                change["partition"] = r.randint(0, 5)
            else:
                change["failGroup"] = r.randint(0, 5)
            sc.add({"apiVersion": SIM, "kind": "Change", "metadata": meta(f"{name}-change-{k}"), "spec": change})


def admit_in_input(r, cq, info, pod_sets, flavors, used):
    """A status.admission on cq for the pod sets, in a flavor of each group
    that the pod set tolerates, within the nominal quota still free at time
    0; None when it does not fit."""
    spec = info["spec"]
    nominal = {}
    for g in spec["resourceGroups"]:
        for f in g["flavors"]:
            for e in f["resources"]:
                nominal[(f["name"], e["name"])] = parse_amount(e["name"], e["nominalQuota"])
    groups = [(g["coveredResources"], [f["name"] for f in g["flavors"]]) for g in spec["resourceGroups"]]
    assignments = []
    add = {}
    for ps in pod_sets:
        tol = ps["template"]["spec"].get("tolerations", [])
        requests = {}
        for c in ps["template"]["spec"]["containers"]:
            for x, v in c["resources"]["requests"].items():
                requests[x] = requests.get(x, 0) + parse_amount(x, v)
        fl, usage = {}, {}
        for x, per_pod in requests.items():
            group = next((g for g in groups if x in g[0]), None)
            if group is None:
                return None
            ok = [f for f in group[1] if not flavors[f]["taint"] or tol]
            if not ok:
                return None
            f = ok[0]
            total = per_pod * ps["count"]
            key = (cq, f, x)
            if used.get(key, 0) + add.get(key, 0) + total > nominal[(f, x)]:
                return None
            add[key] = add.get(key, 0) + total
            fl[x] = f
            usage[x] = qty(r, x, total)
        assignments.append({"name": ps["name"], "flavors": fl, "resourceUsage": usage, "count": ps["count"]})
    for k, v in add.items():
        used[k] = used.get(k, 0) + v
    t = "2025-01-01T00:00:00Z"
    return {"conditions": [{"type": "QuotaReserved", "status": "True", "lastTransitionTime": t},
                           {"type": "Admitted", "status": "True", "lastTransitionTime": t}],
            "admission": {"clusterQueue": cq, "podSetAssignments": assignments}}


def parse_amount(resource, s):
    """Inverse of qty() for the spellings it writes."""
    s = str(s)
    if resource == "cpu":
        return int(s[:-1]) if s.endswith("m") else int(round(float(s) * 1000))
    if resource == "memory":
        return int(s[:-2]) * 1024 if s.endswith("Gi") else int(s[:-2])
    return int(s)


# ---------------------------------------------------------------------------
# Running and checking.

OUTPUTS = ["events.jsonl", "summary.json", "timeseries.jsonl", "workloads.jsonl"]


class Failure:
    def __init__(self, kind, detail, cmd, stderr):
        self.kind = kind  # invalid, invariant, crash, timeout, nondeterministic, flag-changes-output
        self.detail = detail
        self.cmd = cmd
        self.stderr = stderr

    def signature(self):
        """What must stay the same while shrinking."""
        if self.kind == "invariant":
            m = re.search(r"invariant violated: ([^\n(]*)", self.stderr)
            return (self.kind, m.group(1).strip() if m else "")
        if self.kind == "crash":
            # The error message with its figures left out ("scheduling did
            # not settle at time N s after N cycles").
            m = re.search(r"kueuesim: error: (.*)", self.stderr)
            return (self.kind, re.sub(r"[0-9.]+", "N", m.group(1)) if m else self.detail)
        return (self.kind,)


def run_sim(sim, path, out, check):
    cmd = [sim, "run", path, "--out", out]
    if check:
        cmd.append("--check-invariants")
    try:
        p = subprocess.run(cmd, capture_output=True, timeout=RUN_TIMEOUT)
    except subprocess.TimeoutExpired:
        return cmd, None, None, b""
    files = {"stdout": p.stdout, "stderr": p.stderr}
    for f in OUTPUTS:
        fp = os.path.join(out, f)
        if os.path.exists(fp):
            with open(fp, "rb") as fh:
                files[f] = fh.read()
    return cmd, p.returncode, files, p.stderr


def check(sim, path, tmp):
    """Runs the property on one scenario file. Returns (Failure or None,
    summary JSON of the first run or None)."""
    o1, o2, o3 = (os.path.join(tmp, d) for d in ("run1", "run2", "run3"))
    cmd, rc, f1, err = run_sim(sim, path, o1, True)
    scmd = " ".join(cmd)
    errt = err.decode("utf-8", "replace")
    if rc is None:
        return Failure("timeout", f"no exit after {RUN_TIMEOUT} s", scmd, errt), None
    if rc != 0:
        if rc in (1, 2):
            kind, detail = "invalid", f"exit {rc}: the generator wrote an invalid scenario"
        elif rc == 3 and "invariant violated" in errt:
            kind, detail = "invariant", "exit 3: invariant violated"
        elif rc < 0:
            kind, detail = "crash", f"killed by signal {-rc}"
        else:
            kind, detail = "crash", f"exit {rc}"
        return Failure(kind, detail, scmd, errt), None
    cmd2, rc2, f2, err2 = run_sim(sim, path, o2, False)
    scmd2 = " ".join(cmd2)
    if rc2 is None:
        return Failure("timeout", f"no exit after {RUN_TIMEOUT} s without --check-invariants", scmd2, ""), None
    if rc2 != 0:
        return Failure("flag-changes-output", f"exit {rc2} without --check-invariants (0 with it)", scmd2,
                       err2.decode("utf-8", "replace")), None
    diff = [k for k in sorted(set(f1) | set(f2)) if f1.get(k) != f2.get(k)]
    if diff:
        # A third run with the flag: does the same command give other bytes?
        _, rc3, f3, _ = run_sim(sim, path, o3, True)
        same = rc3 == 0 and all(f1.get(k) == f3.get(k) for k in diff)
        kind = "flag-changes-output" if same else "nondeterministic"
        what = ", ".join(diff)
        detail = (f"outputs differ with and without --check-invariants: {what}" if same
                  else f"two runs of the same command differ: {what}")
        return Failure(kind, detail, scmd + "  vs  " + scmd2, errt), None
    try:
        summary = json.loads(f1.get("summary.json", b"{}"))
    except ValueError:
        summary = None
    return None, summary


def validate(sim, path):
    p = subprocess.run([sim, "validate", path], capture_output=True, timeout=RUN_TIMEOUT)
    return p.returncode == 0


def check_text(sim, text, name):
    with tempfile.TemporaryDirectory(prefix="random_clusters-") as tmp:
        path = os.path.join(tmp, name)
        with open(path, "w") as fh:
            fh.write(text)
        return check(sim, path, tmp)


# ---------------------------------------------------------------------------
# Shrinking.


def repair(docs):
    """Drops documents whose references the remaining ones no longer meet:
    Changes whose target is gone, workloads admitted in their input on a
    missing ClusterQueue."""
    names = {}
    for d in docs:
        m = d.get("metadata", {})
        names.setdefault(d["kind"], set()).add((m.get("namespace", "default"), m.get("name")))
    out = []
    for d in docs:
        if d["kind"] == "Change":
            t = d["spec"]["target"]
            if (t.get("namespace", "default"), t["name"]) not in names.get(t["kind"], set()):
                continue
        if d["kind"] == "Workload" and "status" in d:
            if ("default", d["status"]["admission"]["clusterQueue"]) not in names.get("ClusterQueue", set()):
                continue
        out.append(d)
    return out


# Document kinds in the order the shrinker tries to drop them.
DROP_ORDER = ["Workload", "LeaderWorkerSet", "Change", "LocalQueue", "ClusterQueue", "Cohort", "WorkloadPriorityClass",
              "Namespace", "ResourceFlavor", "Configuration", "Simulation"]


def simplify(d):
    """Smaller variants of one document (fewer pod sets, fewer resources,
    no status): tried after the documents themselves."""
    out = []
    if d["kind"] == "Workload":
        spec = d["spec"]
        if len(spec["podSets"]) > 1 and "status" not in d:
            for i in range(len(spec["podSets"])):
                e = json.loads(json.dumps(d))
                del e["spec"]["podSets"][i]
                out.append(e)
        if "status" in d:
            e = json.loads(json.dumps(d))
            del e["status"]
            out.append(e)
    if d["kind"] in ("ClusterQueue", "Cohort") and "spec" in d:
        for key in ("preemption", "flavorFungibility", "fairSharing", "queueingStrategy", "admissionScope"):
            if key in d["spec"]:
                e = json.loads(json.dumps(d))
                del e["spec"][key]
                out.append(e)
    return out


# A run that does not end (a timeout) or spins at one instant ("scheduling
# did not settle" after 10 million cycles) takes minutes; while shrinking,
# it is recognised sooner: the run reaches LIVELOCK_CYCLES cycles (--cycles),
# hundreds of times what a generated scenario needs.
LIVELOCK_CYCLES = 100000


def spins(sim, path, tmp):
    summary = os.path.join(tmp, "cycles.json")
    try:
        p = subprocess.run([sim, "run", path, "--cycles", str(LIVELOCK_CYCLES), "--summary", summary, "--quiet"],
                           capture_output=True, text=True, timeout=RUN_TIMEOUT)
    except subprocess.TimeoutExpired:
        return True
    if p.returncode != 0:
        return "did not settle" in p.stderr
    with open(summary) as fh:
        return sum(c.get("cycles", 0) for c in json.load(fh).get("clusters", [])) >= LIVELOCK_CYCLES


def shrink(sim, sc, failure, log):
    want = failure.signature()
    livelock = failure.kind == "timeout" or "did not settle" in failure.stderr
    docs = list(sc.docs)
    header = f"# random_clusters.py scenario, seed {sc.seed}, shrunk ({failure.kind})\n"
    tries = 0

    def fails(candidate):
        nonlocal tries
        tries += 1
        text = to_yaml(candidate, header)
        with tempfile.TemporaryDirectory(prefix="random_clusters-shrink-") as tmp:
            path = os.path.join(tmp, "scenario.yaml")
            with open(path, "w") as fh:
                fh.write(text)
            if not validate(sim, path):
                return False
            if livelock:
                return spins(sim, path, tmp)
            f, _ = check(sim, path, tmp)
            return f is not None and f.signature() == want

    progress = True
    while progress:
        progress = False
        for kind in DROP_ORDER:
            # Chunks of the documents of this kind, halving down to one
            # (a chunk that still fails without it goes in one run).
            size = max(1, len([d for d in docs if d["kind"] == kind]) // 2)
            while True:
                ids = [id(d) for d in docs if d["kind"] == kind]
                for start in range(len(ids) - size, -size, -size):
                    chunk = set(ids[max(0, start):start + size])
                    candidate = repair([d for d in docs if id(d) not in chunk])
                    if len(candidate) < len(docs) and fails(candidate):
                        docs = candidate
                        progress = True
                if size == 1:
                    break
                size //= 2
        for i in range(len(docs)):
            for variant in simplify(docs[i]):
                candidate = repair(docs[:i] + [variant] + docs[i + 1:])
                if fails(candidate):
                    docs = candidate
                    progress = True
                    break
    log(f"  shrunk to {len(docs)} documents (from {len(sc.docs)}) in {tries} runs")
    text = to_yaml(docs, header)
    if livelock:
        # Shrunk by the cycle count: say how the full check fails on it.
        f, _ = check_text(sim, text, "shrunk.yaml")
        log(f"  the shrunk scenario: {f.kind}: {f.detail}; {f.stderr.strip().splitlines()[-1:]}" if f
            else "  the shrunk scenario passes the full check (it spins less than 10 million cycles)")
    return text


# ---------------------------------------------------------------------------
# Main.


def totals_of(summary, acc):
    if not summary:
        return
    for c in summary.get("clusters", []):
        acc["workloads"] += c.get("workloads", 0)
        for q in c.get("clusterQueues", []):
            acc["admitted"] += q.get("admitted", 0)
            acc["finished"] += q.get("finished", 0)
            acc["preempted"] += q.get("preempted", 0)
            acc["evicted"] += q.get("evicted", 0) if isinstance(q.get("evicted"), int) else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sim", help="the kueuesim binary (required unless --write-scenario)")
    ap.add_argument("--seeds", type=int, default=200, help="number of seeds (default 200)")
    ap.add_argument("--first-seed", type=int, default=0, help="first seed (default 0)")
    ap.add_argument("--keep-failing", metavar="DIR", help="write each failing scenario to DIR")
    ap.add_argument("--shrink", action="store_true", help="shrink each failing scenario (see above)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="parallel runs (default: CPUs)")
    ap.add_argument("--write-scenario", nargs=2, metavar=("SEED", "FILE"),
                    help="only write the scenario of SEED to FILE (- for standard output) and exit")
    args = ap.parse_args()

    if args.write_scenario:
        text = generate(int(args.write_scenario[0])).yaml()
        if args.write_scenario[1] == "-":
            sys.stdout.write(text)
        else:
            with open(args.write_scenario[1], "w") as fh:
                fh.write(text)
        return 0
    if not args.sim:
        ap.error("--sim is required")

    sim = os.path.abspath(args.sim)
    start = time.monotonic()
    cases = []  # (label, scenario or None, text)
    for seed in range(args.first_seed, args.first_seed + args.seeds):
        sc = generate(seed)
        cases.append((f"seed {seed}", sc, sc.yaml()))
    if os.path.isdir(REGRESSIONS):
        for f in sorted(os.listdir(REGRESSIONS)):
            if f.endswith(".yaml"):
                with open(os.path.join(REGRESSIONS, f)) as fh:
                    cases.append((f"regression {f}", None, fh.read()))

    def one(case):
        label, sc, text = case
        name = f"seed-{sc.seed}.yaml" if sc else label.split(" ", 1)[1]
        return check_text(sim, text, name)

    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
        results = list(ex.map(one, cases))

    totals = {"workloads": 0, "admitted": 0, "finished": 0, "preempted": 0, "evicted": 0}
    failed = 0
    for (label, sc, text), (failure, summary) in zip(cases, results):
        totals_of(summary, totals)
        if failure is None:
            continue
        failed += 1
        print(f"FAIL {label}: {failure.kind}: {failure.detail}")
        print(f"  command: {failure.cmd}")
        for line in failure.stderr.strip().splitlines()[:20]:
            print(f"  | {line}")
        if sc is not None:
            print(f"  scenario: {sys.argv[0]} --write-scenario {sc.seed} seed-{sc.seed}.yaml")
        if args.keep_failing and sc is not None:
            os.makedirs(args.keep_failing, exist_ok=True)
            path = os.path.join(args.keep_failing, f"seed-{sc.seed}.yaml")
            with open(path, "w") as fh:
                fh.write(text)
            print(f"  kept: {path}")
            if args.shrink:
                small = shrink(sim, sc, failure, print)
                spath = os.path.join(args.keep_failing, f"seed-{sc.seed}.shrunk.yaml")
                with open(spath, "w") as fh:
                    fh.write(small)
                print(f"  shrunk: {spath}")
        elif args.shrink and sc is not None:
            small = shrink(sim, sc, failure, print)
            print("  shrunk scenario (use --keep-failing DIR to write it):")
            for line in small.splitlines():
                print(f"  > {line}")
        sys.stdout.flush()

    n_reg = sum(1 for c in cases if c[1] is None)
    print(f"random_clusters: {len(cases) - failed}/{len(cases)} scenarios passed "
          f"(seeds {args.first_seed}..{args.first_seed + args.seeds - 1}, {n_reg} regression(s)) "
          f"in {time.monotonic() - start:.1f} s; workloads {totals['workloads']}, admitted {totals['admitted']}, "
          f"finished {totals['finished']}, preempted {totals['preempted']}, evicted {totals['evicted']}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
