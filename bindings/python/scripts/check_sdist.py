"""Check the kiln-sandbox source distribution without building it: `maturin sdist`,
then, in the unpacked archive,

- cargo resolves kiln_python in the Rust workspace the sdist carries: every manifest and
  path dependency is there, and every version it takes is the one Cargo.lock pinned;
- every file a Rust source names (`include_str!`, `include_bytes!`, `include!`,
  `#[path]`) and every module file (`mod name;`) is there;
- every file of the Python package (python/kiln) is there, and no built binary
  (kiln-worker, the native module) came along.

    python scripts/check_sdist.py [--sdist FILE]

maturin must be installed (pip install maturin). Building Kiln from the sdist
(`pip install kiln_sandbox-*.tar.gz`) compiles the whole engine, about ten minutes on two
cores; this check takes seconds and fails on what would make that build fail for a
missing file. Exits non-zero with the list of problems.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import List, Set, Tuple

ROOT = Path(__file__).resolve().parent.parent

INCLUDE = re.compile(r'\b(?:include_str|include_bytes|include)!\(\s*"([^"]+)"\s*\)')
PATH_ATTRIBUTE = re.compile(r'#\[path\s*=\s*"([^"]+)"\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*;')
MODULE = re.compile(r"^\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", re.MULTILINE)


def build_sdist(out: Path) -> Path:
    subprocess.run([sys.executable, "-m", "maturin", "sdist", "--out", str(out)], cwd=ROOT, check=True)
    made = sorted(out.glob("kiln_sandbox-*.tar.gz"))
    if not made:
        sys.exit(f"maturin left no sdist in {out}")
    return made[-1]


def module_files(source: Path) -> List[Path]:
    """Where `mod name;` in `source` may live: name.rs or name/mod.rs, beside a crate
    root (lib.rs, main.rs, build.rs, a file of tests/, examples/, benches/ or src/bin/)
    or a mod.rs, else in the folder named after the file."""
    root = source.parent.name in ("tests", "examples", "benches") or source.parent.parts[-2:] == ("src", "bin")
    if root or source.name in ("lib.rs", "main.rs", "mod.rs", "build.rs"):
        return [source.parent]
    return [source.parent / source.stem]


def locked_packages(lock: Path) -> Set[Tuple[str, str]]:
    """(name, version) of every package in a Cargo.lock."""
    found = re.findall(r'\[\[package\]\]\nname = "([^"]+)"\nversion = "([^"]+)"', lock.read_text())
    return set(found)


def rust_problems(tree: Path) -> List[str]:
    problems = []
    for source in sorted(tree.rglob("*.rs")):
        text = source.read_text(errors="replace")
        where = source.relative_to(tree)
        path_modules = set()
        for match in PATH_ATTRIBUTE.finditer(text):
            path_modules.add(match.start())
            if not (source.parent / match.group(1)).is_file():
                problems.append(f"{where}: #[path] names {match.group(1)}, which is missing")
        for match in INCLUDE.finditer(text):
            if not (source.parent / match.group(1)).is_file():
                problems.append(f"{where}: {match.group(0)} names a missing file")
        for match in MODULE.finditer(text):
            if any(abs(match.start() - p) < 200 for p in path_modules):
                continue
            name = match.group(1)
            folders = module_files(source)
            if not any((d / f"{name}.rs").is_file() or (d / name / "mod.rs").is_file() for d in folders):
                problems.append(f"{where}: mod {name}; has no file")
    return problems


def python_problems(tree: Path) -> List[str]:
    problems = []
    package = ROOT / "python" / "kiln"
    shipped = tree / "python" / "kiln"
    for f in sorted(package.iterdir()):
        if f.name.startswith("kiln-worker") or f.suffix in (".so", ".pyd") or f.name == "__pycache__":
            continue
        if not (shipped / f.name).is_file():
            problems.append(f"python/kiln/{f.name} is not in the sdist")
    for f in sorted(shipped.iterdir()):
        if f.name.startswith("kiln-worker") or f.suffix in (".so", ".pyd"):
            problems.append(f"python/kiln/{f.name} is a built binary and must not be in the sdist")
    return problems


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sdist", type=Path, help="an sdist to check instead of building one")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="kiln-sdist-") as work:
        sdist = args.sdist or build_sdist(Path(work) / "dist")
        with tarfile.open(sdist) as archive:
            names = archive.getnames()
            if hasattr(tarfile, "data_filter"):
                archive.extractall(Path(work) / "unpacked", filter="data")
            else:  # Python before 3.9.17
                archive.extractall(Path(work) / "unpacked")
        tree = Path(work) / "unpacked" / names[0].split("/")[0]
        problems = []
        # The sdist's workspace has fewer members than the repository's, so cargo prunes
        # Cargo.lock when it resolves it; what stays must be what the lock pinned.
        pinned = locked_packages(tree / "Cargo.lock")
        resolve = subprocess.run(
            ["cargo", "tree", "-p", "kiln_python", "-e", "normal,build", "--prefix", "none"],
            cwd=tree,
            capture_output=True,
            text=True,
        )
        if resolve.returncode != 0:
            problems.append(f"cargo cannot resolve kiln_python in the sdist:\n{resolve.stderr.strip()}")
        else:
            unpinned = locked_packages(tree / "Cargo.lock") - pinned
            problems += [f"{name} {version} is not what Cargo.lock pinned" for name, version in sorted(unpinned)]
        problems += rust_problems(tree)
        problems += python_problems(tree)
        if problems:
            print(f"{sdist.name}: {len(problems)} problem(s)", file=sys.stderr)
            for problem in problems:
                print(f"  {problem}", file=sys.stderr)
            sys.exit(1)
        print(f"{sdist.name}: {len(names)} files; the workspace resolves and every named file is there")


if __name__ == "__main__":
    main()
