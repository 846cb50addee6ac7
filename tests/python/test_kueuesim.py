"""Tests of the kueuesim Python module: loading, running, reading results,
changing parameters between runs, Python policies and errors.

Run: PYTHONPATH=<build>/python python3 -m unittest discover -s tests/python
(ctest registers it as python.unittest).
"""
import concurrent.futures
import json
import os
import tempfile
import unittest

import kueuesim

SOURCE_DIR = os.environ.get(
    "KUEUESIM_SOURCE_DIR", os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
QUICKSTART = os.path.join(SOURCE_DIR, "scenarios", "quickstart", "gpu-teams.yaml")


def cluster_queue(name, cpu, cohort=None, weight=None):
    spec = {"namespaceSelector": {}, "resourceGroups": [
        {"coveredResources": ["cpu"], "flavors": [{"name": "default", "resources": [
            {"name": "cpu", "nominalQuota": str(cpu)}]}]}]}
    if cohort:
        spec["cohortName"] = cohort
    if weight is not None:
        spec["fairSharing"] = {"weight": str(weight)}
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": name},
            "spec": spec}


def local_queue(namespace, cq):
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
            "metadata": {"name": "q", "namespace": namespace}, "spec": {"clusterQueue": cq}}


def job(name, namespace, cpu, duration, arrival="0s"):
    return {"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": name, "namespace": namespace,
                         "labels": {"kueue.x-k8s.io/queue-name": "q"},
                         "annotations": {"kueuesim.io/duration": duration, "kueuesim.io/arrival": arrival}},
            "spec": {"parallelism": 1, "template": {"spec": {"restartPolicy": "Never", "containers": [
                {"name": "c", "image": "x", "resources": {"requests": {"cpu": str(cpu)}}}]}}}}


FLAVOR = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "default"}}


def one_queue_objects():
    """A 4-CPU queue: a 1 h blocker at t=0, then three 4-CPU jobs at t=1 s
    whose input order (long, short, medium) differs from shortest-first."""
    return [FLAVOR, cluster_queue("cq", 4), local_queue("ns", "cq"),
            job("blocker", "ns", 4, "1h"),
            job("long", "ns", 4, "3h", "1s"),
            job("short", "ns", 4, "10m", "1s"),
            job("medium", "ns", 4, "1h", "1s")]


def reservation_order(sim):
    """Job names in the order their workloads reserved quota (a Job's
    Workload is named job-<name>, as Kueue names it)."""
    return [e["workload"].removeprefix("ns/job-") for e in sim.events() if e["type"] == "QuotaReserved"]


class LoadingTest(unittest.TestCase):
    def test_load_file(self):
        scenario = kueuesim.load([QUICKSTART])
        self.assertEqual([cq["name"] for cq in scenario.cluster_queues()], ["team-a", "team-b"])
        self.assertEqual(scenario.clusters, [""])

    def test_loads_and_from_objects_agree(self):
        with open(QUICKSTART) as fh:
            text = fh.read()
        a = kueuesim.load(QUICKSTART).simulation()
        b = kueuesim.loads(text).simulation()
        a.run()
        b.run()
        self.assertEqual(a.summary(), b.summary())
        c = kueuesim.from_objects(one_queue_objects()).simulation()
        c.run()
        self.assertEqual(c.summary()["clusters"][0]["workloads"], 4)


class RunningTest(unittest.TestCase):
    def test_results_match_the_checked_cli_output(self):
        sim = kueuesim.load(QUICKSTART).simulation()
        sim.run()
        with open(QUICKSTART[:-len(".yaml")] + ".expected.json") as fh:
            self.assertEqual(sim.summary(), json.load(fh))
        with open(QUICKSTART[:-len(".yaml")] + ".expected.jsonl") as fh:
            self.assertEqual(sim.events(), [json.loads(line) for line in fh])

    def test_check_invariants_passes_and_changes_nothing(self):
        scenario = kueuesim.load(QUICKSTART)
        plain = scenario.simulation()
        plain.run()
        checked = scenario.simulation()
        checked.step_to("45m", check_invariants=True)
        checked.run()  # stays on
        self.assertEqual(checked.summary(), plain.summary())
        self.assertEqual(checked.events(), plain.events())
        with self.assertRaises(TypeError):  # keyword only
            scenario.simulation().run(None, None, True)

    def test_step_to_then_run_gives_the_same_result(self):
        scenario = kueuesim.load(QUICKSTART)
        whole = scenario.simulation()
        whole.run()
        stepped = scenario.simulation()
        stepped.step_to("45m")
        self.assertEqual(stepped.now, 2700.0)
        partial = stepped.summary()
        team_b = partial["clusters"][0]["clusterQueues"][1]
        self.assertEqual((team_b["admitted"], team_b["pending"]), (0, 2))
        self.assertTrue(all(e["time"] <= 2700.0 for e in stepped.events()))
        stepped.step_to(5400)
        stepped.run()
        self.assertEqual(stepped.summary(), whole.summary())
        self.assertEqual(stepped.events(), whole.events())
        with self.assertRaises(kueuesim.InputError):
            stepped.step_to(10)

    def test_run_until(self):
        sim = kueuesim.load(QUICKSTART).simulation()
        sim.run(until=600)
        self.assertEqual(sim.now, 600.0)
        self.assertEqual(sim.summary()["endTime"], 600.0)

    def test_events_frame_needs_pandas(self):
        sim = kueuesim.load(QUICKSTART).simulation()
        sim.run()
        try:
            import pandas  # noqa: F401
        except ImportError:
            with self.assertRaisesRegex(ImportError, "needs pandas"):
                sim.events_frame()
        else:
            frame = sim.events_frame()
            self.assertEqual(len(frame), len(sim.events()))


class PendingTest(unittest.TestCase):
    def test_why_a_workload_waits(self):
        sim = kueuesim.from_objects(one_queue_objects()).simulation()
        sim.step_to(2)
        long = sim.pending("ns/job-long")
        self.assertEqual(long["reason"], "WaitingForQuota")
        self.assertEqual(long["message"], "couldn't assign flavors to pod set main: insufficient unused quota "
                                          "for cpu in flavor default, 4 more needed")
        self.assertEqual(long["since"], 1.0)
        self.assertEqual(long["clusterQueue"], "cq")
        # Parked with the head's scheduling hash before any cycle looked at it.
        self.assertIsNone(sim.pending("ns/job-short"))
        self.assertIsNone(sim.pending("ns/job-blocker"))  # holds quota
        self.assertEqual(sorted(p["workload"] for p in sim.pending_workloads()),
                         ["ns/job-long", "ns/job-medium", "ns/job-short"])
        pending_events = [e for e in sim.events() if e["type"] == "Pending"]
        self.assertEqual(pending_events[0]["workload"], "ns/job-long")
        self.assertEqual(pending_events[0]["message"], long["message"])
        sim.run()
        self.assertEqual(sim.pending_workloads(), [])
        with self.assertRaises(kueuesim.Error):
            sim.pending("ns/nothing")


class ChangingParametersTest(unittest.TestCase):
    def test_quota_change_between_runs(self):
        scenario = kueuesim.load(QUICKSTART)
        before = scenario.simulation()
        before.run()
        self.assertEqual(before.summary()["clusters"][0]["clusterQueues"][1]["waitSeconds"]["p90"], 1801.0)
        # Without borrowing, team A's burst no longer takes team B's GPUs.
        scenario.set_quota("team-a", "a100", "nvidia.com/gpu", borrowing_limit="0")
        gpu = scenario.cluster_queues()[0]["resourceGroups"][0]["flavors"][0]["resources"][2]
        self.assertEqual((gpu["nominalQuota"], gpu["borrowingLimit"]), ("8", "0"))
        after = scenario.simulation()
        after.run()
        queues = after.summary()["clusters"][0]["clusterQueues"]
        self.assertEqual(queues[1]["waitSeconds"]["p90"], 0.0)
        # Team A's last two jobs wait for its first two (1 h) plus Kueue's 1 s
        # inadmissible requeue batching.
        self.assertEqual(queues[0]["waitSeconds"]["max"], 3601.0)
        # The first simulation kept the scenario it was made from.
        self.assertEqual(before.summary()["clusters"][0]["clusterQueues"][1]["waitSeconds"]["p90"], 1801.0)

    def test_nominal_quota_and_limits(self):
        scenario = kueuesim.load(QUICKSTART)
        scenario.set_quota("team-b", "a100", "nvidia.com/gpu", nominal="4", lending_limit="2")
        scenario.set_quota("team-a", "a100", "nvidia.com/gpu", borrowing_limit=kueuesim.NO_LIMIT)
        rq = {cq["name"]: cq["resourceGroups"][0]["flavors"][0]["resources"][2] for cq in scenario.cluster_queues()}
        self.assertEqual((rq["team-b"]["nominalQuota"], rq["team-b"]["lendingLimit"]), ("4", "2"))
        self.assertIsNone(rq["team-a"]["borrowingLimit"])
        with self.assertRaisesRegex(kueuesim.InputError, "lendingLimit must be less than or equal to nominalQuota"):
            scenario.set_quota("team-b", "a100", "nvidia.com/gpu", lending_limit="5")
        with self.assertRaisesRegex(kueuesim.InputError, 'no ClusterQueue "team-z"'):
            scenario.set_quota("team-z", "a100", "cpu", nominal="1")
        with self.assertRaisesRegex(kueuesim.InputError, "nominalQuota"):
            scenario.set_quota("team-a", "a100", "cpu", nominal="12x")

    def test_fair_sharing_weight(self):
        scenario = kueuesim.load(QUICKSTART)
        scenario.set_fair_sharing_weight("team-a", 2.5)
        self.assertEqual(scenario.cluster_queues()[0]["fairSharingWeight"], 2.5)
        with self.assertRaises(kueuesim.InputError):
            scenario.set_fair_sharing_weight("team-a", -1)

    def test_policy_selection(self):
        scenario = kueuesim.load(QUICKSTART)
        with self.assertRaisesRegex(kueuesim.InputError, 'unknown queueOrdering policy "nope" \\(valid: .*kueue'):
            scenario.set_policy("queueOrdering", "nope")
        scenario.set_policy("queueOrdering", "kueue")
        self.assertEqual(scenario.policies["queueOrdering"], "kueue")


class ShortestFirst:
    """Shortest known duration first, then Kueue's order."""
    calls = 0

    def __init__(self, parameters):
        self.reverse = parameters.get("reverse") == "true"

    def compare(self, a, b):
        ShortestFirst.calls += 1
        da, db = a.duration, b.duration
        if da != db:
            return (-1 if da < db else 1) * (-1 if self.reverse else 1)
        if a.priority != b.priority:
            return -1 if a.priority > b.priority else 1
        return -1 if a.queue_order_timestamp < b.queue_order_timestamp else (
            1 if a.queue_order_timestamp > b.queue_order_timestamp else 0)


class Exploding:
    def __init__(self, parameters):
        pass

    def compare(self, a, b):
        raise ZeroDivisionError("policy bug")


kueuesim.register_queue_ordering("test-shortest-first", ShortestFirst, "shortest duration first")
kueuesim.register_queue_ordering("test-exploding", Exploding)


class PythonPolicyTest(unittest.TestCase):
    def test_python_ordering_changes_the_admission_order(self):
        scenario = kueuesim.from_objects(one_queue_objects())
        kueue = scenario.simulation()
        kueue.run()
        self.assertEqual(reservation_order(kueue), ["blocker", "long", "short", "medium"])

        scenario.set_policy("queueOrdering", "test-shortest-first")
        ShortestFirst.calls = 0
        sjf = scenario.simulation()
        sjf.run()
        self.assertGreater(ShortestFirst.calls, 0)
        self.assertEqual(reservation_order(sjf), ["blocker", "short", "medium", "long"])

        scenario.set_policy("queueOrdering", "test-shortest-first", {"reverse": "true"})
        ljf = scenario.simulation()
        ljf.run()
        self.assertEqual(reservation_order(ljf), ["blocker", "long", "medium", "short"])

    def test_selected_from_scenario_yaml_by_name(self):
        objects = one_queue_objects()
        objects.insert(0, {"apiVersion": "kueuesim.io/v1alpha1", "kind": "Simulation", "metadata": {"name": "s"},
                           "spec": {"policies": {"queueOrdering": {"name": "test-shortest-first"}}}})
        sim = kueuesim.from_objects(objects).simulation()
        sim.run()
        self.assertEqual(reservation_order(sim), ["blocker", "short", "medium", "long"])

    def test_listed_and_not_registered_twice(self):
        self.assertIn({"kind": "queueOrdering", "name": "test-shortest-first",
                       "description": "shortest duration first"}, kueuesim.policies())
        with self.assertRaisesRegex(kueuesim.InputError, "already registered"):
            kueuesim.register_queue_ordering("test-shortest-first", ShortestFirst)

    def test_exception_in_policy_reaches_the_caller(self):
        scenario = kueuesim.from_objects(one_queue_objects())
        scenario.set_policy("queueOrdering", "test-exploding")
        sim = scenario.simulation()
        with self.assertRaisesRegex(ZeroDivisionError, "policy bug"):
            sim.run()
        with self.assertRaisesRegex(kueuesim.Error, "stopped at an exception raised by a Python policy"):
            sim.run()


class ThreadsTest(unittest.TestCase):
    """Simulations run without the GIL: several at once from Python threads
    (concurrent.futures) give the results of running them one by one, with
    and without a Python policy (which takes the GIL back for each call)."""

    def run_all(self, scenarios, threads):
        def one(scenario):
            sim = scenario.simulation()
            sim.run()
            return sim.summary(), [e["workload"] for e in sim.events() if e["type"] == "QuotaReserved"]
        if threads == 1:
            return [one(s) for s in scenarios]
        with concurrent.futures.ThreadPoolExecutor(max_workers=threads) as pool:
            return list(pool.map(one, scenarios))

    def test_concurrent_runs_match_sequential_runs(self):
        scenarios = [kueuesim.load(QUICKSTART) for _ in range(4)]
        ordered = kueuesim.from_objects(one_queue_objects())
        ordered.set_policy("queueOrdering", "test-shortest-first")
        scenarios += [ordered, kueuesim.from_objects(one_queue_objects())]
        sequential = self.run_all(scenarios, 1)
        concurrent_results = self.run_all(scenarios, 4)
        self.assertEqual(concurrent_results, sequential)
        self.assertEqual([w.removeprefix("ns/job-") for w in sequential[4][1]], ["blocker", "short", "medium", "long"])


class ErrorTest(unittest.TestCase):
    def test_bad_input_is_input_error_with_the_library_message(self):
        with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as fh:
            fh.write("apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata:\n  name: default\n---\n")
            fh.write(json.dumps(cluster_queue("a", "12x")) + "\n")
            path = fh.name
        try:
            with self.assertRaises(kueuesim.InputError) as ctx:
                kueuesim.load([path])
            message = str(ctx.exception)
            self.assertIn(path, message)
            self.assertIn('ClusterQueue "a"', message)
            self.assertIn("nominalQuota", message)
            self.assertIsInstance(ctx.exception, ValueError)
            self.assertIsInstance(ctx.exception, kueuesim.Error)
        finally:
            os.unlink(path)

    def test_missing_file(self):
        with self.assertRaisesRegex(kueuesim.InputError, "/nonexistent.yaml"):
            kueuesim.load("/nonexistent.yaml")

    def test_from_objects_rejects_non_dicts(self):
        with self.assertRaisesRegex(kueuesim.InputError, "every object must be a dict"):
            kueuesim.from_objects([FLAVOR, "x"])


if __name__ == "__main__":
    unittest.main()
