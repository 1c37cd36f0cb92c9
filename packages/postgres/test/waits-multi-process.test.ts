import { createTidings, type Tidings } from '@tidings/core';
import { afterEach, describe, expect, it } from 'vitest';
import { killSpawned, spawnTs, waitForOutput } from '../../../test-support/spawn-ts.js';
import { postgresStorage } from '../src/index.js';
import { freshSchemas } from './schemas.js';

// A failing test must not leave its child processes running.
afterEach(killSpawned);

const url = process.env['TIDINGS_TEST_PG_URL'];
const SENDER = 'packages/postgres/test/fixtures/signal-sender.ts';
const WORKER = 'packages/postgres/test/fixtures/worker.ts';
const RUNS = 200;

/** Polls `read` until it gives `expected` (the test's own guard is its timeout). */
async function until<T>(read: () => Promise<T>, expected: T): Promise<T> {
  for (;;) {
    const value = await read();
    if (JSON.stringify(value) === JSON.stringify(expected)) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** 200 runs, one per subscriber, each waiting for `go` at its wait step (walked to it here). */
async function seedWaits(tidings: Tidings): Promise<void> {
  await tidings.workflows.upsert({
    name: 'waiting',
    triggers: [{ identifier: 'waiting' }],
    steps: [{ _id: 'w', template: { type: 'wait' }, metadata: { event: 'go', timeout: '1d' } }, { template: { type: 'in_app', content: 'went on with {{ steps.w.event.data.n }}' } }],
  });
  for (let i = 0; i < RUNS; i += 100) await tidings.triggerBulk(Array.from({ length: 100 }, (_, k) => ({ name: 'waiting', to: `u${i + k}` })));
}

const waitJobs = async (tidings: Tidings) => (await tidings.pending()).jobs.filter((j) => j.kind === 'wait').length;

/** Each run went on once: one message per subscriber, saying the signal's number, and explain's `ran` at the wait once. */
async function expectEachResumedOnce(tidings: Tidings): Promise<void> {
  for (let i = 0; i < RUNS; i++) {
    const items = (await tidings.messages.feed(`u${i}`, { limit: 10 })).items;
    expect(items.map((m) => m.content), `u${i}`).toEqual([`went on with ${i}`]);
    const ran = (await tidings.explain(items[0]!.transactionId, `u${i}`)).flatMap((r) => r.entries).filter((e) => e.type === 'wait' && e.decision === 'ran');
    expect(ran, `u${i}`).toHaveLength(1);
  }
}

describe.skipIf(!url)('postgres — waits and signals across processes', () => {
  const freshSchema = freshSchemas(url, 'tidings_waits');

  it('200 waiting runs, 200 signals sent by each of two processes at once: each run resumed exactly once', async () => {
    const schema = freshSchema();
    const storage = postgresStorage({ connectionString: url!, schema });
    const tidings = createTidings({ storage, inlineInApp: false });
    await seedWaits(tidings);
    while ((await tidings.runDue()) > 0);
    expect(await waitJobs(tidings)).toBe(RUNS);
    const senders = [spawnTs(SENDER, [url!, schema, String(RUNS)]), spawnTs(SENDER, [url!, schema, String(RUNS)])];
    await Promise.all(senders.map((s) => waitForOutput(s, 'READY')));
    await storage.settings.put('default', 'go', true);
    await Promise.all(senders.map((s) => waitForOutput(s, /RESUMED \d+/)));
    const resumed = senders.map((s) => Number(/RESUMED (\d+)/.exec(s.output())![1]));
    // No lost and no doubled resume: together exactly one per run.
    expect(resumed.reduce((a, b) => a + b, 0)).toBe(RUNS);
    while ((await tidings.runDue()) > 0);
    await expectEachResumedOnce(tidings);
    await storage.close();
  }, 120_000);

  it('SIGKILL while waits are pending (a worker, then a signal sender mid-way) loses none: every run resumes once', async () => {
    const schema = freshSchema();
    const storage = postgresStorage({ connectionString: url!, schema });
    const tidings = createTidings({ storage, inlineInApp: false });
    await seedWaits(tidings);
    // A worker process walks the runs to their waits, and is killed with them pending.
    const worker = spawnTs(WORKER, ['work', url!, schema]);
    await waitForOutput(worker, 'READY');
    await until(() => waitJobs(tidings), RUNS);
    worker.kill('SIGKILL');
    await worker.exited;
    // A sender is killed part way through its signals.
    const sender = spawnTs(SENDER, [url!, schema, String(RUNS)]);
    await waitForOutput(sender, 'READY');
    await storage.settings.put('default', 'go', true);
    await waitForOutput(sender, /SENT [5-9]\d\n/);
    sender.kill('SIGKILL');
    await sender.exited;
    expect(sender.output()).not.toMatch(/RESUMED/);
    // The waits it did not end are still there; sending every signal again ends exactly those.
    const left = (await tidings.pending()).jobs.filter((j) => j.kind === 'wait').length;
    expect(left).toBeGreaterThan(0);
    let resumed = 0;
    for (let i = 0; i < RUNS; i++) resumed += (await tidings.signal('go', { subscriberId: `u${i}`, data: { n: i } })).resumed;
    expect(resumed).toBeLessThan(RUNS);
    while ((await tidings.runDue()) > 0);
    await expectEachResumedOnce(tidings);
    await storage.close();
  }, 120_000);
});
