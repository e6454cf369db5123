#!/usr/bin/env bash
# The interpreter's `unsafe`: a call writes its frame into the frame vector's spare
# capacity, and the dispatch loop reads registers and instructions
# without bounds checks, on the ground that loaded code passed validation
# (ARCHITECTURE.md, "Where `unsafe` lives"). Its test runs every kind of frame change
# under Miri, which checks each such read. Miri comes with the nightly toolchain
# (`rustup toolchain install nightly --component miri`), which no package registry serves:
# where it is missing this says so and skips.
set -euo pipefail
cd "$(dirname "$0")/.."
unset CARGO_BUILD_TARGET
if ! cargo +nightly miri --version >/dev/null 2>&1; then
  echo "== miri: SKIPPED, Miri is not installed (rustup toolchain install nightly --component miri)"
  exit 0
fi
cargo +nightly miri test -p kiln --lib interpreter::dispatch::tests
