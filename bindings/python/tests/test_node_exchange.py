"""Snapshots cross between the Node and Python packages, both ways.

KILN_NODE_PACKAGE names a built bindings/node (its index.js and native addon). Without
it the tests are skipped, except in CI (CI=true), where they fail.
"""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

import kiln
from test_start import AGENT, NAMES

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def node_package():
    package = os.environ.get("KILN_NODE_PACKAGE")
    if not package:
        message = "KILN_NODE_PACKAGE is not set: snapshots between the Node and Python packages are not tested"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    if shutil.which("node") is None:
        pytest.fail("KILN_NODE_PACKAGE is set but node is not on PATH")
    return str(Path(package).resolve())


def node(script, package, data=b""):
    return subprocess.run(
        ["node", str(FIXTURES / script), package],
        input=data,
        stdout=subprocess.PIPE,
        check=True,
    ).stdout


def test_a_snapshot_from_python_resumes_in_node(node_package):
    p = kiln.start(AGENT, capabilities=NAMES, inputs={"input": {"id": 7}})
    p = p.resume(p.calls[1].id, [{"amount": 40}, {"amount": 2}])
    out = node("node_resume.cjs", node_package, p.dump(key="shared key"))
    assert json.loads(out) == {"user": "Grace", "total": 42, "note": "from node"}


def test_a_snapshot_from_node_resumes_in_python(node_package):
    data = node("node_dump.cjs", node_package)
    p = kiln.load(data, key="shared key", capabilities=NAMES)
    assert [(c.capability, c.args) for c in p.calls] == [("tools.user", [7])]
    p = p.resume(p.calls[0].id, {"name": "Ada"})
    assert [(c.capability, c.args) for c in p.calls] == [("tools.note", ["Ada", 42])]
    done = p.resume(p.calls[0].id, "from python")
    assert done.value == {"user": "Ada", "total": 42, "note": "from python"}
