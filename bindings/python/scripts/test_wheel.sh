#!/usr/bin/env bash
# Build the kiln-sandbox wheel, install it into a new virtual environment and test it
# there as a user has it (and check the sdist: scripts/check_sdist.py): examples/agent.py, the pytest suite in tests/ (snapshots with
# the Node package too when KILN_NODE_PACKAGE names a built bindings/node), and mypy
# --strict over the installed package and tests/fixtures/usage.py.
# Needs Python 3.9+ (PYTHON, default python3) and Rust; maturin, pytest and mypy come
# from PyPI.   scripts/test_wheel.sh [--release]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
python="${PYTHON:-python3}"
profile=--dev
if [ "${1:-}" = --release ]; then profile=; fi
work="$(mktemp -d "${TMPDIR:-/tmp}/kiln-sandbox-user-XXXXXX")"
trap 'rm -rf "$work"' EXIT
pip_install() { "$1/bin/python" -m pip install --quiet --disable-pip-version-check "${@:2}"; }

"$python" -m venv "$work/build"
pip_install "$work/build" maturin==1.16.0
"$work/build/bin/python" "$root/scripts/build.py" $profile --out "$work/dist"
wheel="$(ls "$work"/dist/kiln_sandbox-*.whl)"
echo "built $(basename "$wheel"); testing it in $work/user"

# the sdist resolves and carries every file a build needs (building Kiln from it takes
# about ten minutes, so it is not built here)
"$work/build/bin/python" "$root/scripts/check_sdist.py"

"$python" -m venv "$work/venv"
pip_install "$work/venv" "$wheel" pytest==9.2.0 mypy==2.4.1
mkdir "$work/user"
cp -r "$root/tests" "$root/examples" "$work/user/"
cd "$work/user"

# the example prints the agent's result and exits 0
out="$("$work/venv/bin/python" examples/agent.py)"
echo "$out"
if ! grep -q '"revenue": 24825' <<<"$out"; then
  echo "examples/agent.py printed something else" >&2
  exit 1
fi
echo "examples/agent.py: ok"

# the test suite, importing the installed package
"$work/venv/bin/python" -m pytest -rs -p no:cacheprovider tests

# the shipped types: consistent, and checked against how a typed user calls the package
"$work/venv/bin/python" -m mypy --strict --no-incremental -p kiln
"$work/venv/bin/python" -m mypy --strict --no-incremental tests/fixtures/usage.py
echo "types: ok"
