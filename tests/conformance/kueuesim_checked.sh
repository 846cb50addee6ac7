#!/bin/sh
# The kueuesim CLI with --check-invariants added to `run`, for the
# conformance checker (check.py runs `SIM run CASE --cycles N --events OUT`
# and has no way to pass other flags). KUEUESIM_BIN names the real binary.
# A violation makes kueuesim exit non-zero, which fails the case.
set -eu
: "${KUEUESIM_BIN:?KUEUESIM_BIN must name the kueuesim executable}"
if [ "${1:-}" = "run" ]; then
  shift
  exec "$KUEUESIM_BIN" run --check-invariants "$@"
fi
exec "$KUEUESIM_BIN" "$@"
