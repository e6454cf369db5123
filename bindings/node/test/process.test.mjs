// isolation: 'process': the same API, with each guest in a kiln-worker process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { run, start, Progress, KilnError } from 'kiln-sandbox';

const isolation = 'process';

/** The idle workers a pool keeps (MAX_IDLE in crates/kiln_bridge/src/process.rs). */
const MAX_IDLE = 8;

/** The pids of this process's kiln-worker children. */
function workers() {
  const pids = [];
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    let stat;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8'); // "pid (comm) state ppid ..."
    } catch {
      continue; // it has just gone
    }
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 1).trim().split(' ')[1]);
    if (ppid === process.pid && comm.startsWith('kiln-worker')) pids.push(Number(entry));
  }
  return pids;
}

test('runs with host functions, inputs and console in a worker process', async () => {
  const lines = [];
  const out = await run("console.log('hi', input.n); const [a, b] = await Promise.all([tools.a(1), tools.b(2)]); a + b + add(1, 2)", {
    isolation,
    inputs: { input: { n: 1 } },
    console: { log: (l) => lines.push(l) },
    capabilities: { tools: { a: async (x) => x * 10, b: async (x) => x * 100 }, add: (x, y) => x + y },
  });
  assert.equal(out, 213);
  assert.deepEqual(lines, ['hi 1']);
  assert.ok(workers().length >= 1);
});

test('budgets, exceptions and cancellation work as in-process', async () => {
  assert.equal((await run('for (;;) {}', { isolation, limits: { fuel: 1000 } }).catch((e) => e)).kind, 'OutOfFuel');
  const thrown = await run('\nthrow new RangeError("nope")', { isolation }).catch((e) => e);
  assert.deepEqual([thrown.kind, thrown.guestName, thrown.guestMessage, thrown.location.line], ['Exception', 'RangeError', 'nope', 2]);
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 50);
  const cancelled = await run('while (true) {}', { isolation, signal: controller.signal, limits: { fuel: 1e15, computeMs: 60_000 } }).catch((e) => e);
  assert.equal(cancelled.kind, 'Cancelled');
  // the worker that ran the endless loop serves the next guest
  assert.equal(await run('1 + 1', { isolation }), 2);
});

test('answers given in one turn of the loop reach the worker as one step, in the order given', async () => {
  const source = readFileSync(new URL('./fixtures/settled-together.js', import.meta.url), 'utf8');
  const capabilities = { tools: { a: async () => 1, b: async () => 2 } };
  assert.equal(await run(source, { isolation, capabilities }), 'a b a+1');
});

test('snapshots move between the two isolations', async () => {
  let p = await start('const a = await tools.get("a"); const b = await tools.get(a); a + b', { isolation, capabilities: ['tools.get'] });
  p = await p.resume(p.calls[0].id, 'x');
  const bytes = await p.dump({ key: 'k' });
  let q = await Progress.load(bytes, { key: 'k', capabilities: ['tools.get'] });
  q = await q.resume(q.calls[0].id, 'y');
  assert.equal(q.value, 'xy');
  let r = await start('await tools.get("z")', { capabilities: ['tools.get'] });
  const inProcess = await r.dump();
  r = await Progress.load(inProcess, { isolation, capabilities: ['tools.get'] });
  r = await r.resume(r.calls[0].id, 'from a worker');
  assert.equal(r.value, 'from a worker');
});

test('a dumped execution gives its worker back, and goes on from its bytes when resumed', async () => {
  // executions dumped and kept (never collected) hold no worker between them
  const source = 'const a = await tools.get(1); const b = await tools.get(a + 1); [a, b]';
  const kept = [];
  for (let i = 0; i < MAX_IDLE + 4; i++) {
    const p = await start(source, { isolation, capabilities: ['tools.get'] });
    await p.dump({ key: 'k' });
    kept.push(p);
  }
  assert.ok(workers().length <= MAX_IDLE, `${workers().length} workers`);
  // a kept one goes on where it was dumped, dumps again, and completes
  let p = kept[0];
  p = await p.resume(p.calls[0].id, 10);
  assert.deepEqual(p.calls.map((c) => c.args), [[11]]);
  const again = await p.dump();
  p = await p.resume(p.calls[0].id, 'b');
  assert.deepEqual([p.status, p.value], ['complete', [10, 'b']]);
  // the bytes of its second dump load once, as any snapshot's
  let q = await Progress.load(again, { isolation, capabilities: ['tools.get'] });
  q = await q.resume(q.calls[0].id, 'c');
  assert.deepEqual(q.value, [10, 'c']);
  for (const k of kept.slice(1)) k.cancel();
});

test('a worker killed mid-run fails that run with kind Engine; the host and the pool go on', async () => {
  const pending = run('tools.ready(); while (true) {}', {
    isolation,
    limits: { fuel: 1e15, computeMs: 60_000 },
    capabilities: { tools: { ready: () => null } },
  });
  await sleep(100);
  const before = workers();
  assert.ok(before.length >= 1);
  for (const pid of before) process.kill(pid, 'SIGKILL');
  const error = await pending.catch((e) => e);
  assert.ok(error instanceof KilnError);
  assert.equal(error.kind, 'Engine');
  assert.match(error.message, /killed by signal 9/);
  // the idle workers were killed too, and may not have exited yet: the next run moves
  // to a fresh worker if the one it is given turns out dead
  assert.equal(await run('"still here"', { isolation }), 'still here');
});

test('idle workers killed just before runs cost those runs nothing', async () => {
  const square = (n) => run('input.n * input.n', { isolation, inputs: { input: { n } } });
  for (let round = 0; round < 5; round++) {
    // several idle workers, all killed, then as many runs at once
    assert.deepEqual(await Promise.all([1, 2, 3].map(square)), [1, 4, 9]);
    const idle = workers();
    assert.ok(idle.length >= 1);
    for (const pid of idle) process.kill(pid, 'SIGKILL');
    assert.deepEqual(await Promise.all([4, 5, 6].map(square)), [16, 25, 36]);
  }
});

test('runs refused at their inputs take no worker', async () => {
  const inputs = { input: { f: () => 1 } };
  for (let round = 0; round < 20; round++) {
    const error = await (round % 2 ? start : run)('input', { isolation, inputs }).catch((e) => e);
    assert.ok(error instanceof KilnError, `round ${round}: ${error}`);
    assert.equal(error.kind, 'Boundary');
    assert.equal(error.message, 'inputs: a function cannot cross to the guest (at $.input.f)');
    assert.ok(workers().length <= MAX_IDLE, `round ${round}`);
  }
  assert.equal(await run('input.n * 14', { isolation, inputs: { input: { n: 3 } } }), 42);
  assert.ok(workers().length <= MAX_IDLE);
});
