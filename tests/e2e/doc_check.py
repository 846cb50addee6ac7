#!/usr/bin/env python3
"""Docs that cannot drift: runs the shell examples of README.md and docs/*.md
and compares their output with what the page prints.

Markers (an HTML comment on the line just before the opening fence):

  <!-- check -->
  ```console
  $ kueuesim validate scenarios/docs/cli-preemption.yaml
  valid: 7 objects in 7 documents, 1 cluster(s), 4 workload(s)
  ```

  A checked block: each line starting with "$ " is a command (a line ending
  in "\\" continues on the next one; lines starting with "> ", the shell's
  second prompt, continue it too), the lines after it up to the next
  command are its expected output (stdout and stderr, in the order a
  terminal shows them). A line "..." stands for any number of lines.
  Trailing spaces are ignored. Every command must exit 0, but the last of
  a block marked <!-- check exit=N --> must exit N.

  <!-- nocheck: REASON -->

  A block that is not run, with the reason (a trace not in the repository,
  a long run, machine-specific figures, a synopsis).

No page may name a path of one machine (/work/..., /home/..., /root/...).

Every fenced block that runs kueuesim (a shell line calling `kueuesim`, a
path ending in /kueuesim, or ./dev.sh) must carry one of the markers: the
check fails on an unmarked one, so that a new example is either checked or
says why not.

The commands of one page run in order, with bash, in one scratch directory
per page that holds symlinks to the repository's top-level entries (so
scenarios/, examples/ ... resolve and outputs land in the scratch directory);
the kueuesim under test is on PATH and at build/release/cli/kueuesim.

With --update, the expected output of a command whose output differs and
that has no "..." line is replaced in the page by what the run printed
(review the diff: a changed figure in a doc is a changed result).

Usage: doc_check.py --sim PATH --source REPO_ROOT [--list] [--update] [FILES...]
"""
import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile
import time

FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*([\w+-]*)")
CHECK = re.compile(r"^\s*<!--\s*check(?:\s+exit=(\d+))?\s*-->\s*$")
NOCHECK = re.compile(r"^\s*<!--\s*nocheck:\s*(\S.*?)\s*-->\s*$")
ANY_MARKER = re.compile(r"^\s*<!--\s*(no)?check\b")
SHELL_LANGS = {"", "sh", "bash", "console", "shell", "text"}
# A line that runs kueuesim: the command word kueuesim (not "kueuesim:", the
# prefix of its messages), a path ending in /kueuesim, or dev.sh.
RUNS_KUEUESIM = re.compile(r"(^|[\s;&|(`$])(\S*/)?kueuesim(\s|$)|(^|\s)\./dev\.sh\s")
# Seconds a command may take; sanitizer builds, several times slower, pass
# more (--command-timeout, tests/e2e/e2e.cmake).
COMMAND_TIMEOUT = 120
# A path of one machine (a home or work directory) has no place in the docs.
MACHINE_PATH = re.compile(r"(?<![\w.])/(work|home|root|Users)/")


class Block:
    def __init__(self, path, line, lang, body, marker, reason, exit_code=0):
        self.path, self.line, self.lang, self.body = path, line, lang, body
        self.marker, self.reason = marker, reason  # marker: "check", "nocheck" or None
        self.exit_code = exit_code  # of the block's last command

    def where(self):
        return f"{self.path}:{self.line}"


def parse_blocks(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    blocks = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence = m.group(2)
        j = i + 1
        while j < len(lines) and not lines[j].strip().startswith(fence):
            j += 1
        indent = len(m.group(1))
        body = [line[indent:] if line[:indent].strip() == "" else line for line in lines[i + 1:j]]
        marker, reason, exit_code = None, None, 0
        k = i - 1
        while k >= 0 and lines[k].strip() == "":
            k -= 1
        if k >= 0:
            if CHECK.match(lines[k]):
                marker = "check"
                exit_code = int(CHECK.match(lines[k]).group(1) or 0)
            elif NOCHECK.match(lines[k]):
                marker, reason = "nocheck", NOCHECK.match(lines[k]).group(1)
            elif ANY_MARKER.match(lines[k]):
                marker = "malformed"
        blocks.append(Block(os.path.relpath(path), i + 1, m.group(3).lower(), body, marker, reason, exit_code))
        i = j + 1
    return blocks


def runs_kueuesim(block):
    if block.lang not in SHELL_LANGS:
        return False
    for line in block.body:
        text = line.strip()
        if text.startswith("$ "):
            text = text[2:]
        if text.startswith("#") or text.startswith("kueuesim:"):
            continue
        if RUNS_KUEUESIM.search(text):
            return True
    return False


def commands_of(block):
    """[(command, [expected lines])] of a checked block."""
    out = []
    lines = block.body
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("$ "):
            command = line[2:]
            while i + 1 < len(lines) and (command.endswith("\\") or lines[i + 1].startswith("> ")):
                i += 1
                command = command + "\n" + (lines[i][2:] if lines[i].startswith("> ") else lines[i])
            out.append((command, []))
        elif out:
            out[-1][1].append(line)
        elif line.strip():
            raise ValueError(f"output before the first command: {line!r}")
        i += 1
    for _, expected in out:
        while expected and expected[-1].strip() == "":
            expected.pop()
    return out


def matches(expected, got):
    """expected lines (with "..." wildcards) against got lines."""
    expected = [line.rstrip() for line in expected]
    got = [line.rstrip() for line in got]
    # memoised two-pointer match
    memo = {}

    def match(e, g):
        key = (e, g)
        if key in memo:
            return memo[key]
        if e == len(expected):
            result = g == len(got)
        elif expected[e].strip() == "...":
            result = any(match(e + 1, k) for k in range(g, len(got) + 1))
        else:
            result = g < len(got) and expected[e] == got[g] and match(e + 1, g + 1)
        memo[key] = result
        return result

    return match(0, 0)


def scratch_dir(source, sim, parent):
    work = tempfile.mkdtemp(dir=parent)
    for entry in os.listdir(source):
        if entry in (".git", "build"):
            continue
        os.symlink(os.path.join(source, entry), os.path.join(work, entry))
    release = os.path.join(work, "build", "release", "cli")
    os.makedirs(release)
    os.symlink(sim, os.path.join(release, "kueuesim"))
    return work


def run_page(path, blocks, source, sim, bin_dir, parent, updates=None, command_timeout=COMMAND_TIMEOUT):
    failures = []
    work = None
    env = dict(os.environ)
    env["PATH"] = bin_dir + os.pathsep + env.get("PATH", "")
    env["LC_ALL"] = "C.UTF-8"
    for block in blocks:
        if block.marker != "check":
            continue
        if work is None:
            work = scratch_dir(source, sim, parent)
        try:
            commands = commands_of(block)
        except ValueError as e:
            failures.append(f"{block.where()}: {e}")
            continue
        if not commands:
            failures.append(f"{block.where()}: a checked block without a command (lines starting with \"$ \")")
            continue
        for index, (command, expected) in enumerate(commands):
            want_exit = block.exit_code if index == len(commands) - 1 else 0
            # stdout and stderr share one pipe. kueuesim writes its stderr
            # lines (warnings, a summary moved off stdout) before or after its
            # stdout output, never amid it, so the order is a terminal's.
            # (No stdbuf: its LD_PRELOAD breaks sanitizer builds.)
            argv = ["bash", "-c", "{\n" + command + "\n} 2>&1"]
            try:
                r = subprocess.run(argv, cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   timeout=command_timeout)
            except subprocess.TimeoutExpired:
                failures.append(f"{block.where()}: `{command}` ran longer than {command_timeout:g}s")
                continue
            got = r.stdout.decode("utf-8", "replace").split("\n")
            while got and got[-1].strip() == "":
                got.pop()
            if r.returncode != want_exit:
                failures.append(f"{block.where()}: `{command}` exited {r.returncode}, not {want_exit}:\n    "
                                + "\n    ".join(got[-20:]))
                continue
            if not matches(expected, got):
                if updates is not None and not any(line.strip() == "..." for line in expected):
                    updates.append((block, command, expected, got))
                    continue
                failures.append(f"{block.where()}: `{command}`: the output differs from the page.\n"
                                "  the page shows:\n    " + "\n    ".join(expected)
                                + "\n  the run prints:\n    " + "\n    ".join(got))
    return failures


def update_page(page, updates):
    """Replaces each command's expected lines by the printed ones."""
    with open(page, encoding="utf-8") as f:
        lines = f.read().split("\n")
    # From the last command up, so that earlier line numbers stay valid.
    for block, command, expected, got in sorted(
            updates, key=lambda u: (-u[0].line, -u[0].body.index("$ " + u[1].split("\n")[0]))):
        fence = lines[block.line - 1]
        indent = fence[:len(fence) - len(fence.lstrip())]
        start = block.line  # index of the first body line
        end = start
        while not lines[end].strip().startswith(("```", "~~~")):
            end += 1
        body = [line[len(indent):] if line.startswith(indent) else line for line in lines[start:end]]
        first = command.split("\n")[0]
        i = body.index("$ " + first) + command.count("\n") + 1  # past the command's own lines
        j = i
        while j < len(body) and not body[j].startswith("$ "):
            j += 1
        trailing = [line for line in body[i:j][len(expected):] if line.strip() == ""]
        body[i:j] = got + trailing
        lines[start:end] = [indent + line if line else line for line in body]
        print(f"updated {block.where()}: `{first}`")
    with open(page, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sim", required=True)
    parser.add_argument("--source", required=True)
    parser.add_argument("--command-timeout", type=float, default=COMMAND_TIMEOUT,
                        help=f"seconds a command may run (default {COMMAND_TIMEOUT})")
    parser.add_argument("--list", action="store_true", help="list the blocks and their markers; run nothing")
    parser.add_argument("--update", action="store_true",
                        help="write the printed output into the pages where it differs (no \"...\" in it)")
    parser.add_argument("files", nargs="*", help="pages to check (default: README.md and docs/*.md)")
    args = parser.parse_args()
    source = os.path.abspath(args.source)
    sim = os.path.abspath(args.sim)
    pages = [os.path.abspath(f) for f in args.files] or (
        [os.path.join(source, "README.md")] + sorted(glob.glob(os.path.join(source, "docs", "*.md"))))
    os.chdir(source)
    failures = []
    checked = skipped = 0
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="doc-check-") as parent:
        bin_dir = os.path.join(parent, "bin")
        os.makedirs(bin_dir)
        os.symlink(sim, os.path.join(bin_dir, "kueuesim"))
        for page in pages:
            with open(page, encoding="utf-8") as f:
                for number, line in enumerate(f, 1):
                    if MACHINE_PATH.search(line):
                        failures.append(f"{os.path.relpath(page)}:{number}: a path of one machine: {line.strip()}")
            blocks = parse_blocks(page)
            for block in blocks:
                if block.marker == "malformed":
                    failures.append(f"{block.where()}: a malformed marker (<!-- check --> or "
                                    "<!-- nocheck: REASON -->)")
                elif block.marker is None and runs_kueuesim(block):
                    failures.append(f"{block.where()}: a block that runs kueuesim has no marker: check it "
                                    "(<!-- check --> before a console block) or say why not "
                                    "(<!-- nocheck: REASON -->)")
                elif block.marker == "check" and block.lang != "console":
                    failures.append(f"{block.where()}: a checked block must be ```console")
                if args.list:
                    print(f"{block.where()}: {block.marker or '-'} {block.reason or ''}")
            checked += sum(1 for b in blocks if b.marker == "check")
            skipped += sum(1 for b in blocks if b.marker == "nocheck")
            if not args.list:
                updates = [] if args.update else None
                failures += run_page(os.path.relpath(page), blocks, source, sim, bin_dir, parent, updates,
                                     command_timeout=args.command_timeout)
                if updates:
                    update_page(page, updates)
    for failure in failures:
        print("FAIL " + failure, file=sys.stderr)
    print(f"doc check: {len(pages)} page(s), {checked} checked block(s), {skipped} not checked (with a reason), "
          f"{len(failures)} failure(s), {time.monotonic() - started:.1f}s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
