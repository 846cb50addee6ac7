#!/usr/bin/env python3
"""Guards kueuesim's speed in CI by instruction count, which, unlike wall
time, is deterministic on a noisy shared machine.

Each guard of the committed baseline (bench/instruction_baseline.json) runs
one whole `kueuesim` process under valgrind (callgrind), reads the total
instructions executed (Ir) and compares them with the guard's baseline:

  admission     `run` on Kueue's baseline performance configuration (the
                admission loop);
  manifests     `validate` on a cluster export of 3,000 Workloads written as
                `kubectl get workloads -A -o yaml` prints them
                (bench/make_workload_manifests.py): reading, decoding and
                building the runtime records;
  trace-replay  `run` on the Philly trace through the `philly` importer, its
                first 30 days (bench/philly_compare.py's scenario): the
                trace reader and the replay.

The last two read ../shared/traces; where it is missing they are reported
as skipped (CI has it). A count more than `tolerance` (10 %) above its
baseline fails; more than `tolerance` below passes with a note to lower the
baseline. An accepted change of cost updates the baseline deliberately, in
the same commit:

    tests/perf/instruction_gate.py --sim build/test/cli/kueuesim --build-type RelWithDebInfo --update

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
DEFAULT_TRACES = os.path.join(os.path.dirname(ROOT), "shared", "traces")


def measure(sim, args, workdir):
    out = os.path.join(workdir, "callgrind.out")
    cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out, sim] + args
    run = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit("instruction gate: %s failed (exit %d):\n%s" % (" ".join(args), run.returncode, run.stderr[-2000:]))
    with open(out) as f:
        for line in f:
            m = re.match(r"(?:summary|totals):\s+(\d+)", line)
            if m:
                return int(m.group(1))
    sys.exit("instruction gate: no instruction total in callgrind's output")


def prepare(guard, traces, workdir):
    """The guard's command arguments, with its inputs written into workdir;
    None when the inputs it needs are not on this machine."""
    substitutions = {"workdir": workdir}
    if "export" in guard:
        if not os.path.exists(os.path.join(traces, "philly", "philly.csv")):
            return None
        subprocess.run([sys.executable, os.path.join(ROOT, "bench", "make_workload_manifests.py"),
                        "--traces", traces, "--out-dir", workdir,
                        "--limit", str(guard["export"]["workloads"])], check=True, capture_output=True)
    if guard.get("philly"):
        philly_csv = os.path.join(traces, "philly", "philly.csv")
        if not os.path.exists(philly_csv):
            return None
        sys.path.insert(0, os.path.join(ROOT, "bench"))
        import philly_compare  # noqa: E402 (bench/, only when needed)
        substitutions["philly"] = philly_compare.write_scenario(
            workdir, os.path.abspath(philly_csv), os.path.abspath(os.path.join(traces, "philly", "philly_vc.csv")))
    return [arg.format(**substitutions) for arg in guard["args"]]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sim", required=True, help="the kueuesim binary")
    parser.add_argument("--build-type", required=True, help="CMAKE_BUILD_TYPE of the binary")
    parser.add_argument("--baseline", default=DEFAULT_BASELINE)
    parser.add_argument("--traces", default=DEFAULT_TRACES, help="the shared traces (default: ../shared/traces)")
    parser.add_argument("--only", help="run only the guard of this name")
    parser.add_argument("--update", action="store_true", help="write the measured counts as the new baselines")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("instruction gate: valgrind is not installed (./dev.sh deps installs it)")
    with open(args.baseline) as f:
        baseline = json.load(f)
    if not args.update and baseline["buildType"] != args.build_type:
        sys.exit("instruction gate: the baseline was measured on a %s build, this is %s; counts are not comparable"
                 % (baseline["buildType"], args.build_type))
    tolerance = baseline.get("tolerance", 0.10)
    failed = False
    for guard in baseline["guards"]:
        if args.only and guard["name"] != args.only:
            continue
        with tempfile.TemporaryDirectory() as workdir:
            command = prepare(guard, args.traces, workdir)
            if command is None:
                print("%s: skipped (%s not found)" % (guard["name"], args.traces))
                continue
            measured = measure(args.sim, command, workdir)
        if args.update:
            guard["instructions"] = measured
            print("%s: baseline set to %d instructions" % (guard["name"], measured))
            continue
        expected = guard["instructions"]
        change = (measured - expected) / expected
        print("%s (%s): %d instructions, baseline %d (%+.1f %%, tolerance %.0f %%)"
              % (guard["name"], guard["what"], measured, expected, 100 * change, 100 * tolerance))
        if change > tolerance:
            failed = True
            print("FAIL: %s is more than %.0f %% above its baseline. If the extra cost is accepted, update the "
                  "baseline in the same commit: tests/perf/instruction_gate.py --sim %s --build-type %s --update"
                  % (guard["name"], 100 * tolerance, args.sim, args.build_type))
        elif change < -tolerance:
            print("note: %s is more than %.0f %% below its baseline; lower it with --update"
                  % (guard["name"], 100 * tolerance))
    if args.update:
        baseline["buildType"] = args.build_type
        with open(args.baseline, "w") as f:
            json.dump(baseline, f, indent=2)
            f.write("\n")
        print("baselines updated (%s)" % args.build_type)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
