"""What may cross between host and guest, and the path of what may not."""

import math
from collections import OrderedDict
from datetime import datetime, timedelta, timezone, tzinfo
from enum import IntEnum

import pytest

import kiln


class Point:
    def __init__(self):
        self.x = 1


class Level(IntEnum):
    LOW = 1


def cases():
    cyclic = {"a": {}}
    cyclic["a"]["back"] = cyclic
    shared = [1]
    return [
        ({"f": lambda: 1}, "a function", "$.input.f"),
        ({"list": [1, print]}, "a function", "$.input.list[1]"),
        ({"point": Point()}, "an object that is not a plain object or array", "$.input.point"),
        ({"deep": {"o": {"s": {1, 2}}}}, "an object that is not a plain object or array", "$.input.deep.o.s"),
        ({"level": Level.LOW}, "an object that is not a plain object or array", "$.input.level"),
        ({"ordered": OrderedDict(a=1)}, "an object that is not a plain object or array", "$.input.ordered"),
        (cyclic, "an object reached twice (cycle or shared)", "$.input.a.back"),
        ({"one": shared, "two": shared}, "an object reached twice (cycle or shared)", "$.input.two"),
        ({1: "x"}, "a dict key that is not a str", "$.input"),
        ({"text": "a\ud800b"}, "a string with a lone surrogate", "$.input.text"),
        ({"when": datetime(2026, 1, 1)}, "a datetime without a time zone", "$.input.when"),
    ]


@pytest.mark.parametrize("given, what, path", cases(), ids=[c[2] + " " + c[1] for c in cases()])
def test_host_values_that_cannot_cross_are_refused_with_their_path(given, what, path):
    with pytest.raises(kiln.BoundaryError) as caught:
        kiln.run("input", inputs={"input": given})
    assert caught.value.kind == "Boundary"
    assert str(caught.value) == f"inputs: {what} cannot cross to the guest (at {path})"


def test_nesting_deeper_than_the_limit_is_refused():
    deep = 1
    for _ in range(70):
        deep = [deep]
    with pytest.raises(kiln.BoundaryError, match="nesting deeper than the limit"):
        kiln.run("input", inputs={"input": deep})


def test_immutable_values_may_repeat():
    empty = ()
    word = b"xy"
    assert kiln.run("input", inputs={"input": [empty, empty, word, word]}) == [[], [], word, word]


def test_a_host_function_result_that_cannot_cross_is_a_type_error_in_the_guest():
    out = kiln.run(
        "const seen = []; for (const f of [tools.fn, tools.point]) { try { f() } catch (e) { seen.push(e.name + ': ' + e.message) } } seen",
        capabilities={"tools": {"fn": lambda: {"f": len}, "point": lambda: [Point()]}},
    )
    assert out == [
        "TypeError: tools.fn returned a function, which cannot cross to the guest (at $.f)",
        "TypeError: tools.point returned an object that is not a plain object or array, which cannot cross to the guest (at $[0])",
    ]


GUEST = [
    ("({ f() {} })", r"a function cannot cross to the host \(at \$\.f\)"),
    ("[1, Symbol()]", r"a symbol cannot cross to the host \(at \$\[1\]\)"),
    ("({ p: new Proxy({}, {}) })", r"a proxy cannot cross to the host \(at \$\.p\)"),
    ("({ get g() { return 1 } })", r"an accessor property cannot cross to the host \(at \$\.g\)"),
    ("new (class A {})()", "an object that is not a plain object or array cannot cross"),
    ("{ const o = {}; o.self = o; o }", "an object reached twice"),
    ("'\\uD800'", "a string with a lone surrogate"),
    ("({ when: new Date(NaN) })", r"an invalid Date cannot cross to the host \(at \$\.when\)"),
    ("[new Date(-8.64e15)]", r"a Date outside the years 1 to 9999 cannot cross to the host \(at \$\[0\]\)"),
]


@pytest.mark.parametrize("source, message", GUEST, ids=[g[0] for g in GUEST])
def test_guest_values_that_cannot_cross_are_refused_with_their_path(source, message):
    with pytest.raises(kiln.BoundaryError, match=message) as caught:
        kiln.run(source)
    assert caught.value.kind == "Boundary"


def test_arguments_that_cannot_cross_are_a_type_error_in_the_guest():
    out = kiln.run(
        "const seen = []; for (const a of [{ a: [() => 1] }, { when: new Date(NaN) }]) { try { tools.take(a) } catch (e) { seen.push(e.message) } } seen",
        capabilities={"tools": {"take": lambda a: "unreached"}},
    )
    assert out == [
        "tools.take: a function cannot cross to the host (at $[0].a[0])",
        "tools.take: an invalid Date cannot cross to the host (at $[0].when)",
    ]


def test_plain_data_of_every_kind_crosses_both_ways_unchanged():
    value = {
        "n": [0, -1, 2**31, -(2**31) - 1, 1.5, math.inf, -math.inf],
        "s": ["", "ascii", "ünïcødé ✓", "😀" * 100],
        "b": [True, False, None],
        "big": 123456789012345678901234567890,
        "negative_big": -(2**64),
        "when": datetime(2026, 11, 27, 12, 30, 1, 250000, tzinfo=timezone.utc),
        "bytes": b"\x00\x01\xff",
        "nested": {"a": {"b": {"c": [[], {}]}}},
        "tuple": (1, (2, 3)),
        "2": "integer keys first in the guest",
        "__proto__": "an own property",
    }
    back = kiln.run("input", inputs={"input": value})
    expected = dict(value, tuple=[1, [2, 3]])
    # the guest orders integer keys first, as JavaScript does
    assert list(back) == ["2"] + [k for k in value if k != "2"]
    assert back == expected
    assert math.isnan(kiln.run("input", inputs={"input": math.nan}))


def test_numbers_within_2_53_are_ints_and_others_floats_or_bigints():
    assert kiln.run("[2 ** 53 - 1, -(2 ** 53 - 1), 2 ** 53, 1e21, 2.0, 0.5]") == [
        2**53 - 1,
        -(2**53 - 1),
        float(2**53),
        1e21,
        2,
        0.5,
    ]
    kinds = kiln.run("[2 ** 53, 2.0].map((n) => typeof n)")
    assert kinds == ["number", "number"]
    assert [type(v) for v in kiln.run("[2 ** 53, 2.0, 10n]")] == [float, int, int]
    assert kiln.run("input.map((n) => typeof n)", inputs={"input": [2**53 - 1, 2**53, -(2**53), 1.0, True]}) == [
        "number",
        "bigint",
        "bigint",
        "number",
        "boolean",
    ]


def test_datetimes_cross_as_dates_to_the_millisecond_in_utc():
    oslo = timezone(timedelta(hours=1))
    when = datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=oslo)
    out = kiln.run("[input.toISOString(), input]", inputs={"input": when})
    assert out[0] == "2026-01-02T02:04:05.678Z"
    assert out[1] == datetime(2026, 1, 2, 2, 4, 5, 678000, tzinfo=timezone.utc)
    assert out[1].tzinfo is timezone.utc


def test_bytearrays_cross_as_uint8arrays_and_come_back_as_bytes():
    assert kiln.run("[input instanceof Uint8Array, input.length, input]", inputs={"input": bytearray(b"ab")}) == [
        True,
        2,
        b"ab",
    ]
    assert kiln.run("new Uint8Array([1, 2, 3]).buffer") == b"\x01\x02\x03"


class _Meddling(tzinfo):
    """A tzinfo whose utcoffset changes the containers being read."""

    def __init__(self, victim):
        self.victim = victim

    def utcoffset(self, dt):
        if isinstance(self.victim, dict):
            self.victim["added"] = 1
        else:
            self.victim.clear()
        return timedelta(0)


def test_a_container_changed_while_it_is_read_is_refused():
    # containers are read in place; the only Python code reading runs is a tzinfo's
    record = {"a": None, "b": 2}
    record["a"] = datetime(2020, 1, 1, tzinfo=_Meddling(record))
    with pytest.raises(kiln.BoundaryError) as caught:
        kiln.run("1", inputs={"x": record})
    assert str(caught.value) == "inputs: a dict that changed while it was read cannot cross to the guest (at $.x)"
    items = [None, 2, 3]
    items[0] = datetime(2020, 1, 1, tzinfo=_Meddling(items))
    with pytest.raises(kiln.BoundaryError) as caught:
        kiln.run("1", inputs={"x": items})
    assert str(caught.value) == "inputs: a list that changed while it was read cannot cross to the guest (at $.x)"
