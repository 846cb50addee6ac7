"""Tests of the run's tables in Python: Simulation.workloads(), timeseries()
and summary_frames(), as pandas DataFrames and as lists of dicts, against
the CLI's own outputs of the same run.

Run: PYTHONPATH=<build>/python python3 -m unittest discover -s tests/python
"""
import datetime
import json
import os
import subprocess
import sys
import tempfile
import unittest

import kueuesim

SOURCE_DIR = os.environ.get(
    "KUEUESIM_SOURCE_DIR", os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
QUICKSTART = os.path.join(SOURCE_DIR, "scenarios", "quickstart", "gpu-teams.yaml")
START = datetime.datetime(2025, 6, 2, 9, 0, tzinfo=datetime.timezone.utc)  # the quickstart's startTime

try:
    import pandas
except ImportError:  # the rows tests still run
    pandas = None


def finished_run():
    sim = kueuesim.load(QUICKSTART).simulation()
    sim.run()
    return sim


class RowsTest(unittest.TestCase):
    """as_frame=False: lists of dicts, the same with or without pandas."""

    def test_now_is_the_summary_end_time(self):
        sim = finished_run()
        self.assertEqual(sim.now, sim.summary()["endTime"])

    def test_workloads_rows_are_typed(self):
        rows = finished_run().workloads(as_frame=False)
        self.assertEqual(len(rows), 6)
        by_name = {r["workload"]: r for r in rows}
        late = by_name["team-b/job-finetune-1"]
        self.assertEqual(late["status"], "finished")
        self.assertEqual(late["waitSeconds"], 1801.0)
        self.assertEqual(late["arrival"], START + datetime.timedelta(minutes=30))
        self.assertEqual(late["quotaReserved"], START + datetime.timedelta(seconds=1800 + 1801))
        self.assertIsInstance(late["evictions"], int)

    @unittest.skipUnless(os.environ.get("KUEUESIM_CLI"), "KUEUESIM_CLI (the kueuesim binary) is not set")
    def test_rows_match_the_cli_table(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "w.jsonl")
            subprocess.run([os.environ["KUEUESIM_CLI"], "run", QUICKSTART, "--workloads", path],
                           check=True, capture_output=True)
            with open(path) as fh:
                cli = [json.loads(line) for line in fh]
        rows = finished_run().workloads(as_frame=False)
        self.assertEqual([r["workload"] for r in rows], [c["workload"] for c in cli])
        self.assertEqual([r["runTimeSeconds"] for r in rows], [c["runTime"] for c in cli])
        self.assertEqual([r["waitSeconds"] for r in rows], [c["wait"] for c in cli])

    def test_step_to_includes_workloads_in_flight(self):
        sim = kueuesim.load(QUICKSTART).simulation()
        sim.step_to("45m")
        rows = sim.workloads(as_frame=False)
        status = {r["workload"]: r["status"] for r in rows}
        self.assertEqual(len(rows), 6)
        self.assertEqual(sorted(set(status.values())), ["pending", "running"])
        self.assertIsNone(next(r for r in rows if r["status"] == "pending")["quotaReserved"])
        # Asking did not change the run: it ends as a run never asked.
        sim.run()
        self.assertEqual(sim.workloads(as_frame=False), finished_run().workloads(as_frame=False))
        self.assertEqual(sim.timeseries(as_frame=False), finished_run().timeseries(as_frame=False))

    def test_timeseries_rows_have_numbers_and_units(self):
        rows = finished_run().timeseries(as_frame=False)
        gpu = [r for r in rows if r["scope"] == "ClusterQueue" and r["name"] == "team-a"
               and r["metric"] == "usage" and r["resource"] == "nvidia.com/gpu"]
        self.assertEqual(gpu[0]["unit"], "units")
        self.assertEqual(max(r["value"] for r in gpu), 16.0)
        memory = next(r for r in rows if r["metric"] == "quota" and r["resource"] == "memory")
        self.assertEqual((memory["value"], memory["unit"]), (680 * 2**30, "bytes"))
        pending = next(r for r in rows if r["metric"] == "pending")
        self.assertEqual(pending["unit"], "workloads")

    def test_summary_tables(self):
        tables = finished_run().summary_frames(as_frame=False)
        self.assertEqual(sorted(tables), ["clusterQueues", "cohorts", "resources"])
        queues = {q["clusterQueue"]: q for q in tables["clusterQueues"]}
        self.assertEqual(queues["team-b"]["waitP50Seconds"], 1801.0)
        resources = {(r["clusterQueue"], r["resource"]): r for r in tables["resources"]}
        self.assertEqual(resources[("team-a", "cpu")]["nominalQuota"], 96.0)
        self.assertEqual(resources[("team-a", "memory")]["nominalQuota"], 680.0 * 2**30)
        self.assertEqual(resources[("team-a", "nvidia.com/gpu")]["peakUsage"], 16.0)
        cohort = {c["resource"]: c for c in tables["cohorts"]}
        self.assertEqual(cohort["nvidia.com/gpu"]["quota"], 16.0)
        self.assertEqual(cohort["nvidia.com/gpu"]["peakUsage"], 16.0)
        # The cohort's mean usage is its ClusterQueues' together.
        used = sum(r["usedAmountSeconds"] for r in tables["resources"] if r["resource"] == "nvidia.com/gpu")
        end = finished_run().summary()["endTime"]
        self.assertAlmostEqual(cohort["nvidia.com/gpu"]["meanUsage"], used / end, places=6)

    def test_quotas_are_numbers(self):
        scenario = kueuesim.load(QUICKSTART)
        rows = {(q["clusterQueue"], q["resource"]): q for q in scenario.quotas(as_frame=False)}
        self.assertEqual(rows[("team-a", "memory")]["nominalQuota"], 680.0 * 2**30)
        self.assertEqual(rows[("team-a", "memory")]["unit"], "bytes")
        self.assertEqual(rows[("team-a", "cpu")]["nominalQuota"], 96.0)
        self.assertEqual(rows[("team-a", "nvidia.com/gpu")]["borrowingLimit"], 8.0)
        self.assertIsNone(rows[("team-a", "cpu")]["lendingLimit"])
        scenario.set_quota("team-a", "a100", "cpu", nominal="1500m")
        self.assertEqual(next(q for q in scenario.quotas(as_frame=False)
                              if q["clusterQueue"] == "team-a" and q["resource"] == "cpu")["nominalQuota"], 1.5)

    def test_without_start_time_times_are_seconds(self):
        objects = [
            {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "default"}},
            {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "cq"},
             "spec": {"namespaceSelector": {}, "resourceGroups": [{"coveredResources": ["cpu"], "flavors": [
                 {"name": "default", "resources": [{"name": "cpu", "nominalQuota": "1"}]}]}]}},
            {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
             "metadata": {"name": "q", "namespace": "ns"}, "spec": {"clusterQueue": "cq"}},
            {"apiVersion": "batch/v1", "kind": "Job",
             "metadata": {"name": "j", "namespace": "ns", "labels": {"kueue.x-k8s.io/queue-name": "q"},
                          "annotations": {"kueuesim.io/duration": "10m", "kueuesim.io/arrival": "5s"}},
             "spec": {"template": {"spec": {"containers": [
                 {"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}}},
        ]
        sim = kueuesim.from_objects(objects).simulation()
        sim.run()
        row = sim.workloads(as_frame=False)[0]
        self.assertEqual((row["arrival"], row["finished"]), (5.0, 605.0))


@unittest.skipIf(pandas is None, "pandas is not installed")
class FramesTest(unittest.TestCase):
    def test_workloads_frame_has_numeric_and_datetime_columns(self):
        frame = finished_run().workloads()
        self.assertIsInstance(frame, pandas.DataFrame)
        self.assertEqual(len(frame), 6)
        for column in ("waitSeconds", "runTimeSeconds", "evictions", "preemptions"):
            self.assertTrue(pandas.api.types.is_numeric_dtype(frame[column]), column)
        self.assertTrue(pandas.api.types.is_datetime64_any_dtype(frame["arrival"]))
        self.assertEqual(frame["waitSeconds"].max(), 1801.0)
        self.assertEqual(frame.loc[frame["waitSeconds"].idxmax(), "quotaReserved"],
                         pandas.Timestamp(START) + pandas.Timedelta(seconds=1800 + 1801))

    def test_frames_hold_the_rows(self):
        sim = finished_run()
        self.assertEqual(sim.workloads().to_dict("records")[0]["workload"],
                         sim.workloads(as_frame=False)[0]["workload"])
        series = sim.timeseries()
        self.assertTrue(pandas.api.types.is_float_dtype(series["value"]))
        self.assertEqual(len(series), len(sim.timeseries(as_frame=False)))
        tables = sim.summary_frames()
        self.assertTrue(pandas.api.types.is_float_dtype(tables["resources"]["nominalQuota"]))
        self.assertEqual(tables["clusterQueues"].set_index("clusterQueue").loc["team-b", "waitMaxSeconds"], 1801.0)

    def test_a_queue_that_admitted_nothing_has_no_wait(self):
        scenario = kueuesim.load(QUICKSTART)
        sim = scenario.simulation()
        sim.run(until=600)
        queues = sim.summary_frames()["clusterQueues"].set_index("clusterQueue")
        self.assertEqual(queues.loc["team-b", "waitCount"], 0)
        self.assertTrue(pandas.isna(queues.loc["team-b", "waitP50Seconds"]))


class WithoutPandasTest(unittest.TestCase):
    """The module without pandas (import blocked in a child interpreter)."""

    def test_rows_without_pandas_and_a_clear_error_when_asked_for_a_frame(self):
        script = (
            "import sys\n"
            "sys.modules['pandas'] = None\n"
            "import kueuesim\n"
            f"sim = kueuesim.load({QUICKSTART!r}).simulation()\n"
            "sim.run()\n"
            "rows = sim.workloads()\n"
            "assert isinstance(rows, list) and len(rows) == 6, rows\n"
            "assert isinstance(sim.summary_frames()['resources'], list)\n"
            "try:\n"
            "    sim.timeseries(as_frame=True)\n"
            "except ImportError as e:\n"
            "    print('ImportError:', e)\n")
        result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=os.environ)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("ImportError: Simulation.timeseries(as_frame=True) needs pandas", result.stdout)


if __name__ == "__main__":
    unittest.main()
