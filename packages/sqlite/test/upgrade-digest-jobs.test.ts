import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTidings } from '@tidings/core';
import { manualClock } from '@tidings/core/testing';
import Database from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { sqliteStorage } from '../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'tidings-upgrade-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const workflow = {
  name: 'digest',
  triggers: [{ identifier: 'digest' }],
  steps: [{ template: { type: 'digest' as const }, metadata: { type: 'regular' as const, amount: 10, unit: 'minutes' as const } }, { template: { type: 'in_app' as const, content: '{{ step.total_count }} events' } }],
};

it('upgrading a database whose open digest is flushed by its first event’s job: the job becomes the digest’s keyed flush job and sends every event', async () => {
  const filename = join(dir, 'app.db');
  const clock = manualClock('2026-06-01T12:00:00.000Z');
  const before = sqliteStorage({ filename });
  const tidings = createTidings({ storage: before, clock, inlineInApp: false });
  await tidings.workflows.upsert(workflow);
  await tidings.trigger({ name: 'digest', to: 'ada', transactionId: 'first' });
  await tidings.runDue();
  await tidings.trigger({ name: 'digest', to: 'ada', transactionId: 'second' });
  await tidings.runDue();
  const [digest] = (await tidings.pending()).digests;
  const notification = (await before.notifications.getByTransactionId('default', 'first'))!;
  await before.close();

  // The database as the release before job keys left it: the first event's walk job waits for the
  // digest's due time with the digest's id in its data, and migration 0009 has not run.
  const raw = new Database(filename);
  raw.prepare("update tidings_jobs set kind = 'walk', transaction_id = 'first', data = ?, job_key = null where kind = 'digest'").run(
    JSON.stringify({ notificationId: notification._id, stepIndex: 1, digestId: digest!.id }),
  );
  raw.exec("drop index tidings_jobs_key; alter table tidings_jobs drop column job_key; delete from tidings_migrations where name = '0009_job_keys'");
  raw.close();

  const after = sqliteStorage({ filename });
  const upgraded = createTidings({ storage: after, clock, inlineInApp: false });
  expect(await after.migrate()).toEqual(['0009_job_keys']);
  const [flush] = await after.jobs.list('default');
  expect(flush).toMatchObject({ kind: 'digest', key: `digest:${digest!.id}`, data: { digestId: digest!.id }, runAt: '2026-06-01T12:10:00.000Z' });
  // Cancelling the first event no longer takes the flush with it.
  await upgraded.cancel('first');
  clock.set('2026-06-01T12:10:00.000Z');
  await upgraded.runDue();
  expect((await upgraded.messages.feed('ada')).items.map((m) => m.content)).toEqual(['1 events']);
  expect(await upgraded.pending()).toEqual({ jobs: [], digests: [] });
  await after.close();
});
