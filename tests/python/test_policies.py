"""Tests of preemption policies and MultiKueue dispatchers written in Python
(kueuesim.register_preemption, kueuesim.register_dispatcher): they are used
by the runs that select them, change the results the way they say, and
their mistakes become Python exceptions with a clear message.

Run: PYTHONPATH=<build>/python python3 -m unittest discover -s tests/python
(ctest registers it as python.unittest).
"""
import json
import os
import unittest

import kueuesim

SOURCE_DIR = os.environ.get(
    "KUEUESIM_SOURCE_DIR", os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
DISPATCHER_EXAMPLE = os.path.join(SOURCE_DIR, "examples", "custom-dispatcher")

FLAVOR = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "default"}}


def cluster_queue(name, cpu, cohort=None, within="LowerPriority", reclaim="Never"):
    spec = {"namespaceSelector": {},
            "preemption": {"withinClusterQueue": within, "reclaimWithinCohort": reclaim},
            "resourceGroups": [{"coveredResources": ["cpu"], "flavors": [{"name": "default", "resources": [
                {"name": "cpu", "nominalQuota": str(cpu)}]}]}]}
    if cohort:
        spec["cohortName"] = cohort
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": name},
            "spec": spec}


def local_queue(namespace, cq):
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
            "metadata": {"name": "q", "namespace": namespace}, "spec": {"clusterQueue": cq}}


def workload(name, namespace, cpu, duration, arrival, priority=0):
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
            "metadata": {"name": name, "namespace": namespace, "uid": f"uid-{name}",
                         "annotations": {"kueuesim.io/arrival": arrival, "kueuesim.io/duration": duration}},
            "spec": {"queueName": "q", "priority": priority, "podSets": [{"name": "main", "count": 1, "template": {
                "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": str(cpu)}}}]}}}]}}


def within_queue_objects(high_cpu=2):
    """One 4-CPU queue that preempts lower priorities: two low-priority
    2-CPU 1 h jobs (priority 0 at t=0, priority 1 at t=10 s) fill it; a
    priority-10 job arrives at t=60 s. Kueue preempts the lowest priority,
    the older one (both when the new job needs 4 CPUs)."""
    return [FLAVOR, cluster_queue("cq", 4), local_queue("ns", "cq"),
            workload("low-old", "ns", 2, "1h", "0s", priority=0),
            workload("low-new", "ns", 2, "1h", "10s", priority=1),
            workload("high", "ns", high_cpu, "10m", "60s", priority=10)]


def within_queue_scenario(high_cpu=2):
    return kueuesim.from_objects(within_queue_objects(high_cpu))


def reclaim_scenario():
    """Queues a and b (4 CPUs each) share a cohort; b's three 2-CPU jobs
    (t=0, 10, 20 s) borrow 2 of a's CPUs; a's 4-CPU job at t=60 s reclaims
    them: one of b's jobs must go."""
    return kueuesim.from_objects([
        FLAVOR, cluster_queue("a", 4, cohort="co", reclaim="Any"), cluster_queue("b", 4, cohort="co"),
        local_queue("ns-a", "a"), local_queue("ns-b", "b"),
        workload("b1", "ns-b", 2, "1h", "0s"), workload("b2", "ns-b", 2, "1h", "10s"),
        workload("b3", "ns-b", 2, "1h", "20s"),
        workload("a1", "ns-a", 4, "10m", "60s")])


def preemptions(sim):
    """(time, victim, reason, preemptor) of every Preempted event."""
    return [(e["time"], e["workload"], e["reason"], e["preemptor"]) for e in sim.events() if e["type"] == "Preempted"]


def reserved_at(sim, key):
    return [e["time"] for e in sim.events() if e["type"] == "QuotaReserved" and e["workload"] == key]


def run(scenario, kind=None, name=None, parameters=None):
    if kind is not None:
        scenario.set_policy(kind, name, parameters or {})
    sim = scenario.simulation()
    sim.run()
    return sim


# --- Preemption policies ---------------------------------------------------------

class NewestLowerPriorityFirst:
    """Preempts, within the preemptor's queue, lower-priority workloads
    newest first until the preemptor fits."""
    calls = 0

    def __init__(self, parameters):
        pass

    def get_targets(self, request):
        NewestLowerPriorityFirst.calls += 1
        lower = [c for c in request.candidates
                 if c.in_preemptor_queue and c.priority < request.preemptor.priority]
        lower.sort(key=lambda c: c.reserved_at, reverse=True)
        chosen = []
        for candidate in lower:
            chosen.append(candidate)
            if request.fits(chosen):
                return chosen
        return []


class NeverPreempt:
    calls = 0

    def __init__(self, parameters):
        pass

    def get_targets(self, request):
        NeverPreempt.calls += 1
        return []


class TriesEverythingThenRefuses:
    """Calls fits() on many sets of workloads (which must leave the cluster
    as it was), then preempts nothing."""
    fits_results = []

    def __init__(self, parameters):
        pass

    def get_targets(self, request):
        keys = [c.key for c in request.candidates]
        results = [request.fits(), request.fits(keys), request.fits(keys, allow_borrowing=False)]
        results += [request.fits([key]) for key in keys]
        TriesEverythingThenRefuses.fits_results.append(results)
        return []


class FirstLowerPriorityOnly:
    """Returns one lower-priority candidate, whether or not that is enough."""

    def __init__(self, parameters):
        pass

    def get_targets(self, request):
        return [c for c in request.candidates if c.priority < request.preemptor.priority][:1]


class ReclaimNewestBorrowerFirst:
    """Cohort reclamation as the queue allows it: workloads of the other
    queues that borrow, newest first, until the preemptor fits; the reason
    is the policy's parameter when given. (A policy that ignored
    reclaimWithinCohort: Never would let b's evicted job reclaim a's quota in
    turn, preempting back and forth without end.)"""
    requests_seen = []

    def __init__(self, parameters):
        self.reason = parameters.get("reason")

    def get_targets(self, request):
        ReclaimNewestBorrowerFirst.requests_seen.append({
            "preemptor": request.preemptor.key, "cluster_queue": request.cluster_queue, "cohort": request.cohort,
            "usage": request.usage, "resources_needing_preemption": request.resources_needing_preemption,
            "reclaim_within_cohort": request.reclaim_within_cohort, "fair_sharing": request.fair_sharing,
            "now": request.now,
            "candidates": sorted((c.key, c.cluster_queue, c.priority, c.reserved_at, c.in_preemptor_queue,
                                  c.cluster_queue_borrowing, c.uses_needed_resources, c.evicted,
                                  c.usage[("default", "cpu")])
                                 for c in request.candidates)})
        if request.reclaim_within_cohort == "Never":
            return []
        others = sorted((c for c in request.candidates if not c.in_preemptor_queue and c.cluster_queue_borrowing),
                        key=lambda c: c.reserved_at, reverse=True)
        chosen = []
        for candidate in others:
            chosen.append(candidate.key)
            if request.fits(chosen):
                return [(key, self.reason) for key in chosen] if self.reason else chosen
        return []


class Returns:
    """Returns what its parameter `result` says (JSON), for error cases."""

    def __init__(self, parameters):
        self.result = json.loads(parameters["result"])

    def get_targets(self, request):
        return [tuple(item) if isinstance(item, list) else item for item in self.result] \
            if isinstance(self.result, list) else self.result


class RaisesInside:
    def __init__(self, parameters):
        pass

    def get_targets(self, request):
        raise KeyError("no victim for " + request.preemptor.key)


class KeepsTheRequest:
    kept = None

    def __init__(self, parameters):
        pass

    def get_targets(self, request):
        KeepsTheRequest.kept = request
        return []


class WithoutGetTargets:
    def __init__(self, parameters):
        pass

    def pick(self, request):
        return []


kueuesim.register_preemption("test-newest-lower-priority", NewestLowerPriorityFirst,
                             "lower priorities of the same queue, newest first")
kueuesim.register_preemption("test-never-preempt", NeverPreempt)
kueuesim.register_preemption("test-tries-then-refuses", TriesEverythingThenRefuses)
kueuesim.register_preemption("test-first-lower-priority-only", FirstLowerPriorityOnly)
kueuesim.register_preemption("test-reclaim-newest", ReclaimNewestBorrowerFirst)
kueuesim.register_preemption("test-returns", Returns)
kueuesim.register_preemption("test-raises-inside", RaisesInside)
kueuesim.register_preemption("test-keeps-request", KeepsTheRequest)
kueuesim.register_preemption("test-without-get-targets", WithoutGetTargets)


class RecordsThePreemptor:
    """Preempts nothing; keeps what the preemptor's metadata reads as."""
    seen = []

    def __init__(self, parameters):
        pass

    def get_targets(self, request):
        w = request.preemptor
        RecordsThePreemptor.seen.append((w.key, w.uid, w.labels, w.annotations))
        return []


kueuesim.register_preemption("test-records-the-preemptor", RecordsThePreemptor)


class PythonPreemptionTest(unittest.TestCase):
    def test_preemptor_metadata_reads_as_written(self):
        # Labels and annotations come back as dicts, the uid as written.
        RecordsThePreemptor.seen = []
        objects = within_queue_objects()
        objects[-1]["metadata"]["labels"] = {"team": "a", "kueue.x-k8s.io/job-uid": "7"}
        run(kueuesim.from_objects(objects), "preemption", "test-records-the-preemptor")
        self.assertEqual(RecordsThePreemptor.seen[0],
                         ("ns/high", "uid-high", {"kueue.x-k8s.io/job-uid": "7", "team": "a"},
                          {"kueuesim.io/arrival": "60s", "kueuesim.io/duration": "10m"}))

    def test_kueue_preempts_the_lowest_priority(self):
        sim = run(within_queue_scenario())
        self.assertEqual(preemptions(sim), [(60.0, "ns/low-old", "InClusterQueue", "ns/high")])
        self.assertEqual(reserved_at(sim, "ns/high"), [60.0])
        self.assertEqual(sim.summary()["clusters"][0]["clusterQueues"][0]["preempted"], 1)

    def test_python_policy_chooses_another_victim(self):
        NewestLowerPriorityFirst.calls = 0
        sim = run(within_queue_scenario(), "preemption", "test-newest-lower-priority")
        self.assertGreater(NewestLowerPriorityFirst.calls, 0)
        # The newer job goes first; requeued, it has a higher priority than the
        # older one and preempts it in turn: two preemptions where Kueue has one.
        self.assertEqual(preemptions(sim), [(60.0, "ns/low-new", "InClusterQueue", "ns/high"),
                                            (60.0, "ns/low-old", "InClusterQueue", "ns/low-new")])
        self.assertEqual(reserved_at(sim, "ns/high"), [60.0])
        self.assertEqual(sim.summary()["clusters"][0]["clusterQueues"][0]["preempted"], 2)

    def test_policy_that_never_preempts(self):
        NeverPreempt.calls = 0
        sim = run(within_queue_scenario(), "preemption", "test-never-preempt")
        self.assertGreater(NeverPreempt.calls, 0)
        summary = sim.summary()["clusters"][0]["clusterQueues"][0]
        self.assertEqual((summary["preempted"], summary["evicted"]), (0, 0))
        self.assertEqual(preemptions(sim), [])
        # The high-priority job waits for the older low one to finish at 1 h
        # (plus Kueue's 1 s requeue batching).
        self.assertEqual(reserved_at(sim, "ns/high"), [3601.0])

    def test_fits_leaves_the_cluster_as_it_was(self):
        TriesEverythingThenRefuses.fits_results = []
        tried = run(within_queue_scenario(), "preemption", "test-tries-then-refuses")
        refused = run(within_queue_scenario(), "preemption", "test-never-preempt")
        self.assertEqual(tried.events(), refused.events())
        # Nothing fits as is; removing both low jobs or either one frees enough.
        self.assertIn([False, True, True, True, True], TriesEverythingThenRefuses.fits_results)

    def test_targets_that_do_not_make_room_are_not_preempted(self):
        kueue = run(within_queue_scenario(high_cpu=4))
        self.assertEqual(preemptions(kueue), [(60.0, "ns/low-old", "InClusterQueue", "ns/high"),
                                              (60.0, "ns/low-new", "InClusterQueue", "ns/high")])
        # One 2-CPU job does not free the 4 CPUs the preemptor needs: nothing
        # is preempted until the older job finishes at 1 h.
        python = run(within_queue_scenario(high_cpu=4), "preemption", "test-first-lower-priority-only")
        self.assertEqual(preemptions(python), [(3600.0, "ns/low-new", "InClusterQueue", "ns/high")])
        self.assertEqual(reserved_at(python, "ns/high"), [3600.0])

    def test_cohort_reclamation_matches_kueue(self):
        kueue = run(reclaim_scenario())
        self.assertEqual(preemptions(kueue), [(60.0, "ns-b/b3", "InCohortReclamation", "ns-a/a1")])
        ReclaimNewestBorrowerFirst.requests_seen = []
        python = run(reclaim_scenario(), "preemption", "test-reclaim-newest")
        self.assertEqual(python.events(), kueue.events())
        first = ReclaimNewestBorrowerFirst.requests_seen[0]
        self.assertEqual(first["preemptor"], "ns-a/a1")
        self.assertEqual((first["cluster_queue"], first["cohort"]), ("a", "co"))
        self.assertEqual(first["usage"], {("default", "cpu"): 4000})
        self.assertEqual(first["resources_needing_preemption"], [("default", "cpu")])
        self.assertEqual((first["reclaim_within_cohort"], first["fair_sharing"], first["now"]), ("Any", False, 60.0))
        self.assertEqual(first["candidates"], [
            ("ns-b/b1", "b", 0, 0.0, False, True, True, False, 2000),
            ("ns-b/b2", "b", 0, 10.0, False, True, True, False, 2000),
            ("ns-b/b3", "b", 0, 20.0, False, True, True, False, 2000)])

    def test_reason_given_by_the_policy(self):
        sim = run(reclaim_scenario(), "preemption", "test-reclaim-newest",
                  {"reason": "InCohortReclaimWhileBorrowing"})
        self.assertEqual(preemptions(sim), [(60.0, "ns-b/b3", "InCohortReclaimWhileBorrowing", "ns-a/a1")])
        self.assertEqual(sim.summary()["clusters"][0]["clusterQueues"][1]["preemptedByReason"],
                         {"InCohortReclaimWhileBorrowing": 1})

    def test_selected_from_scenario_yaml_and_listed(self):
        simulation = {"apiVersion": "kueuesim.io/v1alpha1", "kind": "Simulation", "metadata": {"name": "s"},
                      "spec": {"policies": {"preemption": {"name": "test-newest-lower-priority"}}}}
        from_yaml = kueuesim.from_objects([simulation] + within_queue_objects())
        self.assertEqual(from_yaml.policies["preemption"], "test-newest-lower-priority")
        self.assertEqual(preemptions(run(from_yaml))[0], (60.0, "ns/low-new", "InClusterQueue", "ns/high"))
        scenario = within_queue_scenario()
        self.assertIn({"kind": "preemption", "name": "test-newest-lower-priority",
                       "description": "lower priorities of the same queue, newest first"}, kueuesim.policies())
        with self.assertRaisesRegex(kueuesim.InputError, 'preemption policy "test-never-preempt" is already'):
            kueuesim.register_preemption("test-never-preempt", NeverPreempt)
        with self.assertRaisesRegex(kueuesim.InputError, 'unknown preemption policy "nope"'):
            scenario.set_policy("preemption", "nope")


class PythonPreemptionErrorTest(unittest.TestCase):
    def returns(self, result, scenario=None):
        scenario = scenario or within_queue_scenario()
        scenario.set_policy("preemption", "test-returns", {"result": json.dumps(result)})
        return scenario.simulation()

    def test_factory_without_get_targets(self):
        scenario = within_queue_scenario()
        scenario.set_policy("preemption", "test-without-get-targets")
        with self.assertRaisesRegex(kueuesim.InputError,
                                    'Python preemption policy "test-without-get-targets": the factory returned an '
                                    'object without a get_targets\\(request\\) method'):
            scenario.simulation()

    def test_unknown_workload_key(self):
        sim = self.returns(["ns/nope"])
        with self.assertRaisesRegex(kueuesim.InputError,
                                    '"test-returns": get_targets: "ns/nope" is not a preemption candidate'):
            sim.run()
        with self.assertRaisesRegex(kueuesim.Error, "stopped at an exception raised by a Python policy"):
            sim.run()

    def test_the_preemptor_itself_is_not_a_candidate(self):
        with self.assertRaisesRegex(kueuesim.InputError, '"ns/high" is not a preemption candidate'):
            self.returns(["ns/high"]).run()

    def test_unknown_reason(self):
        with self.assertRaisesRegex(kueuesim.InputError,
                                    'unknown preemption reason "Because" \\(valid: InClusterQueue, '
                                    'InCohortReclamation, InCohortFairSharing, InCohortReclaimWhileBorrowing\\)'):
            self.returns([["ns/low-old", "Because"]]).run()

    def test_wrong_result_types(self):
        with self.assertRaisesRegex(kueuesim.InputError, "get_targets must return a list .* not NoneType"):
            self.returns(None).run()
        with self.assertRaisesRegex(kueuesim.InputError, "expected a workload key .* got int"):
            self.returns([3]).run()
        with self.assertRaisesRegex(kueuesim.InputError, 'returned "ns/low-old" twice'):
            self.returns(["ns/low-old", "ns/low-old"]).run()

    def test_exception_in_the_policy_reaches_the_caller(self):
        scenario = within_queue_scenario()
        scenario.set_policy("preemption", "test-raises-inside")
        with self.assertRaisesRegex(KeyError, "no victim for ns/high"):
            scenario.simulation().run()

    def test_request_is_valid_during_the_call_only(self):
        run(within_queue_scenario(), "preemption", "test-keeps-request")
        with self.assertRaisesRegex(kueuesim.Error, "valid only during the get_targets call"):
            KeepsTheRequest.kept.candidates
        with self.assertRaisesRegex(kueuesim.Error, "valid only during the get_targets call"):
            KeepsTheRequest.kept.fits([])


# --- MultiKueue dispatchers ------------------------------------------------------

def dispatcher_example():
    """Three workers (east, west, north) with different local load behind a
    manager; six 4-GPU jobs, one every 5 minutes from t=60 s."""
    return kueuesim.load(os.path.join(DISPATCHER_EXAMPLE, "scenario.yaml"))


def worker_of(sim):
    """Job name -> the worker it ran on (WorkerSelected on the manager)."""
    return {e["workload"].removeprefix("research/job-"): e["worker"]
            for e in sim.events() if e["type"] == "WorkerSelected"}


class LastCluster:
    calls = 0

    def __init__(self, parameters):
        pass

    def nominate(self, request):
        LastCluster.calls += 1
        return [len(request.clusters) - 1]


class MostFreeQuota:
    """examples/custom-dispatcher/main.cc in Python: the connected worker
    with the most free quota of the workload's largest request; look again
    in a minute when nothing fits."""
    requests_seen = []

    def __init__(self, parameters):
        pass

    def nominate(self, request):
        MostFreeQuota.requests_seen.append(request)
        resource = max(request.requests, key=lambda r: request.requests[r])  # the first of the largest
        best, best_free = None, -1
        for index, cluster in enumerate(request.clusters):
            if not cluster.connected or not cluster.has_queue or resource not in cluster.free:
                continue
            if cluster.free[resource] > best_free:
                best, best_free = index, cluster.free[resource]
        nominated = [] if best is None else [best]
        if best_free < request.requests[resource]:
            return {"nominated": nominated, "recheck_at": request.now + 60}
        return nominated


class WaitThenByName:
    """Nothing for 5 minutes after the manager reserved quota, then the
    worker named by the `worker` parameter, as a (nominated, recheck_at)
    tuple and a name."""

    def __init__(self, parameters):
        self.worker = parameters["worker"]

    def nominate(self, request):
        if request.now < request.reserved_at + 300:
            return ([], request.reserved_at + 300)
        return [self.worker]


class DispatcherReturns:
    def __init__(self, parameters):
        self.result = json.loads(parameters["result"])

    def nominate(self, request):
        return self.result


class DispatcherRaises:
    def __init__(self, parameters):
        pass

    def nominate(self, request):
        raise RuntimeError("dispatcher bug at " + str(request.now))


class WithoutNominate:
    def __init__(self, parameters):
        pass


kueuesim.register_dispatcher("test-last-cluster", LastCluster, "always the last cluster of the config")
kueuesim.register_dispatcher("example.com/most-free-quota", MostFreeQuota)
kueuesim.register_dispatcher("test-wait-then-by-name", WaitThenByName)
kueuesim.register_dispatcher("test-dispatcher-returns", DispatcherReturns)
kueuesim.register_dispatcher("test-dispatcher-raises", DispatcherRaises)
kueuesim.register_dispatcher("test-without-nominate", WithoutNominate)


class PythonDispatcherTest(unittest.TestCase):
    def test_all_at_once_spreads_the_jobs(self):
        sim = run(dispatcher_example(), "dispatcher", "kueue.x-k8s.io/multikueue-dispatcher-all-at-once")
        self.assertEqual(worker_of(sim), {"train-0": "east", "train-1": "west", "train-2": "west",
                                          "train-3": "west", "train-4": "east", "train-5": "west"})
        self.assertEqual(sim.summary()["multiKueue"][0]["copies"], 18)

    def test_last_cluster_runs_everything_on_north(self):
        LastCluster.calls = 0
        sim = run(dispatcher_example(), "dispatcher", "test-last-cluster")
        self.assertGreaterEqual(LastCluster.calls, 6)
        self.assertEqual(worker_of(sim), {f"train-{i}": "north" for i in range(6)})
        dispatched = {e["worker"] for e in sim.events() if e["type"] == "Dispatched"}
        self.assertEqual(dispatched, {"north"})
        report = sim.summary()["multiKueue"][0]
        self.assertEqual((report["dispatcher"], report["copies"]), ("test-last-cluster", 6))
        self.assertEqual({w["name"]: w["won"] for w in report["workers"]}, {"east": 0, "west": 0, "north": 6})

    def test_python_port_of_the_cpp_example_gives_its_events(self):
        # The scenario selects "example.com/most-free-quota" itself; the C++
        # example's checked output is what the Python port must give.
        MostFreeQuota.requests_seen = []
        sim = run(dispatcher_example())
        with open(os.path.join(DISPATCHER_EXAMPLE, "expected-events.jsonl")) as fh:
            self.assertEqual(sim.events(), [json.loads(line) for line in fh])
        first = MostFreeQuota.requests_seen[0]
        self.assertEqual((first.workload, first.priority, first.requests), ("research/job-train-0", 0,
                                                                           {"nvidia.com/gpu": 4}))
        self.assertEqual((first.now, first.reserved_at, first.last_nomination, first.nominated), (60.0, 60.0, None, []))
        self.assertEqual([(c.name, c.connected, c.has_queue, c.free, c.pending) for c in first.clusters], [
            ("east", True, True, {"nvidia.com/gpu": 4}, 0),
            ("west", True, True, {"nvidia.com/gpu": 12}, 0),
            ("north", True, True, {"nvidia.com/gpu": 0}, 0)])

    def test_recheck_at_and_names(self):
        sim = run(dispatcher_example(), "dispatcher", "test-wait-then-by-name", {"worker": "east"})
        dispatched = [(e["time"], e["workload"], e["worker"]) for e in sim.events() if e["type"] == "Dispatched"]
        self.assertEqual(dispatched[0], (360.0, "research/job-train-0", "east"))
        self.assertEqual({worker for _, _, worker in dispatched}, {"east"})
        self.assertEqual(len(dispatched), 6)


class PythonDispatcherErrorTest(unittest.TestCase):
    def returns(self, result):
        scenario = dispatcher_example()
        scenario.set_policy("dispatcher", "test-dispatcher-returns", {"result": json.dumps(result)})
        return scenario.simulation()

    def test_factory_without_nominate(self):
        scenario = dispatcher_example()
        scenario.set_policy("dispatcher", "test-without-nominate")
        with self.assertRaisesRegex(kueuesim.InputError, 'Python dispatcher "test-without-nominate": the factory '
                                                         'returned an object without a nominate\\(request\\) method'):
            scenario.simulation()

    def test_index_out_of_range(self):
        with self.assertRaisesRegex(kueuesim.InputError, "nominate returned cluster index 3; the MultiKueueConfig "
                                                         "has 3 clusters"):
            self.returns([3]).run()

    def test_unknown_cluster_name(self):
        with self.assertRaisesRegex(kueuesim.InputError,
                                    'unknown cluster "south" \\(valid: east, west, north\\)'):
            self.returns(["south"]).run()

    def test_bad_results(self):
        with self.assertRaisesRegex(kueuesim.InputError, "nominate must return a list .* not NoneType"):
            self.returns(None).run()
        with self.assertRaisesRegex(kueuesim.InputError, 'unknown key "when"'):
            self.returns({"nominated": [0], "when": 5}).run()
        with self.assertRaisesRegex(kueuesim.InputError, "recheck_at must be None or a simulated time"):
            self.returns({"nominated": [0], "recheck_at": "soon"}).run()
        with self.assertRaisesRegex(kueuesim.InputError, 'returned cluster "east" twice'):
            self.returns([0, "east"]).run()

    def test_exception_in_the_dispatcher_reaches_the_caller(self):
        scenario = dispatcher_example()
        scenario.set_policy("dispatcher", "test-dispatcher-raises")
        sim = scenario.simulation()
        with self.assertRaisesRegex(RuntimeError, "dispatcher bug at 60.0"):
            sim.run()
        with self.assertRaisesRegex(kueuesim.Error, "stopped at an exception raised by a Python policy"):
            sim.summary()


if __name__ == "__main__":
    unittest.main()
