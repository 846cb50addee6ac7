#!/usr/bin/env python3
"""Measures what a queue-ordering policy written in Python costs per call.

Runs one scenario twice: with Kueue's built-in ordering (C++) and with a
Python policy giving the same order, and divides the difference in wall
time by the number of Python calls. Both runs must admit in the same order.

Usage: PYTHONPATH=<build>/python python3 python/measure_policy_cost.py [JOBS]
"""
import sys
import time

import kueuesim


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


def scenario(jobs):
    objects = [
        {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "default"}},
        {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "cq"},
         "spec": {"namespaceSelector": {}, "resourceGroups": [{"coveredResources": ["cpu"], "flavors": [
             {"name": "default", "resources": [{"name": "cpu", "nominalQuota": "8"}]}]}]}},
        {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue", "metadata": {"name": "q", "namespace": "ns"},
         "spec": {"clusterQueue": "cq"}},
    ]
    for i in range(jobs):
        objects.append({
            "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
            "metadata": {"name": f"w{i:05d}", "namespace": "ns", "uid": f"uid-{i:05d}",
                         "annotations": {"kueuesim.io/arrival": f"{i % 97}s",
                                         "kueuesim.io/duration": f"{60 + (i * 37) % 600}s"}},
            "spec": {"queueName": "q", "priority": i % 3, "podSets": [{"name": "main", "count": 1, "template": {
                "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}}]}})
    return kueuesim.from_objects(objects)


def timed_run(s):
    sim = s.simulation()
    start = time.perf_counter()
    sim.run()
    return time.perf_counter() - start, sim


def main():
    jobs = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    kueuesim.register_queue_ordering("kueue-in-python", KueueOrderInPython)
    s = scenario(jobs)
    builtin_seconds, builtin = min((timed_run(s) for _ in range(3)), key=lambda r: r[0])
    s.set_policy("queueOrdering", "kueue-in-python")
    KueueOrderInPython.calls = 0
    python_seconds, python = timed_run(s)
    calls = KueueOrderInPython.calls
    same = [e for e in builtin.events()] == [e for e in python.events()]
    print(f"{jobs} workloads; built-in ordering {builtin_seconds * 1e3:.1f} ms, "
          f"Python ordering {python_seconds * 1e3:.1f} ms, {calls} Python calls, "
          f"{(python_seconds - builtin_seconds) / max(calls, 1) * 1e9:.0f} ns per call; same events: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
