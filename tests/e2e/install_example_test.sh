#!/usr/bin/env bash
# Installs the library from the build tree into a temporary prefix, builds
# examples/embed against it with find_package(kueuesim) as an outside
# project would, runs it on the quick-start scenario and checks its output.
set -euo pipefail
build="$1"; source="$2"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
cmake -S "$source/examples/embed" -B "$tmp/embed" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
      -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$tmp/embed" -j 2 >/dev/null
"$tmp/embed/embed" "$source/scenarios/quickstart/gpu-teams.yaml" > "$tmp/out.txt"
diff -u "$source/examples/embed/expected.txt" "$tmp/out.txt"

# A user-written policy registered and selected from a scenario.
cmake -S "$source/examples/custom-policy" -B "$tmp/sjf" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
      -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$tmp/sjf" -j 2 >/dev/null
"$tmp/sjf/sjf" "$source/examples/custom-policy/sjf-scenario.yaml" > "$tmp/sjf.jsonl"
diff -u "$source/examples/custom-policy/expected-events.jsonl" "$tmp/sjf.jsonl"
echo "examples built against the installed package and produced the expected output"
