// start(), Progress and snapshots.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { start, Progress, KilnError } from 'kiln-sandbox';

const AGENT = `
  const [user, orders] = await Promise.all([tools.user(input.id), tools.orders(input.id)]);
  const total = orders.reduce((sum, o) => sum + o.amount, 0);
  const note = await tools.note(user.name, total);
  return { user: user.name, total, note };
`;

async function suspendedAgent(options = {}) {
  return start(AGENT, { capabilities: ['tools.user', 'tools.orders', 'tools.note'], inputs: { input: { id: 7 } }, ...options });
}

test('a fan-out suspends with every call; answers continue it', async () => {
  let p = await suspendedAgent();
  assert.equal(p.status, 'suspended');
  assert.deepEqual(
    p.calls.map((c) => [c.capability, c.args]),
    [
      ['tools.user', [7]],
      ['tools.orders', [7]],
    ],
  );
  const [user, orders] = p.calls;
  p = await p.resume(orders.id, [{ amount: 5 }, { amount: 7 }]);
  assert.deepEqual(p.calls.map((c) => c.id), [user.id]);
  p = await p.resume(user.id, { name: 'Ada' });
  assert.deepEqual(p.calls.map((c) => [c.capability, c.args]), [['tools.note', ['Ada', 12]]]);
  p = await p.resume(p.calls[0].id, 'thanks');
  assert.equal(p.status, 'complete');
  assert.deepEqual(p.value, { user: 'Ada', total: 12, note: 'thanks' });
  assert.throws(() => p.resume(1, 1), /the execution is complete/);
});

test('resumeError reaches the guest as a catchable Error', async () => {
  let p = await start("try { await tools.get() } catch (e) { return [e.name, e.message, e.code] }", { capabilities: ['tools.get'] });
  const error = new Error('no access');
  error.code = 'EACCES';
  p = await p.resumeError(p.calls[0].id, error);
  assert.deepEqual(p.value, ['Error', 'no access', 'EACCES']);
});

test('a spent progress and an unknown call id are refused', async () => {
  const p = await suspendedAgent();
  assert.throws(() => p.resume(999, 1), /no outstanding call has the id 999/);
  const next = await p.resume(p.calls[0].id, { name: 'x' });
  assert.throws(() => p.resume(p.calls[1].id, []), /already resumed/);
  next.cancel();
  await assert.rejects(next.dump(), /already resumed/);
});

test('cancelling while a resume runs ends that resume with kind Cancelled', async () => {
  for (const isolation of ['thread', 'process']) {
    const p = await start('await tools.get(1); while (true) {}', {
      isolation,
      capabilities: ['tools.get'],
      limits: { fuel: 1e15, computeMs: 60_000 },
    });
    const running = p.resume(p.calls[0].id, 1);
    setTimeout(() => p.cancel(), 50);
    const error = await running.catch((e) => e);
    assert.ok(error instanceof KilnError, `${isolation}: ${error}`);
    assert.equal(error.kind, 'Cancelled');
  }
});

test('a script that needs no host completes at once', async () => {
  const p = await start('return 6 * 7');
  assert.equal(p.status, 'complete');
  assert.equal(p.value, 42);
  await assert.rejects(start('null.x'), (e) => e instanceof KilnError && e.kind === 'Exception');
});

test('dump and load continue the execution, with and without a key', async () => {
  for (const key of [undefined, 'a secret key']) {
    let p = await suspendedAgent();
    p = await p.resume(p.calls[0].id, { name: 'Ada' });
    const bytes = await p.dump({ key });
    assert.ok(Buffer.isBuffer(bytes) && bytes.length > 100);
    let q = await Progress.load(bytes, { key, capabilities: ['tools.user', 'tools.orders', 'tools.note'] });
    assert.deepEqual(q.calls.map((c) => c.capability), ['tools.orders']);
    q = await q.resume(q.calls[0].id, [{ amount: 1 }]);
    q = await q.resume(q.calls[0].id, 'ok');
    assert.deepEqual(q.value, { user: 'Ada', total: 1, note: 'ok' });
    // the original goes on too: a dump is a copy
    p = await p.resume(p.calls[0].id, [{ amount: 2 }]);
    assert.equal(p.calls[0].capability, 'tools.note');
  }
});

test('a snapshot loads once; a replay is refused', async () => {
  const p = await suspendedAgent();
  const bytes = await p.dump();
  await Progress.load(bytes, { capabilities: ['tools.user', 'tools.orders', 'tools.note'] });
  const replay = await Progress.load(bytes, { capabilities: ['tools.user'] }).catch((e) => e);
  assert.ok(replay instanceof KilnError);
  assert.equal(replay.kind, 'Snapshot');
  assert.match(replay.message, /already resumed/);
  // a store of the host's own decides instead
  const store = new Set();
  const fresh = await suspendedAgent();
  const again = await fresh.dump();
  await Progress.load(again, { capabilities: ['tools.user', 'tools.orders', 'tools.note'], snapshots: store });
  assert.equal(store.size, 1);
  await assert.rejects(Progress.load(again, { snapshots: store }), /already resumed/);
});

test('tampered, truncated and wrongly keyed snapshots are refused with kind Snapshot', async () => {
  const p = await suspendedAgent();
  const bytes = await p.dump({ key: 'k1' });
  const tampered = Buffer.from(bytes);
  tampered[tampered.length >> 1] ^= 0x40;
  const cases = [tampered, bytes.subarray(0, bytes.length - 7), bytes.subarray(0, 5), Buffer.from('not a snapshot')];
  for (const broken of cases) {
    const e = await Progress.load(broken, { key: 'k1' }).catch((e) => e);
    assert.ok(e instanceof KilnError, String(e));
    assert.equal(e.kind, 'Snapshot');
  }
  const wrongKey = await Progress.load(bytes, { key: 'k2' }).catch((e) => e);
  assert.equal(wrongKey.kind, 'Snapshot');
  const noKey = await Progress.load(bytes).catch((e) => e);
  assert.equal(noKey.kind, 'Snapshot');
});

test('a snapshot dumped in one process resumes in another with the same result', async () => {
  let p = await suspendedAgent();
  p = await p.resume(p.calls[1].id, [{ amount: 40 }, { amount: 2 }]);
  const bytes = await p.dump({ key: 'shared key' });
  const child = fileURLToPath(new URL('./fixtures/resume-snapshot.mjs', import.meta.url));
  const out = execFileSync(process.execPath, [child], { input: bytes, encoding: 'utf8' });
  assert.deepEqual(JSON.parse(out), { user: 'Grace', total: 42, note: 'from another process' });
});
