"""``kiln-worker-python``: the worker process of isolation 'process' run through the
native module, for installs that have no ``kiln-worker`` binary beside it (a wheel built
from the sdist). It speaks the session protocol on standard input and output and exits
when its input ends, as the binary does.
"""

from __future__ import annotations

import sys

from . import _native


def main() -> int:
    try:
        _native.serve_worker()
    except RuntimeError as e:
        print(f"kiln-worker-python: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
