"""TypeScript sources: types stripped by the engine, positions kept, the rest refused."""

import pytest

import kiln

TYPED = """
interface Order { id: string; total: number; tags?: string[] }
type Summary = { count: number; revenue: number };
function summarise<T extends Order>(orders: readonly T[], min: number = 0): Summary {
  const kept = orders.filter((o): o is T => o.total >= min);
  return { count: kept.length, revenue: kept.reduce((s, o) => s + o.total, 0) } satisfies Summary;
}
const orders = (tools.orders()) as Order[];
return { ...summarise(orders, 10), first: orders[0]!.id };
"""


def test_a_typescript_agent_script_runs_with_its_types_stripped():
    orders = [{"id": "a", "total": 5}, {"id": "b", "total": 20}, {"id": "c", "total": 30}]
    out = kiln.run(TYPED, typescript=True, capabilities={"tools": {"orders": lambda: orders}})
    assert out == {"count": 2, "revenue": 50, "first": "a"}
    assert kiln.start("const n: number = 2; return n satisfies number", filename="job.mts").value == 2


def test_errors_point_at_the_original_line():
    with pytest.raises(kiln.GuestException) as caught:
        kiln.run("type T = { a: number };\nconst x: T = { a: 1 };\nconst y: T | null = null;\n  y!.a;", typescript=True)
    assert caught.value.guest_name == "TypeError"
    assert (caught.value.location.file, caught.value.location.line) == ("agent.ts", 4)


@pytest.mark.parametrize(
    "source, message",
    [
        ("enum Color { Red, Green }\nreturn Color.Red", "enum is not supported"),
        ("namespace N { export const x = 1 }\nreturn N.x", "namespace"),
    ],
)
def test_syntax_that_is_not_only_types_is_a_syntax_error(source, message):
    with pytest.raises(kiln.GuestSyntaxError, match=message) as caught:
        kiln.run(source, typescript=True)
    assert caught.value.kind == "Syntax"
    assert caught.value.location.line == 1
    # the same enum is a plain JavaScript syntax error in a .js script
    with pytest.raises(kiln.GuestSyntaxError):
        kiln.run("enum Color { Red }")
