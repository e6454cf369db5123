// The codemode-style Executor: tools as codemode.*, logs collected, never throws.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Executor } from 'kiln-sandbox';

const fns = {
  getWeather: async ({ city }) => ({ city, celsius: city.length * 3 }),
  add: (a, b) => a + b,
};

test('an async function expression is called with the tools as codemode.*', async () => {
  const executor = new Executor();
  const out = await executor.execute(
    `async () => {
       const [a, b] = await Promise.all([codemode.getWeather({ city: 'Oslo' }), codemode.getWeather({ city: 'Rome' })]);
       console.log('warmest', a.celsius > b.celsius ? a.city : b.city);
       console.warn('careful');
       return codemode.add(a.celsius, b.celsius);
     }`,
    fns,
  );
  assert.deepEqual(out, { result: 24, logs: ['warmest Rome', '[warn] careful'] });
});

test('an agent script runs as it is', async () => {
  const out = await new Executor().execute('const w = await codemode.getWeather({ city: "Lima" }); return w.celsius', fns);
  assert.deepEqual(out, { result: 12, logs: [] });
});

test('errors come back as values', async () => {
  const executor = new Executor({ limits: { fuel: 10_000 } });
  const thrown = await executor.execute('async () => { console.log("before"); throw new Error("bad tool input") }', fns);
  assert.deepEqual(thrown, { result: undefined, error: 'Error: bad tool input', kind: 'Exception', logs: ['before'] });
  const spent = await executor.execute('for (;;) {}', fns);
  assert.equal(spent.kind, 'OutOfFuel');
  const syntax = await executor.execute('async () => {', fns);
  assert.equal(syntax.kind, 'Syntax');
  const hostBug = await executor.execute('1', { notAFunction: 3 });
  assert.equal(hostBug.kind, 'Host');
  assert.match(hostBug.error, /must be a function/);
});
