#!/usr/bin/env python3
"""The CLI on bad input: every case must exit non-zero (1 for invalid input)
with a one-line error that names the file, in bounded time, without a crash.

Usage: bad_input_test.py --sim PATH
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile
import time

VALID_HEAD = """apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: default
---
"""


def cq(name, quota="10", extra=""):
    return f"""apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: {name}
spec:
  namespaceSelector: {{}}
{extra}  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources:
      - name: cpu
        nominalQuota: "{quota}"
"""


def workload(count="1", cpu="1"):
    return f"""apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: w
  namespace: default
spec:
  queueName: q
  podSets:
  - name: main
    count: {count}
    template:
      spec:
        containers:
        - name: c
          resources:
            requests:
              cpu: "{cpu}"
"""


def pool(spec):
    return f"""apiVersion: kueuesim.io/v1alpha1
kind: AutoscalerPool
metadata:
  name: gpu
spec:
{spec}
"""


def prc(spec):
    return f"""apiVersion: kueue.x-k8s.io/v1beta2
kind: ProvisioningRequestConfig
metadata:
  name: prc
spec:
{spec}
"""


def cases():
    yield "malformed quantity", VALID_HEAD + cq("a", quota="12x"), "nominalQuota"
    yield "pool without maxNodes", pool("  allocatable: {nvidia.com/gpu: '8'}"), 'AutoscalerPool "gpu": spec.maxNodes'
    yield "pool max below min", pool("  allocatable: {cpu: '8'}\n  minNodes: 3\n  maxNodes: 2"), "spec.maxNodes"
    yield "pool bad distribution", pool("  allocatable: {cpu: '8'}\n  maxNodes: 2\n  provisioningTime: lognormal(1m)"), \
        "spec.provisioningTime"
    yield "pool stockout backwards", pool("  allocatable: {cpu: '8'}\n  maxNodes: 2\n  stockouts: [{from: 2h, until: 1h}]"), \
        "spec.stockouts[0].until"
    yield "prc without class", prc("  managedResources: [nvidia.com/gpu]"), \
        'ProvisioningRequestConfig "prc": spec.provisioningClassName'
    yield "prc negative retry", prc("  provisioningClassName: x\n  retryStrategy: {backoffLimitCount: -1}"), \
        "spec.retryStrategy.backoffLimitCount"
    yield "check outcome unknown", """apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata:
  name: approval
  annotations: {kueuesim.io/check-outcome: Perhaps}
spec:
  controllerName: example.com/approval
""", "kueuesim.io/check-outcome"
    yield "pool change without field", """apiVersion: kueuesim.io/v1alpha1
kind: Change
metadata: {name: c}
spec:
  at: 1h
  target: {kind: AutoscalerPool, name: gpu}
""", "capacity or stockout"
    yield "negative quota", VALID_HEAD + cq("a", quota="-1"), "nominalQuota"
    yield "negative count", VALID_HEAD + workload(count="-2"), "count"
    yield "flavor listed twice", VALID_HEAD + """apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: a
spec:
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: default
      resources: [{name: cpu, nominalQuota: "1"}]
    - name: default
      resources: [{name: cpu, nominalQuota: "1"}]
""", "listed twice"
    yield "duplicate object", VALID_HEAD + cq("a") + "---\n" + cq("a"), "duplicate"
    yield "truncated file", VALID_HEAD + cq("a")[:-40], ""
    yield "deep nesting", "a: " + "[" * 100000, "nesting"
    laughs = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    prev = "a"
    for name in "bcdefghi":
        laughs += f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]\n"
        prev = name
    yield "alias bomb", laughs, "alias"
    rng = random.Random(42)
    yield "random bytes", bytes(rng.getrandbits(8) for _ in range(10 * 1024 * 1024)), ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sim", required=True)
    args = ap.parse_args()
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, content, needle in cases():
            path = os.path.join(tmp, name.replace(" ", "-") + ".yaml")
            with open(path, "wb") as fh:
                fh.write(content if isinstance(content, bytes) else content.encode())
            start = time.monotonic()
            p = subprocess.run([args.sim, "validate", path], capture_output=True, timeout=60)
            elapsed = time.monotonic() - start
            err = p.stderr.decode(errors="replace").strip()
            problems = []
            if p.returncode != 1:
                problems.append(f"exit code {p.returncode}, want 1")
            if os.path.basename(path) not in err:
                problems.append("the error does not name the file")
            if needle and needle not in err:
                problems.append(f"the error does not mention {needle!r}")
            if len(err.splitlines()) != 1:
                problems.append("the error is not one line")
            if elapsed > 20:
                problems.append(f"took {elapsed:.1f} s")
            if problems:
                failures += 1
                print(f"FAIL {name}: {'; '.join(problems)}\n    stderr: {err[:300]}")
            else:
                print(f"ok   {name} ({elapsed:.2f} s): {err[:160]}")
    print(f"{'all passed' if not failures else f'{failures} failed'}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
