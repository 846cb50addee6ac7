"""Runs the notebook-style example examples/python/borrowing_limit_sweep.py
(a borrowing-limit sweep on a slice of the Philly trace) and checks its table."""
import os
import subprocess
import sys
import unittest

ROOT = os.environ.get("KUEUESIM_SOURCE_DIR",
                      os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


class BorrowingLimitSweepExample(unittest.TestCase):
    def test_prints_one_row_per_limit(self):
        script = os.path.join(ROOT, "examples", "python", "borrowing_limit_sweep.py")
        run = subprocess.run([sys.executable, script], capture_output=True, text=True, env=dict(os.environ))
        self.assertEqual(run.returncode, 0, run.stderr)
        lines = run.stdout.strip().splitlines()
        self.assertTrue(lines[0].startswith("borrowing limit of vc-6c71a0 | "))
        rows = [line.split(" | ") for line in lines[2:]]
        self.assertEqual([row[0] for row in rows], ["0", "8", "16", "32", "none"])
        # Letting the busy team borrow shortens its p90 wait (column 4:
        # vc-6c71a0, "p50 / p90").
        p90 = [float(row[3].split(" / ")[1].rstrip("m")) for row in rows]
        self.assertGreater(p90[0], p90[-1])
        # The same run twice gives the same table (determinism).
        again = subprocess.run([sys.executable, script], capture_output=True, text=True, env=dict(os.environ))
        self.assertEqual(run.stdout, again.stdout)


if __name__ == "__main__":
    unittest.main()
