#!/usr/bin/env bash
# The tests, all of them, from a fresh checkout: the Rust workspace (unit tests, the
# CLI, JavaScript fixtures, Octane, the sandbox, the server, the test262 ratchet), then
# the Node package built and tested from its packed tarball as a user installs it.
# Needs Rust, Node 20+ with npm; fetches the npm packages the build needs.
set -euo pipefail
cd "$(dirname "$0")/.."

# One target directory layout for cargo and the napi-rs CLI (which always names the
# target triple), so the addon reuses what the Rust tests built.
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
