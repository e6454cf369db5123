"""start(), Suspended, Complete and snapshots."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

import kiln

FIXTURES = Path(__file__).parent / "fixtures"

AGENT = """
  const [user, orders] = await Promise.all([tools.user(input.id), tools.orders(input.id)]);
  const total = orders.reduce((sum, o) => sum + o.amount, 0);
  const note = await tools.note(user.name, total);
  return { user: user.name, total, note };
"""
NAMES = ["tools.user", "tools.orders", "tools.note"]


def suspended_agent(**options):
    state = kiln.start(AGENT, capabilities=NAMES, inputs={"input": {"id": 7}}, **options)
    assert isinstance(state, kiln.Suspended)
    return state


def test_a_fan_out_suspends_with_every_call_and_answers_continue_it():
    p = suspended_agent()
    assert p.status == "suspended"
    assert [(c.capability, c.args) for c in p.calls] == [("tools.user", [7]), ("tools.orders", [7])]
    user, orders = p.calls
    p = p.resume(orders.id, [{"amount": 5}, {"amount": 7}])
    assert [c.id for c in p.calls] == [user.id]
    p = p.resume(user.id, {"name": "Ada"})
    assert [(c.capability, c.args) for c in p.calls] == [("tools.note", ["Ada", 12])]
    done = p.resume(p.calls[0].id, "thanks")
    assert isinstance(done, kiln.Complete)
    assert done.status == "complete"
    assert done.value == {"user": "Ada", "total": 12, "note": "thanks"}


def test_resume_error_reaches_the_guest_as_a_catchable_error():
    p = kiln.start("try { await tools.get() } catch (e) { return [e.name, e.message, e.code] }", capabilities=["tools.get"])
    error = PermissionError("no access")
    error.code = "EACCES"
    done = p.resume_error(p.calls[0].id, error)
    assert done.value == ["PermissionError", "no access", "EACCES"]


def test_a_spent_state_and_an_unknown_call_id_are_refused():
    p = suspended_agent()
    with pytest.raises(ValueError, match="no outstanding call has the id 999"):
        p.resume(999, 1)
    following = p.resume(p.calls[0].id, {"name": "x"})
    with pytest.raises(RuntimeError, match="already resumed"):
        p.resume(p.calls[1].id, [])
    following.cancel()
    with pytest.raises(RuntimeError, match="already resumed"):
        following.dump()


def test_a_script_that_needs_no_host_completes_at_once():
    done = kiln.start("return 6 * 7")
    assert isinstance(done, kiln.Complete)
    assert done.value == 42
    with pytest.raises(kiln.GuestException):
        kiln.start("null.x")


def test_an_answer_that_cannot_cross_is_refused_with_its_path():
    p = kiln.start("await tools.get()", capabilities=["tools.get"])
    with pytest.raises(kiln.BoundaryError, match=r"the answer to tools.get: a function cannot cross to the guest \(at \$\.f\)"):
        p.resume(p.calls[0].id, {"f": print})


@pytest.mark.parametrize("key", [None, "a secret key", b"\x00bytes key"])
def test_dump_and_load_continue_the_execution(key):
    p = suspended_agent()
    p = p.resume(p.calls[0].id, {"name": "Ada"})
    data = p.dump(key=key)
    assert isinstance(data, bytes) and len(data) > 100
    q = kiln.load(data, key=key, capabilities=NAMES)
    assert [c.capability for c in q.calls] == ["tools.orders"]
    q = q.resume(q.calls[0].id, [{"amount": 1}])
    done = q.resume(q.calls[0].id, "ok")
    assert done.value == {"user": "Ada", "total": 1, "note": "ok"}
    # the original goes on too: a dump is a copy
    p = p.resume(p.calls[0].id, [{"amount": 2}])
    assert p.calls[0].capability == "tools.note"


def test_a_snapshot_loads_once_and_a_replay_is_refused():
    data = suspended_agent().dump()
    kiln.load(data, capabilities=NAMES)
    with pytest.raises(kiln.SnapshotError, match="already resumed") as caught:
        kiln.load(data, capabilities=["tools.user"])
    assert caught.value.kind == "Snapshot"
    # a store of the host's own decides instead
    store = set()
    again = suspended_agent().dump()
    kiln.load(again, capabilities=NAMES, snapshots=store)
    assert len(store) == 1
    with pytest.raises(kiln.SnapshotError, match="already resumed"):
        kiln.load(again, snapshots=store)


def test_tampered_truncated_and_wrongly_keyed_snapshots_are_refused_with_kind_snapshot():
    data = suspended_agent().dump(key="k1")
    tampered = bytearray(data)
    tampered[len(tampered) // 2] ^= 0x40
    for broken in [bytes(tampered), data[:-7], data[:5], b"not a snapshot"]:
        with pytest.raises(kiln.SnapshotError) as caught:
            kiln.load(broken, key="k1")
        assert caught.value.kind == "Snapshot"
    with pytest.raises(kiln.SnapshotError):
        kiln.load(data, key="k2")
    with pytest.raises(kiln.SnapshotError):
        kiln.load(data)


def test_a_snapshot_dumped_in_one_process_resumes_in_another_with_the_same_result():
    p = suspended_agent()
    p = p.resume(p.calls[1].id, [{"amount": 40}, {"amount": 2}])
    data = p.dump(key="shared key")
    out = subprocess.run(
        [sys.executable, str(FIXTURES / "resume_snapshot.py")],
        input=data,
        stdout=subprocess.PIPE,
        check=True,
    ).stdout
    assert json.loads(out) == {"user": "Grace", "total": 42, "note": "from another process"}


def test_console_lines_of_a_driven_execution():
    lines = []
    p = kiln.start(
        "console.log('before'); const x = await tools.get(); console.warn('after', x); x",
        capabilities=["tools.get"],
        console=lambda level, line: lines.append((level, line)),
    )
    assert lines == [("log", "before")]
    assert p.resume(p.calls[0].id, 3).value == 3
    assert lines == [("log", "before"), ("warn", "after 3")]
