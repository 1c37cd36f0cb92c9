import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTidings } from '@tidings/core';
import { afterAll, afterEach, expect, it } from 'vitest';
import { killSpawned, spawnTs, waitForOutput } from '../../../test-support/spawn-ts.js';
import { sqliteStorage } from '../src/index.js';

// A failing test must not leave its child processes running.
afterEach(killSpawned);

const dir = mkdtempSync(join(tmpdir(), 'tidings-crash-scheduled-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('a worker killed with SIGKILL amid delays and digests: a new process resumes and every message exists exactly once', async () => {
  const filename = join(dir, 'scheduled.db');
  const storage = sqliteStorage({ filename });
  const tidings = createTidings({ storage });
  await tidings.workflows.upsert({
    name: 'scheduled',
    triggers: [{ identifier: 'scheduled' }],
    steps: [
      { template: { type: 'in_app', content: 'first {{ payload.n }}' } },
      { template: { type: 'delay' }, metadata: { type: 'regular', amount: 1, unit: 'seconds' } },
      { template: { type: 'in_app', content: 'second {{ payload.n }}' } },
      { template: { type: 'digest' }, metadata: { type: 'regular', amount: 2, unit: 'seconds' } },
      { template: { type: 'in_app', content: 'digest {{ step.total_count }}' } },
    ],
  });
  const subscribers = Array.from({ length: 10 }, (_, i) => `s${i}`);
  const results = await tidings.triggerBulk(Array.from({ length: 50 }, (_, n) => ({ name: 'scheduled', to: subscribers[n % 10]!, payload: { n } })));
  expect(results.every((r) => r.status === 'processed')).toBe(true);
  // The workers write the file from now on (one at a time: each takes its writer lock); this process only reads it.
  await storage.close();
  const reader = sqliteStorage({ filename, readOnly: true });
  const watch = createTidings({ storage: reader });

  const first = spawnTs('packages/sqlite/test/fixtures/run-jobs.ts', [filename]);
  await waitForOutput(first, 'MESSAGE');
  await new Promise((resolve) => setTimeout(resolve, 1_200));
  first.kill('SIGKILL');
  await first.exited;

  const second = spawnTs('packages/sqlite/test/fixtures/run-jobs.ts', [filename]);
  await waitForOutput(second, 'READY');
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const pending = await watch.pending();
    if (pending.jobs.length === 0 && pending.digests.length === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  second.kill('SIGTERM');
  await second.exited;

  for (const subscriberId of subscribers) {
    const { items } = await watch.messages.feed(subscriberId, { limit: 100 });
    const contents = items.map((m) => String(m.content));
    const mine = Array.from({ length: 50 }, (_, n) => n).filter((n) => n % 10 === Number(subscriberId.slice(1)));
    expect(contents.filter((c) => c.startsWith('first')).sort()).toEqual(mine.map((n) => `first ${n}`).sort());
    expect(contents.filter((c) => c.startsWith('second')).sort()).toEqual(mine.map((n) => `second ${n}`).sort());
    const digested = contents.filter((c) => c.startsWith('digest')).map((c) => Number(c.split(' ')[1]));
    expect(digested.reduce((a, b) => a + b, 0)).toBe(5);
    expect(new Set(items.map((m) => m._id)).size).toBe(items.length);
  }
  await reader.close();
}, 90_000);
