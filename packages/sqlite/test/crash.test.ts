import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTidings } from '@tidings/core';
import { afterAll, afterEach, expect, it } from 'vitest';
import { killSpawned, spawnTs, waitForOutput } from '../../../test-support/spawn-ts.js';
import { sqliteStorage } from '../src/index.js';

// A failing test must not leave its child processes running.
afterEach(killSpawned);

const dir = mkdtempSync(join(tmpdir(), 'tidings-crash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('a process killed with SIGKILL mid-bulk-trigger leaves each event whole or absent; the restarted engine completes each exactly once', async () => {
  const filename = join(dir, 'crash.db');
  const child = spawnTs('packages/sqlite/test/fixtures/bulk-trigger-forever.ts', [filename]);
  await waitForOutput(child, 'TRIGGERING');
  await new Promise((resolve) => setTimeout(resolve, 150 + Math.random() * 200));
  child.kill('SIGKILL');
  await child.exited;

  const storage = sqliteStorage({ filename });
  const tidings = createTidings({ storage, inlineInApp: false });
  const env = tidings.environmentId;
  const recorded: number[] = [];
  let absentFrom: number | null = null;
  for (let i = 1; ; i++) {
    const notification = await storage.notifications.getByTransactionId(env, `t-${i}`);
    const subscribers = await storage.subscribers.getMany(env, [`s-${i}`, `s-${i}-b`]);
    const jobs = await storage.jobs.list(env, { transactionId: `t-${i}` });
    if (notification) {
      expect(subscribers).toHaveLength(2);
      expect(jobs.map((j) => j.subscriberId).sort()).toEqual([`s-${i}`, `s-${i}-b`]);
      expect(absentFrom).toBeNull();
      recorded.push(i);
    } else {
      expect(subscribers).toEqual([]);
      expect(jobs).toEqual([]);
      absentFrom ??= i;
      if (i > (recorded.at(-1) ?? 0) + 200) break;
    }
  }
  expect(recorded.length).toBeGreaterThanOrEqual(300);

  await tidings.runDue();
  await tidings.runDue();
  for (const i of recorded) {
    const messages = await tidings.messages.byTransaction(`t-${i}`);
    expect(messages.map((m) => m.subscriberId).sort()).toEqual([`s-${i}`, `s-${i}-b`]);
  }
  expect(await storage.jobs.list(env)).toEqual([]);
  await storage.close();
}, 60_000);
