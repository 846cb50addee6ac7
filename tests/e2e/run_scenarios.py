#!/usr/bin/env python3
"""End-to-end check of every scenario under scenarios/: runs the kueuesim CLI
on it and compares the summary (JSON) and the event log with the checked
files next to it:

  scenarios/<group>/<name>.yaml                 the scenario
  scenarios/<group>/<name>.expected.json        its summary (kueuesim run --summary)
  scenarios/<group>/<name>.expected.jsonl       its event log (optional; a <name>.no-event-log
                                                file keeps --update from writing one)
  scenarios/<group>/<name>.args                 extra CLI arguments (optional, one line;
                                                .yaml files in it are relative to the scenario)

A scenario file that starts with '# kueuesim: part of <file>' is an input of
another scenario and is not run on its own. Run with --update to rewrite the
expected files after a deliberate change (then review the diff).

Every run has --check-invariants (docs/invariants.md): a violation of Kueue's
invariants fails the scenario; --no-check-invariants leaves it out.

Usage: run_scenarios.py --sim PATH --root DIR [--update] [-k SUBSTRING] [--no-check-invariants]
                        [--sanitized]
"""
import argparse
import difflib
import os
import shlex
import subprocess
import sys
import tempfile


def scenarios(root):
    for dirpath, _, files in sorted(os.walk(root)):
        for f in sorted(files):
            if not f.endswith(".yaml"):
                continue
            path = os.path.join(dirpath, f)
            with open(path) as fh:
                head = fh.readline()
            if head.startswith("# kueuesim: part of"):
                continue
            yield path


def run(sim, path, tmp, root, check_invariants=True):
    # Run from the directory above the root with paths relative to it, so that
    # the file names in messages ("scenarios/docs/x.yaml:12: ...") do not
    # depend on where the checkout or the build is.
    cwd = os.path.dirname(os.path.abspath(root))
    base = path[: -len(".yaml")]
    args = []
    if os.path.exists(base + ".args"):
        with open(base + ".args") as fh:
            args = shlex.split(fh.read())
    summary = os.path.join(tmp, "summary.json")
    events = os.path.join(tmp, "events.jsonl")
    # Other scenario files named in .args are relative to the scenario.
    files = [path] + [os.path.join(os.path.dirname(path), a) for a in args if a.endswith(".yaml")]
    flags = [a for a in args if not a.endswith(".yaml")]
    files = [os.path.relpath(os.path.abspath(f), cwd) for f in files]
    cmd = [os.path.abspath(sim), "run"] + files + flags + ["--summary", summary, "--events", events, "--quiet"]
    if check_invariants:
        cmd.append("--check-invariants")
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600, cwd=cwd)
    if p.returncode != 0:
        return None, None, f"exit {p.returncode}: {p.stderr.strip()}"
    with open(summary) as fh:
        s = fh.read()
    with open(events) as fh:
        e = fh.read()
    return s, e, None


def compare(label, got, path, update):
    if update:
        with open(path, "w") as fh:
            fh.write(got)
        return []
    if not os.path.exists(path):
        return [f"{label}: no checked file {os.path.relpath(path)} (run with --update, then review it)"]
    with open(path) as fh:
        want = fh.read()
    if got == want:
        return []
    diff = difflib.unified_diff(want.splitlines(), got.splitlines(), "expected", "got", lineterm="", n=2)
    lines = list(diff)
    return [f"{label} differs from {os.path.relpath(path)}:"] + lines[:60]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sim", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--update", action="store_true")
    ap.add_argument("-k", default="")
    ap.add_argument("--no-check-invariants", dest="check_invariants", action="store_false")
    ap.add_argument("--sanitized", action="store_true",
                    help="a sanitizer build (tens of times slower): one run per scenario; the second run "
                         "(byte-identical output) is the optimized build's check")
    args = ap.parse_args()
    failures = 0
    count = 0
    for path in scenarios(args.root):
        if args.k not in path:
            continue
        count += 1
        base = path[: -len(".yaml")]
        with tempfile.TemporaryDirectory() as tmp:
            summary, events, err = run(args.sim, path, tmp, args.root, args.check_invariants)
            # A second run must give byte-identical output.
            if args.sanitized:
                summary2, events2 = summary, events
            else:
                summary2, events2, _ = run(args.sim, path, tmp, args.root, args.check_invariants)
        errors = []
        if err:
            errors.append(err)
        else:
            if (summary, events) != (summary2, events2):
                errors.append("two runs of the same scenario gave different output")
            errors += compare("summary", summary, base + ".expected.json", args.update)
            if os.path.exists(base + ".expected.jsonl") or (args.update and not os.path.exists(base + ".no-event-log")):
                errors += compare("events", events, base + ".expected.jsonl", args.update)
        rel = os.path.relpath(path, args.root)
        if errors:
            failures += 1
            print(f"FAIL {rel}")
            for e in errors:
                print("    " + e)
        else:
            print(f"ok   {rel}")
    print(f"{count - failures} passed, {failures} failed")
    return 1 if failures or count == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
