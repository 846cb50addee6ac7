"""The Philly fan-out study of docs/multikueue.md
(scenarios/multikueue/philly_fanout.py): its Python dispatcher decides as
documented, and the three runs give the checked figures
(philly-fanout.figures.json, the doc's table; tests/e2e/sweep_test.py checks
the same figures for the CLI's runs of the two Kueue dispatchers)."""
import importlib.util
import json
import os
import types
import unittest

SOURCE_DIR = os.environ.get("KUEUESIM_SOURCE_DIR",
                            os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
STUDY = os.path.join(SOURCE_DIR, "scenarios", "multikueue", "philly_fanout.py")

spec = importlib.util.spec_from_file_location("philly_fanout", STUDY)
study = importlib.util.module_from_spec(spec)
spec.loader.exec_module(study)
FIGURES = os.path.join(os.path.dirname(STUDY), "philly-fanout.figures.json")


def cluster(name, free, connected=True, has_queue=True):
    return types.SimpleNamespace(name=name, connected=connected, has_queue=has_queue,
                                 free={"nvidia.com/gpu": free}, pending=0)


def request(clusters, gpus, now=100.0, nominated=(), last_nomination=None):
    return types.SimpleNamespace(workload="philly/j", priority=0, requests={"nvidia.com/gpu": gpus}, now=now,
                                 reserved_at=now, last_nomination=last_nomination, clusters=clusters,
                                 nominated=list(nominated))


class MostFreeThenAllTest(unittest.TestCase):
    def setUp(self):
        self.policy = study.MostFreeThenAll({})

    def test_one_copy_on_the_worker_with_most_room_where_the_job_fits(self):
        clusters = [cluster("w1", 4), cluster("w2", 30), cluster("w3", 30), cluster("w4", 100, connected=False)]
        # w2 and w3 tie: the config's order; the disconnected w4 is skipped.
        self.assertEqual(self.policy.nominate(request(clusters, 8)), {"nominated": [1], "recheck_at": 160.0})

    def test_every_usable_worker_when_the_job_fits_nowhere(self):
        clusters = [cluster("w1", 4), cluster("w2", 6), cluster("w3", 64, has_queue=False)]
        self.assertEqual(self.policy.nominate(request(clusters, 8)), [0, 1])

    def test_keeps_the_copy_then_widens_after_a_minute(self):
        clusters = [cluster("w1", 0), cluster("w2", 30), cluster("w3", 30)]
        kept = self.policy.nominate(request(clusters, 8, now=130.0, nominated=[1], last_nomination=100.0))
        self.assertEqual(kept, {"nominated": [1], "recheck_at": 160.0})
        self.assertEqual(self.policy.nominate(request(clusters, 8, now=160.0, nominated=[1], last_nomination=100.0)),
                         [0, 1, 2])
        # Once every worker has a copy, nothing more to do.
        self.assertEqual(self.policy.nominate(request(clusters, 8, now=400.0, nominated=[0, 1, 2],
                                                      last_nomination=160.0)), [0, 1, 2])
        self.assertEqual(study.MostFreeThenAll({"widenAfter": "10"}).nominate(
            request(clusters, 8, now=110.0, nominated=[1], last_nomination=100.0)), [0, 1, 2])


class PhillyFanoutStudyTest(unittest.TestCase):
    def test_the_three_runs_give_the_checked_figures(self):
        with open(FIGURES) as fh:
            checked = json.load(fh)
        self.assertEqual(sorted(checked), sorted(name for name, _, _ in study.RUNS))
        got = {}
        for name, variant, dispatcher in study.RUNS:
            with self.subTest(run=name):
                got[name] = study.figures(study.run(variant, dispatcher))
                self.assertEqual(got[name], checked[name])
        f = got["most-free-then-all (Python)"]
        # One copy per job, never a duplicate reservation: some worker always
        # had room for the job when it was dispatched; and no wait beyond the
        # dispatch latency.
        self.assertEqual((f["copies"], f["reservations"], f["losingReservations"]), (11386, 11386, 0))
        self.assertEqual(f["waitMaxSeconds"], 1.0)
        # The jobs spread over the whole fleet; AllAtOnce's ties leave
        # worker-03 to worker-05 idle.
        self.assertTrue(all(won > 0 for won in f["wonByWorker"].values()))
        self.assertEqual(got["AllAtOnce"]["wonByWorker"]["worker-03"], 0)


if __name__ == "__main__":
    unittest.main()
