#!/usr/bin/env bash
# The tests, all of them, from a fresh checkout: the Rust workspace (unit tests, the
# CLI, JavaScript fixtures, Octane, the sandbox, the server, the test262 ratchet), then
# the Node package built and tested from its packed tarball as a user installs it, then
# the Python package built as a wheel and tested in a new virtual environment (with
# snapshots crossing between the two packages).
# Needs Rust, Node 20+ with npm, Python 3.9+ with venv; fetches the npm and PyPI packages
# the builds and tests need.
set -euo pipefail
cd "$(dirname "$0")/.."

# One target directory layout for cargo, the napi-rs CLI (which always names the target
# triple) and maturin, so the addon and the wheel reuse what the Rust tests built.
CARGO_BUILD_TARGET="$(rustc -vV | sed -n 's/^host: //p')"
export CARGO_BUILD_TARGET

echo "== rust"
cargo test --workspace --locked

echo "== node package"
(
  cd bindings/node
  npm ci --no-audit --no-fund
  npm run build:debug
  npm test
)

echo "== python package"
KILN_NODE_PACKAGE="$PWD/bindings/node" bindings/python/scripts/test_wheel.sh
