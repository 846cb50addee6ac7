#!/usr/bin/env python3
"""Guards kueuesim's speed in CI by instruction count, which, unlike wall
time, is deterministic on a noisy shared machine.

Runs `kueuesim run SCENARIO --quiet` under valgrind (callgrind), reads the
total instructions executed (Ir) and compares them with the committed
baseline (bench/instruction_baseline.json). A count more than `tolerance`
(10 %) above the baseline fails; a count more than `tolerance` below it
passes with a note to lower the baseline. An accepted change of cost updates
the baseline deliberately, in the same commit:

    tests/perf/instruction_gate.py --sim build/test/cli/kueuesim --update

The baseline records the build type it was measured with; counts from
another build type are not comparable and fail with an explanation.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_BASELINE = os.path.join(ROOT, "bench", "instruction_baseline.json")


def measure(sim, scenario):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out,
               sim, "run", scenario, "--quiet"]
        run = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit("instruction gate: the run failed (exit %d):\n%s" % (run.returncode, run.stderr[-2000:]))
        with open(out) as f:
            for line in f:
                m = re.match(r"(?:summary|totals):\s+(\d+)", line)
                if m:
                    return int(m.group(1))
    sys.exit("instruction gate: no instruction total in callgrind's output")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sim", required=True, help="the kueuesim binary")
    parser.add_argument("--build-type", required=True, help="CMAKE_BUILD_TYPE of the binary")
    parser.add_argument("--baseline", default=DEFAULT_BASELINE)
    parser.add_argument("--update", action="store_true", help="write the measured count as the new baseline")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("instruction gate: valgrind is not installed (./dev.sh deps installs it)")
    with open(args.baseline) as f:
        baseline = json.load(f)
    scenario = os.path.join(ROOT, baseline["scenario"])
    measured = measure(args.sim, scenario)
    if args.update:
        baseline["instructions"] = measured
        baseline["buildType"] = args.build_type
        with open(args.baseline, "w") as f:
            json.dump(baseline, f, indent=2)
            f.write("\n")
        print("baseline updated: %d instructions (%s)" % (measured, args.build_type))
        return 0
    if baseline["buildType"] != args.build_type:
        sys.exit("instruction gate: the baseline was measured on a %s build, this is %s; counts are not comparable"
                 % (baseline["buildType"], args.build_type))
    expected = baseline["instructions"]
    tolerance = baseline.get("tolerance", 0.10)
    change = (measured - expected) / expected
    print("%s: %d instructions, baseline %d (%+.1f %%, tolerance %.0f %%)"
          % (baseline["scenario"], measured, expected, 100 * change, 100 * tolerance))
    if change > tolerance:
        print("FAIL: more than %.0f %% above the baseline. If the extra cost is accepted, update the baseline in "
              "the same commit: tests/perf/instruction_gate.py --sim %s --build-type %s --update"
              % (100 * tolerance, args.sim, args.build_type))
        return 1
    if change < -tolerance:
        print("note: more than %.0f %% below the baseline; lower it with --update" % (100 * tolerance))
    return 0


if __name__ == "__main__":
    sys.exit(main())
