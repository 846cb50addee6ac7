#!/usr/bin/env python3
"""Whole-process speed-up of `kueuesim sweep --jobs N` over `--jobs 1`.

Runs the 16-point capacity-planning grid (examples/sweeps/
capacity-planning-sweep.yaml) with one thread and with N (default: every
core), ROUNDS times each, alternating, prints the median wall times and
their ratio, and checks that both runs wrote byte-identical point files.

Usage: sweep_speedup.py --sim build/release/cli/kueuesim [--jobs N] [--rounds 3]
"""
import argparse
import filecmp
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FILES = [os.path.join(ROOT, "scenarios", "capacity-planning", "base.yaml"),
         os.path.join(ROOT, "scenarios", "capacity-planning", "common.yaml"),
         os.path.join(ROOT, "examples", "sweeps", "capacity-planning-sweep.yaml")]


def timed_sweep(sim, jobs, out):
    start = time.monotonic()
    subprocess.run([sim, "sweep", *FILES, "--out", out, "--jobs", str(jobs)], check=True,
                   stdout=subprocess.DEVNULL)
    return time.monotonic() - start


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sim", required=True)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    serial, parallel = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            serial.append(timed_sweep(args.sim, 1, os.path.join(tmp, f"serial{r}")))
            parallel.append(timed_sweep(args.sim, args.jobs, os.path.join(tmp, f"parallel{r}")))
        names = sorted(os.listdir(os.path.join(tmp, "serial0")))
        match, mismatch, errors = filecmp.cmpfiles(os.path.join(tmp, "serial0"), os.path.join(tmp, "parallel0"),
                                                   names, shallow=False)
        if mismatch or errors or len(names) != 16:
            sys.exit(f"FAIL: point files differ between --jobs 1 and --jobs {args.jobs}: {mismatch + errors}")
    s, p = statistics.median(serial), statistics.median(parallel)
    print(f"sweep of 16 points: --jobs 1 {s * 1000:.0f} ms, --jobs {args.jobs} {p * 1000:.0f} ms (median of {args.rounds}); "
          f"speed-up {s / p:.2f}x; point files identical")


if __name__ == "__main__":
    main()
