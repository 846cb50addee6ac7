#!/usr/bin/env python3
"""Measures what a policy written in Python costs per call, for the three
kinds of policy: queue ordering, preemption and MultiKueue dispatch.

For each kind, runs one scenario with Kueue's built-in policy (C++) and with
a Python policy that makes the same decisions, and divides the difference
in wall time by the number of Python calls. Both runs must give the same
events (checked); each time is the best of three runs.

Usage: PYTHONPATH=<build>/python python3 python/measure_policy_cost.py [JOBS] [KIND...]
  JOBS: workloads per scenario (default 1000); KIND: ordering, preemption,
  dispatch (default: all three). docs/python.md has the figures.
"""
import sys
import time

import kueuesim

KINDS = ("ordering", "preemption", "dispatch")
RUNS = 3  # each run is repeated; the fastest counts


# --- Queue ordering ---------------------------------------------------------------

class KueueOrderInPython:
    """Kueue's order (priority, queue-order timestamp, UID), in Python."""
    calls = 0

    def __init__(self, parameters):
        pass

    def compare(self, a, b):
        KueueOrderInPython.calls += 1
        if a.priority != b.priority:
            return -1 if a.priority > b.priority else 1
        ta, tb = a.queue_order_timestamp, b.queue_order_timestamp
        if ta != tb:
            return -1 if ta < tb else 1
        ua, ub = a.uid, b.uid
        return -1 if ua < ub else (1 if ua > ub else 0)


def workload(i, cpu, priority, arrival, duration):
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
            "metadata": {"name": f"w{i:05d}", "namespace": "ns", "uid": f"uid-{i:05d}",
                         "annotations": {"kueuesim.io/arrival": f"{arrival}s",
                                         "kueuesim.io/duration": f"{duration}s"}},
            "spec": {"queueName": "q", "priority": priority, "podSets": [{"name": "main", "count": 1, "template": {
                "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": str(cpu)}}}]}}}]}}


def one_queue(cpu, preemption=None):
    spec = {"namespaceSelector": {}, "resourceGroups": [{"coveredResources": ["cpu"], "flavors": [
        {"name": "default", "resources": [{"name": "cpu", "nominalQuota": str(cpu)}]}]}]}
    if preemption:
        spec["preemption"] = preemption
    return [
        {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "default"}},
        {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "cq"}, "spec": spec},
        {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue", "metadata": {"name": "q", "namespace": "ns"},
         "spec": {"clusterQueue": "cq"}},
    ]


def ordering_scenario(jobs):
    """One 8-CPU queue, 1-CPU jobs of three priorities arriving over 97 s."""
    objects = one_queue(8)
    for i in range(jobs):
        objects.append(workload(i, 1, i % 3, i % 97, 60 + (i * 37) % 600))
    return kueuesim.from_objects(objects)


# --- Preemption -----------------------------------------------------------------

class KueueWithinQueueInPython:
    """Kueue's classical preemption within one ClusterQueue (no cohort), in
    Python: lower-priority candidates that use a resource needing
    preemption, evicted ones first, then lowest priority, then newest; take
    them until the preemptor fits, then put back those not needed (from the
    second-to-last down, the last taking the freed place)."""
    calls = 0
    listed = 0  # request.candidates
    eligible = 0
    fits_calls = 0

    def __init__(self, parameters):
        pass

    def get_targets(self, request):
        cls = KueueWithinQueueInPython
        cls.calls += 1
        priority = request.preemptor.priority
        listed = request.candidates
        candidates = [c for c in listed if c.in_preemptor_queue and c.uses_needed_resources and c.priority < priority]
        cls.listed += len(listed)
        cls.eligible += len(candidates)
        candidates.sort(key=lambda c: (not c.evicted, c.priority, -c.reserved_at, c.workload.uid, c.key))
        targets = []
        for candidate in candidates:
            targets.append(candidate.key)
            cls.fits_calls += 1
            if request.fits(targets):
                for i in range(len(targets) - 2, -1, -1):
                    cls.fits_calls += 1
                    if request.fits(targets[:i] + targets[i + 1:]):
                        targets[i] = targets[-1]
                        targets.pop()
                return targets
        return []


def preemption_scenario(jobs):
    """One 16-CPU queue that preempts lower priorities; 1-3-CPU jobs of five
    priorities, 5-20 min long, arrive every minute (about 1.5 times what the
    queue can run): about half of the arrivals preempt (617 preemptions for
    1000 workloads)."""
    objects = one_queue(16, {"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "Never"})
    for i in range(jobs):
        objects.append(workload(i, 1 + (i * 7) % 3, (i * 13) % 5, 60 * i, 300 + (i * 37) % 900))
    return kueuesim.from_objects(objects)


# --- MultiKueue dispatch -----------------------------------------------------------

class AllAtOnceInPython:
    """Kueue's AllAtOnce dispatcher in Python: every connected worker, by name."""
    calls = 0

    def __init__(self, parameters):
        pass

    def nominate(self, request):
        AllAtOnceInPython.calls += 1
        connected = [i for i, cluster in enumerate(request.clusters) if cluster.connected]
        return sorted(connected, key=lambda i: request.clusters[i].name)


def dispatch_scenario(jobs):
    """A manager and four workers of 8 CPUs; 1-CPU jobs arrive every 5 s."""
    workers = [f"worker-{i}" for i in range(1, 5)]

    def cluster(name, checks):
        cq_spec = {"namespaceSelector": {}, "resourceGroups": [{"coveredResources": ["cpu"], "flavors": [
            {"name": "default", "resources": [{"name": "cpu", "nominalQuota": "32" if checks else "8"}]}]}]}
        if checks:
            cq_spec["admissionChecksStrategy"] = {"admissionChecks": [{"name": "multikueue"}]}
        return [
            {"apiVersion": "kueuesim.io/v1alpha1", "kind": "Cluster", "metadata": {"name": name}},
            {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "default"}},
            {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "cq"},
             "spec": cq_spec},
            {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
             "metadata": {"name": "q", "namespace": "ns"}, "spec": {"clusterQueue": "cq"}},
        ]

    objects = [{"apiVersion": "kueuesim.io/v1alpha1", "kind": "Simulation", "metadata": {"name": "dispatch-cost"},
                "spec": {"startTime": "2025-06-02T09:00:00Z"}}]
    objects += cluster("manager", checks=True)
    objects += [
        {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "AdmissionCheck", "metadata": {"name": "multikueue"},
         "spec": {"controllerName": "kueue.x-k8s.io/multikueue", "parameters": {
             "apiGroup": "kueue.x-k8s.io", "kind": "MultiKueueConfig", "name": "fleet"}}},
        {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "MultiKueueConfig", "metadata": {"name": "fleet"},
         "spec": {"clusters": workers}},
    ]
    for name in workers:
        objects.append({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "MultiKueueCluster",
                        "metadata": {"name": name},
                        "spec": {"clusterSource": {"kubeConfig": {"location": f"{name}-kubeconfig"}}}})
    for i in range(jobs):
        objects.append(workload(i, 1, 0, 5 * i, 60 + (i * 37) % 600))
    for name in workers:
        objects += cluster(name, checks=False)
    return kueuesim.from_objects(objects)


# --- Measuring ---------------------------------------------------------------------

def timed_run(scenario):
    sim = scenario.simulation()
    start = time.perf_counter()
    sim.run()
    return time.perf_counter() - start, sim


def best_of(scenario, runs):
    return min((timed_run(scenario) for _ in range(runs)), key=lambda result: result[0])


def measure(kind_label, scenario, kind, policy_name, policy_class, jobs):
    builtin_seconds, builtin = best_of(scenario, RUNS)
    python_scenario = scenario.copy()
    python_scenario.set_policy(kind, policy_name)
    policy_class.calls = 0
    python_seconds, python = best_of(python_scenario, RUNS)
    calls = policy_class.calls // RUNS
    same = builtin.events() == python.events()
    per_call_us = (python_seconds - builtin_seconds) / max(calls, 1) * 1e6
    print(f"{kind_label}: {jobs} workloads; built-in {builtin_seconds * 1e3:.1f} ms, "
          f"Python {python_seconds * 1e3:.1f} ms, {calls} Python calls, "
          f"{per_call_us:.2f} us per call; same events: {same}")
    return same


def main():
    args = sys.argv[1:]
    jobs = int(args.pop(0)) if args and args[0].isdigit() else 1000
    kinds = args or list(KINDS)
    for kind in kinds:
        if kind not in KINDS:
            print(f"unknown kind {kind!r} (valid: {', '.join(KINDS)})", file=sys.stderr)
            return 2
    all_same = True
    if "ordering" in kinds:
        kueuesim.register_queue_ordering("kueue-in-python", KueueOrderInPython)
        all_same &= measure("queue ordering", ordering_scenario(jobs), "queueOrdering", "kueue-in-python",
                            KueueOrderInPython, jobs)
    if "preemption" in kinds:
        kueuesim.register_preemption("kueue-within-queue-in-python", KueueWithinQueueInPython)
        same = measure("preemption", preemption_scenario(jobs), "preemption", "kueue-within-queue-in-python",
                       KueueWithinQueueInPython, jobs)
        policy = KueueWithinQueueInPython
        calls = max(policy.calls, 1)
        print(f"  per get_targets call: {policy.listed / calls:.1f} candidates listed, "
              f"{policy.eligible / calls:.2f} eligible, {policy.fits_calls / calls:.2f} fits() calls")
        all_same &= same
    if "dispatch" in kinds:
        kueuesim.register_dispatcher("all-at-once-in-python", AllAtOnceInPython)
        all_same &= measure("dispatch", dispatch_scenario(jobs), "dispatcher", "all-at-once-in-python",
                            AllAtOnceInPython, jobs)
    return 0 if all_same else 1


if __name__ == "__main__":
    sys.exit(main())
