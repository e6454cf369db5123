// TypeScript sources: types stripped by the engine, positions kept, the rest refused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { run, start, KilnError } from 'kiln-sandbox';

const TYPED = `
interface Order { id: string; total: number; tags?: string[] }
type Summary = { count: number; revenue: number };
function summarise<T extends Order>(orders: readonly T[], min: number = 0): Summary {
  const kept = orders.filter((o): o is T => o.total >= min);
  return { count: kept.length, revenue: kept.reduce((s, o) => s + o.total, 0) } satisfies Summary;
}
abstract class Shape { abstract area(): number; describe(this: Shape): string { return this.area().toFixed(1) } }
class Square extends Shape { constructor(private readonly side: number) { super() } area() { return this.side ** 2 } }
const orders = (await tools.orders()) as Order[];
return { ...summarise(orders, 10), first: orders[0]!.id };
`;

test('a TypeScript agent script runs with its types stripped', async () => {
  const source = TYPED.replace('class Square extends Shape { constructor(private readonly side: number) { super() } area() { return this.side ** 2 } }\n', '');
  const out = await run(source, {
    typescript: true,
    capabilities: { tools: { orders: async () => [{ id: 'a', total: 5 }, { id: 'b', total: 20 }, { id: 'c', total: 30 }] } },
  });
  assert.deepEqual(out, { count: 2, revenue: 50, first: 'a' });
  const viaFilename = await start('const n: number = 2; return n satisfies number', { filename: 'job.mts' });
  assert.equal(viaFilename.value, 2);
});

test('errors point at the original line and column', async () => {
  const typed = 'type T = { a: number };\nconst x: T = { a: 1 };\nconst y: T | null = null;\n  y!.a;';
  // the same program with its types blanked out: every position is the same
  const blanked = '                       \nconst x    = { a: 1 };\nconst y           = null;\n  y .a;';
  const error = await run(typed, { typescript: true }).catch((e) => e);
  const plain = await run(blanked).catch((e) => e);
  assert.equal(error.kind, 'Exception');
  assert.equal(error.guestName, 'TypeError');
  assert.deepEqual([error.location.file, error.location.line, error.location.column], ['agent.ts', 4, plain.location.column]);
  assert.equal(plain.location.line, 4);
});

test('syntax that is not only types is a Syntax error at the construct', async () => {
  const cases = [
    ['enum Color { Red, Green }\nreturn Color.Red', /enum is not supported/, 1],
    [TYPED, /parameter propert/i, 9],
    ['namespace N { export const x = 1 }\nreturn N.x', /namespace/i, 1],
  ];
  for (const [source, message, line] of cases) {
    const error = await run(source, { typescript: true, capabilities: { tools: { orders: async () => [] } } }).catch((e) => e);
    assert.ok(error instanceof KilnError, String(error));
    assert.equal(error.kind, 'Syntax');
    assert.match(error.message, message);
    assert.equal(error.location?.line, line, error.message);
  }
  // the same enum is a plain JavaScript syntax error in a .js script
  assert.equal((await run('enum Color { Red }').catch((e) => e)).kind, 'Syntax');
});
