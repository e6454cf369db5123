// What may cross between host and guest, and the path of what may not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { run, KilnError } from 'kiln-sandbox';

class Point {
  constructor() {
    this.x = 1;
  }
}

test('host values that cannot cross are refused with their path', async () => {
  const cyclic = { a: {} };
  cyclic.a.back = cyclic;
  const shared = { x: 1 };
  const accessor = {};
  Object.defineProperty(accessor, 'secret', { get: () => 'never read', enumerable: true });
  const cases = [
    [{ f: () => 1 }, 'a function', '$.input.f'],
    [{ list: [1, Symbol('s')] }, 'a symbol', '$.input.list[1]'],
    [{ p: new Proxy({}, {}) }, 'a proxy', '$.input.p'],
    [{ deep: { o: accessor } }, 'an accessor property', '$.input.deep.o.secret'],
    [{ point: new Point() }, 'an object that is not a plain object or array', '$.input.point'],
    [{ m: new Map() }, 'an object that is not a plain object or array', '$.input.m'],
    [cyclic, 'an object reached twice (cycle or shared)', '$.input.a.back'],
    [{ one: shared, two: shared }, 'an object reached twice (cycle or shared)', '$.input.two'],
    [{ [Symbol('k')]: 1 }, 'a symbol-keyed property', '$.input'],
    [{ text: 'a\uD800b' }, 'a string with a lone surrogate', '$.input.text'],
  ];
  for (const [input, what, path] of cases) {
    const error = await run('input', { inputs: { input } }).catch((e) => e);
    assert.ok(error instanceof KilnError, `${path}: ${error}`);
    assert.equal(error.kind, 'Boundary');
    assert.equal(error.message, `inputs: ${what} cannot cross to the guest (at ${path})`);
  }
  let deep = 1;
  for (let i = 0; i < 70; i++) deep = [deep];
  const tooDeep = await run('input', { inputs: { input: deep } }).catch((e) => e);
  assert.match(tooDeep.message, /nesting deeper than the limit/);
});

test('a host function result that cannot cross is a TypeError in the guest', async () => {
  const out = await run(
    'const seen = []; for (const f of [tools.sync, tools.async]) { try { await f() } catch (e) { seen.push(e.name + ": " + e.message) } } seen',
    { capabilities: { tools: { sync: () => ({ f() {} }), async: async () => [new Point()] } } },
  );
  assert.deepEqual(out, [
    'TypeError: tools.sync returned a function, which cannot cross to the guest (at $.f)',
    'TypeError: tools.async returned an object that is not a plain object or array, which cannot cross to the guest (at $[0])',
  ]);
});

test('guest values that cannot cross are refused with their path', async () => {
  const results = [
    ['({ f() {} })', /a function cannot cross to the host \(at \$\.f\)/],
    ['[1, Symbol()]', /a symbol cannot cross to the host \(at \$\[1\]\)/],
    ['({ p: new Proxy({}, {}) })', /a proxy cannot cross to the host \(at \$\.p\)/],
    ['({ get g() { return 1 } })', /an accessor property cannot cross to the host \(at \$\.g\)/],
    ['new (class A {})()', /an object that is not a plain object or array cannot cross/],
    ['{ const o = {}; o.self = o; o }', /an object reached twice/],
    ["'\\uD800'", /a string with a lone surrogate/],
  ];
  for (const [source, message] of results) {
    const error = await run(source).catch((e) => e);
    assert.ok(error instanceof KilnError, source);
    assert.equal(error.kind, 'Boundary', source);
    assert.match(error.message, message, source);
  }
  // arguments of host calls: the guest sees a TypeError naming the path
  const out = await run('try { tools.take({ a: [() => 1] }) } catch (e) { e.message }', {
    capabilities: { tools: { take: () => 'unreached' } },
  });
  assert.match(out, /tools\.take: a function cannot cross to the host \(at \$\[0\]\.a\[0\]\)/);
});

test('getters and proxy traps never run while values cross', async () => {
  let ran = false;
  const trap = new Proxy({}, { ownKeys: () => ((ran = true), []), get: () => ((ran = true), 1) });
  const withGetter = Object.defineProperty({}, 'x', { get: () => ((ran = true), 1), enumerable: true });
  await run('1', { inputs: { a: trap } }).catch(() => {});
  await run('1', { inputs: { b: withGetter } }).catch(() => {});
  assert.equal(ran, false);
  const guestRan = await run(
    'let ran = false; const o = { get x() { ran = true; return 1 } }; try { tools.see(o) } catch {} ran',
    { capabilities: { tools: { see: () => null } } },
  );
  assert.equal(guestRan, false);
});

test('plain data of every kind crosses both ways unchanged', async () => {
  const value = {
    n: [0, -1, 2 ** 31, -(2 ** 31) - 1, 1.5, NaN, Infinity, -Infinity],
    s: ['', 'ascii', 'ünïcødé ✓', '😀'.repeat(100)],
    b: [true, false, null, undefined],
    big: 123456789012345678901234567890n,
    when: new Date(Date.UTC(2026, 10, 27)),
    bytes: new Uint8Array([0, 1, 255]),
    nested: { a: { b: { c: [[], {}] } } },
    '2': 'integer keys first',
    __proto__: null,
  };
  const back = await run('input', { inputs: { input: value } });
  assert.deepEqual(back, { ...value });
  assert.equal(Object.getPrototypeOf(back), Object.prototype);
  const proto = await run('JSON.parse(\'{"__proto__": {"polluted": 1}}\')');
  assert.equal(Object.getPrototypeOf(proto), Object.prototype);
  assert.deepEqual(Object.keys(proto), ['__proto__']);
  assert.equal({}.polluted, undefined);
});
