#!/usr/bin/env python3
"""The doc check on pages made for the test: it passes a page whose examples
print what the page shows, and fails (naming the page and line) on a changed
figure, an unmarked block that runs kueuesim, a marker without a reason, a
wrong exit code and a path of one machine; "..." elides lines.

Usage: doc_check_test.py --sim PATH --source REPO_ROOT
"""
import argparse
import os
import subprocess
import sys
import tempfile

FENCE = "```"

GOOD = f"""# A page

<!-- check -->
{FENCE}console
$ kueuesim validate scenarios/docs/cli-preemption.yaml
valid: 6 objects in 6 documents, 1 cluster(s), 2 workload(s)
$ kueuesim run scenarios/docs/cli-preemption.yaml
Simulated 3h32m1s (19 events)
...
  Preemptions and evictions
...
{FENCE}

<!-- check exit=1 -->
{FENCE}console
$ kueuesim run no-such-file.yaml
...
{FENCE}

<!-- nocheck: a synopsis -->
{FENCE}
kueuesim run FILES...
{FENCE}

{FENCE}yaml
# kueuesim run in a YAML comment is not a command
{FENCE}
"""

BAD = {
    "changed figure": (GOOD.replace("6 objects", "7 objects"), "the output differs"),
    "unmarked": (GOOD + f"\n{FENCE}sh\nkueuesim run x.yaml\n{FENCE}\n", "has no marker"),
    "no reason": (GOOD + f"\n<!-- nocheck: -->\n{FENCE}sh\nkueuesim run x.yaml\n{FENCE}\n", "malformed marker"),
    "exit code": (GOOD.replace("<!-- check exit=1 -->", "<!-- check -->"), "exited 1, not 0"),
    "machine path": (GOOD + "\nThe data is in /home/someone/traces.\n", "a path of one machine"),
    "elision too short": (GOOD.replace("...\n  Preemptions and evictions\n...\n", "  Preemptions and evictions\n"),
                          "the output differs"),
}


def check(sim, source, text, tmp, name, extra=()):
    page = os.path.join(tmp, name + ".md")
    with open(page, "w") as f:
        f.write(text)
    r = subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "doc_check.py"), "--sim", sim,
                        "--source", source, *extra, page], capture_output=True, text=True, timeout=120)
    return r.returncode, r.stdout + r.stderr


# A command that outlives --command-timeout fails, naming the command and the limit.
SLOW = f"""<!-- check -->
{FENCE}console
$ sleep 5; kueuesim --version
kueuesim ...
{FENCE}
"""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sim", required=True)
    parser.add_argument("--source", required=True)
    args = parser.parse_args()
    sim, source = os.path.abspath(args.sim), os.path.abspath(args.source)
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        code, out = check(sim, source, GOOD, tmp, "good")
        if code != 0 or "2 checked block(s), 1 not checked" not in out:
            print(f"FAIL: the good page does not pass:\n{out}")
            failures += 1
        for name, (text, needle) in BAD.items():
            code, out = check(sim, source, text, tmp, name.replace(" ", "-"))
            if code == 0 or needle not in out or name.replace(" ", "-") + ".md:" not in out:
                print(f"FAIL: {name}: want a failure with {needle!r} naming the page:\n{out}")
                failures += 1
        code, out = check(sim, source, SLOW, tmp, "slow", ["--command-timeout", "0.5"])
        if code == 0 or "ran longer than 0.5s" not in out or "sleep 5" not in out:
            print(f"FAIL: a command over --command-timeout does not fail as it should:\n{out}")
            failures += 1
    if failures:
        return 1
    print(f"doc check test: the good page passes, {len(BAD)} bad pages fail, a command over its time fails")
    return 0


if __name__ == "__main__":
    sys.exit(main())
