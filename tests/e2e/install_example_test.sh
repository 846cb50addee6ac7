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
# A user-written MultiKueue dispatcher registered and selected from a scenario.
cmake -S "$source/examples/custom-dispatcher" -B "$tmp/most-free" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
      -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$tmp/most-free" -j 2 >/dev/null
"$tmp/most-free/most-free" "$source/examples/custom-dispatcher/scenario.yaml" > "$tmp/most-free.jsonl" 2>/dev/null
diff -u "$source/examples/custom-dispatcher/expected-events.jsonl" "$tmp/most-free.jsonl"
echo "examples built against the installed package and produced the expected output"
