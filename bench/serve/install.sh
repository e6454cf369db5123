#!/usr/bin/env bash
# Installs what bench/serve/run.py measures against: wrk (Debian), Bun and Deno (npm
# packages @oven/bun-linux-x64 and deno, into build/peers/serve, ignored by git); Node is
# the machine's.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
command -v wrk >/dev/null || { apt-get update && apt-get install -y wrk; }
npm install --prefix "$ROOT/build/peers/serve" --no-save --no-audit --no-fund @oven/bun-linux-x64 deno
