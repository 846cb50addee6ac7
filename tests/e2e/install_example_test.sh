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
echo "example built against the installed package and produced the expected output"
