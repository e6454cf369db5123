#!/usr/bin/env bash
# The GC stress run: the engine built with the `gc-stress` feature collects at every
# safe point after an allocation and poisons what it frees, so a value held unrooted
# across a call that runs JavaScript panics at its next use (docs/handbook.md,
# "Garbage-collection safety"). Runs the JavaScript fixtures and a sample of test262's
# built-ins under it; fails if any fixture fails or any scenario listed as passing
# fails.
#
#   KILN_GC_STRESS_SAMPLE=N:K          test262 tests whose path hash is K modulo N
#                                      (default 12:0; another K covers other tests)
#   KILN_GC_STRESS_EVERY=N             test262: collect after every N allocations (default 1)
#   KILN_GC_STRESS_FIXTURES_EVERY=N    the fixtures: the same (default 64: at every
#                                      allocation the fixtures that make tens of
#                                      thousands of promises take minutes each)
set -euo pipefail
cd "$(dirname "$0")/.."

CARGO_BUILD_TARGET="${CARGO_BUILD_TARGET:-$(rustc -vV | sed -n 's/^host: //p')}"
export CARGO_BUILD_TARGET
sample="${KILN_GC_STRESS_SAMPLE:-12:0}"
every="${KILN_GC_STRESS_EVERY:-1}"
fixtures_every="${KILN_GC_STRESS_FIXTURES_EVERY:-64}"
areas=(Object Array TypedArray TypedArrayConstructors Promise Iterator RegExp String JSON)
started=$SECONDS

echo "== gc-stress: build"
cargo build --locked -p kiln-cli -p kiln-test262 --features kiln/gc-stress

echo "== gc-stress: JavaScript fixtures (tests/js), collecting every $fixtures_every allocations"
KILN_GC_STRESS_EVERY="$fixtures_every" \
  cargo test --locked -p kiln-cli --features gc-stress --test fixtures

echo "== gc-stress: snapshots, taken and restored after collections"
cargo test --locked -p kiln --features gc-stress --test snapshot

echo "== gc-stress: test262 built-ins (${areas[*]}), sample $sample, collecting every $every allocation(s)"
filters=()
for area in "${areas[@]}"; do
  filters+=(--filter "test/built-ins/$area/")
done
KILN_GC_STRESS_EVERY="$every" \
  "target/$CARGO_BUILD_TARGET/debug/kiln-test262" "${filters[@]}" --sample "$sample"

echo "== gc-stress: passed in $((SECONDS - started))s"
