#!/usr/bin/env bash
# Installs the peer engines Kiln is measured against into build/peers/ (ignored by git),
# each from its package registry, and writes build/peers/versions.txt.
#
#   bash bench/install-peers.sh            # install whatever is missing
#   bash bench/install-peers.sh --force    # reinstall everything
#
# Peers: node (the machine's, also run as `node --jitless`), Bun (npm @oven/bun-linux-x64,
# run with BUN_JSC_useJIT=0 and without), Hermes (npm hermes-engine-cli), Boa (crates.io
# boa_cli, built with -j 1 to leave a core free), QuickJS-NG (tasks/quickjs-runner over
# the rquickjs crate; its own Cargo workspace so the main workspace never compiles C).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PEERS="$ROOT/build/peers"
FORCE="${1:-}"
JOBS="${KILN_BENCH_JOBS:-1}"
mkdir -p "$PEERS"

say() { printf '\n== %s\n' "$*"; }

need() {
  # need NAME PATH: true when PATH is missing or --force was given
  [[ "$FORCE" == "--force" || ! -x "$2" ]] || { echo "$1: already installed ($2)"; return 1; }
}

say "node"
if command -v node >/dev/null; then
  echo "node: $(command -v node) $(node --version)"
else
  echo "node is not on PATH: install it (e.g. apt-get install nodejs); node and node --jitless will be skipped" >&2
fi

say "Bun (npm @oven/bun-linux-x64)"
if need bun "$PEERS/npm/node_modules/@oven/bun-linux-x64/bin/bun"; then
  npm install --prefix "$PEERS/npm" --no-save --no-audit --no-fund @oven/bun-linux-x64 hermes-engine-cli
fi

say "Hermes (npm hermes-engine-cli)"
if need hermes "$PEERS/npm/node_modules/hermes-engine-cli/linux64-bin/hermes"; then
  npm install --prefix "$PEERS/npm" --no-save --no-audit --no-fund @oven/bun-linux-x64 hermes-engine-cli
fi

say "Boa (crates.io boa_cli, -j $JOBS)"
if need boa "$PEERS/bin/boa"; then
  cargo install boa_cli --locked --root "$PEERS" -j "$JOBS"
fi

say "QuickJS-NG (tasks/quickjs-runner over rquickjs, -j $JOBS)"
if need qjs-runner "$PEERS/bin/kiln-quickjs"; then
  cargo build --release -j "$JOBS" --manifest-path "$ROOT/tasks/quickjs-runner/Cargo.toml" \
    --target-dir "$PEERS/quickjs-target"
  install -m 755 "$PEERS/quickjs-target/release/kiln-quickjs" "$PEERS/bin/kiln-quickjs"
fi

say "versions"
{
  command -v node >/dev/null && echo "node $(node --version)"
  echo "bun $("$PEERS/npm/node_modules/@oven/bun-linux-x64/bin/bun" --version)"
  echo "hermes $("$PEERS/npm/node_modules/hermes-engine-cli/linux64-bin/hermes" -version | grep -i 'hermes release version' | sed 's/.*: *//')"
  echo "boa $("$PEERS/bin/boa" --version | sed 's/^boa_cli *//; s/^boa *//')"
  echo "quickjs-ng $("$PEERS/bin/kiln-quickjs" --version)"
} | tee "$PEERS/versions.txt"
