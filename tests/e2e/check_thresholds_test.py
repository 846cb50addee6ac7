#!/usr/bin/env python3
"""`kueuesim run --check`: the quick-start scenario against its checked
thresholds file passes (exit 0); tighter thresholds fail (exit 4) with one
line per failed check; an unknown metric or ClusterQueue is invalid input
(exit 1) naming the file and the entry.

Usage: check_thresholds_test.py --sim PATH --root SCENARIOS_DIR
"""
import argparse
import os
import subprocess
import sys
import tempfile


def run(sim, scenario, thresholds):
    p = subprocess.run([sim, "run", scenario, "--quiet", "--check", thresholds],
                       capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sim", required=True)
    ap.add_argument("--root", required=True)
    args = ap.parse_args()
    scenario = os.path.join(args.root, "quickstart", "gpu-teams.yaml")
    passing = os.path.join(args.root, "quickstart", "gpu-teams.thresholds.yaml")
    results = []

    def expect(name, ok, detail):
        results.append(ok)
        print(("ok   " if ok else "FAIL ") + name + ("" if ok else ": " + detail))

    code, out, err = run(args.sim, scenario, passing)
    expect("checked thresholds pass", code == 0 and "thresholds: 0 of 7 checks failed" in out,
           f"exit {code}\n{out}{err}")

    with tempfile.TemporaryDirectory() as tmp:
        failing = os.path.join(tmp, "tight.yaml")
        with open(failing, "w") as fh:
            fh.write("- {clusterQueue: team-b, metric: waitP90, max: 10m}\n"
                     "- {metric: preemptedShare, max: 0.05}\n"
                     "- {clusterQueue: team-b, flavor: a100, resource: nvidia.com/gpu, metric: utilization, min: 0.7}\n")
        code, out, err = run(args.sim, scenario, failing)
        expect("tight thresholds fail with exit 4",
               code == 4
               and f'{failing}:1: threshold entry 1: ClusterQueue "team-b" waitP90 = 30m1s, above max 10m' in out
               and 'utilization = 0.6666, below min 0.7' in out
               and "thresholds: 2 of 3 checks failed" in out
               and "entry 2" not in out,
               f"exit {code}\n{out}{err}")

        for label, entry, want in [
            ("unknown ClusterQueue", "- {metric: admitted, min: 1}\n- {clusterQueue: team-x, metric: waitP90, max: 10m}\n",
             ':2: threshold entry 2: clusterQueue: no ClusterQueue "team-x" in the run'),
            ("unknown metric", "- {clusterQueue: team-a, metric: waitP95, max: 10m}\n",
             ':1: threshold entry 1: metric: unknown metric "waitP95"'),
        ]:
            bad = os.path.join(tmp, "bad.yaml")
            with open(bad, "w") as fh:
                fh.write(entry)
            code, out, err = run(args.sim, scenario, bad)
            expect(label + " is invalid input (exit 1)", code == 1 and (bad + want) in err, f"exit {code}\n{out}{err}")

        code, out, err = run(args.sim, scenario, os.path.join(tmp, "missing.yaml"))
        expect("missing thresholds file is invalid input (exit 1)", code == 1 and "missing.yaml" in err,
               f"exit {code}\n{err}")

    failed = results.count(False)
    print(f"{len(results) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
