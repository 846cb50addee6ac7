#!/usr/bin/env python3
"""The CLI's outputs and command-line errors, end to end.

Setup: scenarios/docs/fair-sharing.yaml, whose ClusterQueue z admits nothing.
Invariants:
- "-" is stdout for every output option (--events, --summary, --timeseries,
  --workloads, compare --json, report -o, sweep-merge -o): nothing is written
  to a file named "-", and the text summary then goes to stderr; two outputs
  on stdout at once are a command-line error (exit 2).
- A queue without waits has "no data": null in the summary JSON and in
  compare --json, "-" in the text summary and the compare table.
- An unknown command and an empty input each get a clear error (exit 2 and 1)
  naming what was wrong; `--help` of every command shows an example.

Usage: cli_output_test.py --sim PATH --root SCENARIOS_DIR
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

FAILURES = []


def check(condition, message):
    if not condition:
        FAILURES.append(message)
        print("FAIL: " + message, file=sys.stderr)


def run(sim, args, cwd):
    return subprocess.run([sim] + args, cwd=cwd, capture_output=True, text=True, timeout=120)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sim", required=True)
    parser.add_argument("--root", required=True)
    args = parser.parse_args()
    sim = os.path.abspath(args.sim)
    scenario = os.path.abspath(os.path.join(args.root, "docs", "fair-sharing.yaml"))

    with tempfile.TemporaryDirectory() as tmp:
        # --summary -: the JSON on stdout, the text summary on stderr.
        r = run(sim, ["run", scenario, "--summary", "-"], tmp)
        check(r.returncode == 0, f"run --summary -: exit {r.returncode}: {r.stderr}")
        check(not os.path.exists(os.path.join(tmp, "-")), "run --summary - wrote a file named -")
        summary = json.loads(r.stdout)
        queues = {q["name"]: q for q in summary["clusters"][0]["clusterQueues"]}
        check(queues["z"]["admitted"] == 0, "queue z of fair-sharing.yaml admits nothing (the test's premise)")
        check(queues["z"]["waitSeconds"] == {"count": 0, "p50": None, "p90": None, "p99": None, "max": None,
                                             "mean": None},
              f"queue z waits are not null: {queues['z']['waitSeconds']}")
        check(queues["x"]["waitSeconds"]["p50"] == 0.0, "queue x waits 0 s at the median (a number, not null)")
        check("Simulated" in r.stderr and "Simulated" not in r.stdout, "the text summary is not on stderr")
        z_line = [line for line in r.stderr.splitlines() if line.split()[:1] == ["z"]]
        check(len(z_line) >= 1 and z_line[0].split()[-4:] == ["-", "-", "-", "-"],
              f"the text summary does not show - for queue z's waits: {z_line}")

        # The file and stdout forms of each output agree.
        for option, name in (("--workloads", "w.jsonl"), ("--timeseries", "t.jsonl"), ("--events", "e.jsonl")):
            to_file = run(sim, ["run", scenario, option, name, "--quiet"], tmp)
            to_stdout = run(sim, ["run", scenario, option, "-", "--quiet"], tmp)
            check(to_file.returncode == 0 and to_stdout.returncode == 0, f"run {option}: exit codes "
                  f"{to_file.returncode}, {to_stdout.returncode}: {to_stdout.stderr}")
            with open(os.path.join(tmp, name)) as f:
                written = f.read()
            check(written != "" and to_stdout.stdout == written, f"run {option} -: stdout differs from the file")
            check(not os.path.exists(os.path.join(tmp, "-")), f"run {option} - wrote a file named -")

        r = run(sim, ["run", scenario, "--summary", "-", "--workloads", "-"], tmp)
        check(r.returncode == 2 and "only one of" in r.stderr, f"two outputs on stdout: exit {r.returncode}: {r.stderr}")

        # compare: no data is "-" in the table and null in --json, which "-" puts on stdout.
        r = run(sim, ["compare", scenario, scenario, "--json", "-"], tmp)
        check(r.returncode == 0, f"compare --json -: exit {r.returncode}: {r.stderr}")
        check(not os.path.exists(os.path.join(tmp, "-")), "compare --json - wrote a file named -")
        figures = {f["figure"]: f for f in json.loads(r.stdout)["figures"]}
        check(figures["cq z wait p50"]["values"] == [None, None], f"compare: {figures['cq z wait p50']}")
        check(figures["cq x wait p50"]["values"] == [0.0, 0.0], f"compare: {figures['cq x wait p50']}")
        table = [line.split() for line in r.stderr.splitlines() if line.startswith("cq z wait p90")]
        check(table == [["cq", "z", "wait", "p90", "-", "-"]], f"compare table: {table}")

        # report -o - and sweep-merge -o -: stdout.
        run(sim, ["run", scenario, "--out", "runs/base", "--quiet"], tmp)
        r = run(sim, ["report", "runs/base", "-o", "-"], tmp)
        check(r.returncode == 0 and r.stdout.lstrip().lower().startswith("<!doctype html"),
              f"report -o -: exit {r.returncode}: {r.stderr} {r.stdout[:80]!r}")
        check(not os.path.exists(os.path.join(tmp, "-")), "report -o - wrote a file named -")

        # Unknown commands and empty inputs.
        r = run(sim, ["frobnicate", scenario], tmp)
        check(r.returncode == 2 and 'unknown command "frobnicate"' in r.stderr and "run" in r.stderr,
              f"unknown command: exit {r.returncode}: {r.stderr}")
        r = run(sim, [], tmp)
        check(r.returncode == 2 and "a command is required" in r.stderr, f"no command: exit {r.returncode}: {r.stderr}")
        empty = os.path.join(tmp, "empty.yaml")
        with open(empty, "w") as f:
            f.write("# nothing here\n---\n")
        for command in (["run", empty], ["validate", empty], ["explain", empty, "--workload", "a/b"],
                        ["compare", empty, scenario]):
            r = run(sim, command, tmp)
            check(r.returncode == 1 and "empty.yaml: no objects" in r.stderr,
                  f"{command[0]} of an empty file: exit {r.returncode}: {r.stderr}")

        # --help of every command shows an example.
        for command in ("run", "validate", "policies", "report", "compare", "sweep", "sweep-merge", "explain"):
            r = run(sim, [command, "--help"], tmp)
            check(r.returncode == 0 and "Example" in r.stdout and f"kueuesim {command}" in r.stdout,
                  f"{command} --help shows no example: {r.stdout[-300:]}")

    if FAILURES:
        print(f"{len(FAILURES)} failure(s)", file=sys.stderr)
        return 1
    print("cli output: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
