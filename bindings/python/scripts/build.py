"""Build the kiln-sandbox wheel: the kiln-worker binary that process isolation runs,
placed beside the module in python/kiln/ (not committed), then one abi3 wheel with
maturin (which must be installed: pip install maturin).

    python scripts/build.py [--dev] [--out DIR]

--dev builds unoptimised (faster to build; what the tests need). Prints the wheel's path.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def build_worker(dev: bool) -> None:
    # cargo says where it put the binary (the target directory and triple vary)
    command = [
        "cargo",
        "build",
        "-p",
        "kiln_bridge",
        "--bin",
        "kiln-worker",
        "--message-format=json-render-diagnostics",
    ]
    if not dev:
        command.append("--release")
    out = subprocess.run(command, cwd=ROOT, check=True, stdout=subprocess.PIPE, text=True).stdout
    built = None
    for line in out.splitlines():
        if not line.startswith("{"):
            continue
        message = json.loads(line)
        if message.get("reason") == "compiler-artifact" and message["target"]["name"] == "kiln-worker":
            built = message.get("executable")
    if not built:
        sys.exit("cargo did not report the kiln-worker binary")
    placed = ROOT / "python" / "kiln" / ("kiln-worker.exe" if os.name == "nt" else "kiln-worker")
    shutil.copyfile(built, placed)
    placed.chmod(placed.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def build_wheel(dev: bool, out: Path) -> Path:
    before = set(out.glob("*.whl")) if out.exists() else set()
    command = [sys.executable, "-m", "maturin", "build", "--out", str(out)]
    if not dev:
        command.append("--release")
    subprocess.run(command, cwd=ROOT, check=True)
    made = sorted(set(out.glob("*.whl")) - before) or sorted(out.glob("kiln_sandbox-*.whl"))
    if not made:
        sys.exit(f"maturin left no wheel in {out}")
    return made[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dev", action="store_true", help="an unoptimised build")
    parser.add_argument("--out", type=Path, default=ROOT / "dist", help="where the wheel goes")
    args = parser.parse_args()
    build_worker(args.dev)
    print(build_wheel(args.dev, args.out.resolve()))


if __name__ == "__main__":
    main()
