// run(): results, capabilities, inputs, console, errors and cancellation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { run, KilnError } from 'kiln-sandbox';

test('the result is what the script returns, or its last expression', async () => {
  assert.equal(await run('1 + 2'), 3);
  assert.equal(await run('const x = await Promise.resolve(20); return x + 1'), 21);
  assert.deepEqual(await run('[1, "two", null, undefined, true, 2.5, -0]'), [1, 'two', null, undefined, true, 2.5, -0]);
  assert.ok(Object.is((await run('-0')), -0));
  assert.deepEqual(await run('({ n: 10n ** 20n, d: new Date(5), b: new Uint8Array([1, 2]) })'), {
    n: 10n ** 20n,
    d: new Date(5),
    b: new Uint8Array([1, 2]),
  });
});

test('property order survives both directions', async () => {
  const record = { name: 'kiln', id: 7, zeta: 1, alpha: 2 };
  const out = await run('const r = await tools.get(); ({ ...r, keys: Object.keys(r).join() })', {
    capabilities: { tools: { get: async () => record } },
  });
  assert.deepEqual(Object.keys(out), ['name', 'id', 'zeta', 'alpha', 'keys']);
  assert.equal(out.keys, 'name,id,zeta,alpha');
});

test('inputs are globals the guest sees as copies', async () => {
  const input = { items: [3, 1, 2], label: 'x' };
  const out = await run('input.items.sort(); input.label += "!"; [input.items, input.label]', { inputs: { input } });
  assert.deepEqual(out, [[1, 2, 3], 'x!']);
  assert.deepEqual(input, { items: [3, 1, 2], label: 'x' });
});

test('host functions: synchronous ones return in place, async ones give promises', async () => {
  const out = await run(
    `const sum = add(2, 3);
     const later = tools.search('kiln');
     const text = typeof later.then;
     [sum, text, await later, await tools.lookup(1)]`,
    {
      capabilities: {
        add: (a, b) => a + b,
        tools: { search: async (q) => `found ${q}` },
        'tools.lookup': (id) => Promise.resolve({ id }),
      },
    },
  );
  assert.deepEqual(out, [5, 'function', 'found kiln', { id: 1 }]);
});

test('a host function that throws or rejects is an Error the guest can catch', async () => {
  const failing = {
    sync: () => {
      const e = new RangeError('out of range');
      e.code = 'E_RANGE';
      throw e;
    },
    async rejects() {
      throw new TypeError('bad input');
    },
    plain: () => Promise.reject('just a string'),
  };
  const out = await run(
    `const seen = [];
     try { tools.sync() } catch (e) { seen.push([e instanceof Error, e.name, e.message, e.code]) }
     try { await tools.rejects() } catch (e) { seen.push([e instanceof Error, e.name, e.message]) }
     try { await tools.plain() } catch (e) { seen.push([e instanceof Error, e.name, e.message]) }
     seen`,
    { capabilities: { tools: failing } },
  );
  assert.deepEqual(out, [
    [true, 'RangeError', 'out of range', 'E_RANGE'],
    [true, 'TypeError', 'bad input'],
    [true, 'Error', 'just a string'],
  ]);
});

test('fan-out runs the host functions concurrently', async () => {
  const log = [];
  const slow = async (name) => {
    log.push(`start ${name}`);
    await sleep(100);
    log.push(`end ${name}`);
    return name.toUpperCase();
  };
  const out = await run("await Promise.all([tools.a('a'), tools.b('b'), tools.c('c')])", {
    capabilities: { tools: { a: slow, b: slow, c: slow } },
  });
  assert.deepEqual(out, ['A', 'B', 'C']);
  // every call started before the first one finished
  assert.deepEqual(log.slice(0, 3).sort(), ['start a', 'start b', 'start c']);
  assert.equal(log.length, 6);
});

test('console lines go to the console callbacks, one formatted line per call', async () => {
  const lines = [];
  const sink = { log: (l) => lines.push(['log', l]), warn: (l) => lines.push(['warn', l]), error: (l) => lines.push(['error', l]) };
  await run("console.log('%s has %d', 'cart', 3, { total: 9.5 }); console.warn('w'); console.error(new Error('e').message); console.info('i')", {
    console: sink,
  });
  assert.deepEqual(lines, [
    ['log', 'cart has 3 { total: 9.5 }'],
    ['warn', 'w'],
    ['error', 'e'],
    ['log', 'i'],
  ]);
  assert.equal(await run('typeof console'), 'undefined');
});

test('an uncaught exception is a KilnError with the guest name, message, stack and location', async () => {
  const error = await run('const a = 1;\nfunction f() { null.x }\nf()', { filename: 'agent.js' }).catch((e) => e);
  assert.ok(error instanceof KilnError);
  assert.equal(error.kind, 'Exception');
  assert.equal(error.guestName, 'TypeError');
  assert.match(error.message, /^TypeError: /);
  assert.deepEqual([error.location.file, error.location.line], ['agent.js', 2]);
  assert.match(error.guestStack, /agent\.js:2:\d+/);
  const thrown = await run('throw { code: 42 }').catch((e) => e);
  assert.equal(thrown.kind, 'Exception');
  const syntax = await run('let = = 1').catch((e) => e);
  assert.equal(syntax.kind, 'Syntax');
  assert.equal(syntax.guestName, 'SyntaxError');
});

test('every budget ends the run with its kind', async () => {
  const cases = [
    ['for (;;) {}', { fuel: 100_000 }, 'OutOfFuel'],
    ["const a = []; for (;;) a.push('x'.repeat(1000) + a.length)", { heapBytes: 8 << 20 }, 'HeapLimit'],
    ['function f() { return f() + 1 } f()', { callDepth: 100 }, 'CallDepth'],
    ['for (;;) {}', { computeMs: 30, fuel: 1e15 }, 'ComputeTime'],
    ['for (let i = 0; i < 10; i++) await tools.noop()', { hostCalls: 3 }, 'HostCalls'],
  ];
  for (const [source, limits, kind] of cases) {
    const error = await run(source, { limits, capabilities: { tools: { noop: async () => null } } }).catch((e) => e);
    assert.ok(error instanceof KilnError, `${source}: ${error}`);
    assert.equal(error.kind, kind, source);
  }
  // defaults bound everything
  const error = await run('for (;;) {}').catch((e) => e);
  assert.ok(['OutOfFuel', 'ComputeTime'].includes(error.kind));
});

test('an AbortSignal cancels a guest in an endless loop', async () => {
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 50);
  const started = Date.now();
  const error = await run('while (true) {}', { signal: controller.signal, limits: { fuel: 1e15, computeMs: 60_000 } }).catch((e) => e);
  assert.equal(error.kind, 'Cancelled');
  assert.ok(Date.now() - started < 30_000);
  const already = await run('1', { signal: AbortSignal.abort() }).catch((e) => e);
  assert.equal(already.kind, 'Cancelled');
});


test('an AbortSignal cancels a guest waiting for a host function (abort after the call)', async () => {
  const controller = new AbortController();
  const pending = run('await tools.never()', {
    signal: controller.signal,
    capabilities: { tools: { never: () => { setTimeout(() => controller.abort(), 10); return new Promise(() => {}); } } },
  });
  const error = await pending.catch((e) => e);
  assert.equal(error.kind, 'Cancelled');
});

test('node\'s event loop takes turns while the guest computes', async () => {
  // the guest computes until a timer has fired: it ends only if the loop ran meanwhile
  let fired = false;
  setTimeout(() => { fired = true; }, 1);
  const source = 'let spins = 0; while (!host.fired()) { for (let i = 0; i < 10000; i++) spins++; } "fired"';
  const out = await run(source, {
    capabilities: { host: { fired: () => fired } },
    limits: { fuel: 1e12, computeMs: 60_000, hostCalls: 1e9 },
  });
  assert.equal(out, 'fired');
});

test('an answer that arrives while the guest computes is applied after it waits', async () => {
  // tools.slow settles during the guest's computation; the guest then awaits it
  let settled = false;
  const source = `
    const answer = tools.slow(21);
    let spins = 0;
    while (!tools.settled()) { for (let i = 0; i < 10000; i++) spins++; }
    (await answer) * 2`;
  const out = await run(source, {
    capabilities: {
      tools: {
        slow: (n) => new Promise((resolve) => setTimeout(() => { settled = true; resolve(n); }, 1)),
        settled: () => settled,
      },
    },
    limits: { fuel: 1e12, computeMs: 60_000, hostCalls: 1e9 },
  });
  assert.equal(out, 42);
});

/** A guest that tells whether its two calls' answers settled in one step. */
const SETTLED_TOGETHER = readFileSync(new URL('./fixtures/settled-together.js', import.meta.url), 'utf8');

test('answers given in one turn of the loop settle in one step, in the order given', async () => {
  const capabilities = { tools: { a: async () => 1, b: async () => 2 } };
  assert.equal(await run(SETTLED_TOGETHER, { capabilities }), 'a b a+1');
});

test('answers that come in different turns while the guest computes settle in one step', async () => {
  // tools.a's answer comes in the first turn, tools.b's in a later one; tools.settled
  // turns true in a turn after that, so both wait until the guest rests
  let settled = false;
  const source = `const log = [];
    const a = tools.a().then(() => { log.push('a'); Promise.resolve().then(() => log.push('a+1')); });
    const b = tools.b().then(() => log.push('b'));
    let spins = 0;
    while (!tools.settled()) { for (let i = 0; i < 10000; i++) spins++; }
    await Promise.all([a, b]);
    log.join(' ')`;
  const out = await run(source, {
    capabilities: {
      tools: {
        a: () => Promise.resolve(1),
        b: () => new Promise((resolve) => setTimeout(() => { resolve(2); setTimeout(() => { settled = true; }, 0); }, 1)),
        settled: () => settled,
      },
    },
    limits: { fuel: 1e12, computeMs: 60_000, hostCalls: 1e9 },
  });
  assert.equal(out, 'a b a+1');
});

test('every run starts on a fresh runtime, also one made while node was idle', async () => {
  assert.equal(await run('globalThis.leak = 1; Array.prototype.extra = 2; typeof leak'), 'number');
  assert.deepEqual(await run('[typeof leak, [].extra]'), ['undefined', undefined]);
  await new Promise((resolve) => setTimeout(resolve, 5));
  assert.equal(await run('globalThis.leak = 1; typeof leak'), 'number');
  await new Promise((resolve) => setTimeout(resolve, 5));
  assert.deepEqual(await run('[typeof leak, [].extra]'), ['undefined', undefined]);
});

test('eval is off unless allowed, and hardened freezes the intrinsics', async () => {
  assert.equal((await run('eval("1")').catch((e) => e)).guestName, 'EvalError');
  assert.equal(await run('eval("1 + 1")', { allowEval: true }), 2);
  assert.equal(await run('Object.isFrozen(Array.prototype)', { hardened: true }), true);
  assert.equal(await run('Object.isFrozen(Array.prototype)'), false);
});

test('bad options are TypeErrors before anything runs', async () => {
  await assert.rejects(run(42), TypeError);
  await assert.rejects(run('1', { limits: { fuel: -1 } }), /limits.fuel must be a whole number/);
  await assert.rejects(run('1', { limits: { gas: 1 } }), /unknown limit gas/);
  await assert.rejects(run('1', { capabilities: { x: 3 } }), /capability x must be a function/);
  await assert.rejects(run('1', { isolation: 'vm' }), /isolation must be/);
});
