import type { Digest, DigestEvent } from '@tidings/core/internal';
import { sql } from 'kysely';
import { expect } from 'vitest';
import { tableName } from '../src/move-to-records.js';
import { migrate, MIGRATIONS, type SqlDialect, type SqlStorage } from '../src/index.js';

type Head = Omit<Digest, 'events'>;

const ADA = 'w1|0|ada|';
const BOB = 'w1|0|bob|';
const head = (id: string, key: string, subscriberId: string, status: Digest['status'], dueAt: string): Head => ({
  id,
  environmentId: 'env-a',
  key,
  workflowId: 'w1',
  stepIndex: 0,
  subscriberId,
  digestKey: null,
  status,
  openedAt: '2026-01-01T00:00:00.000Z',
  dueAt,
});
const event = (transactionId: string, at: string): DigestEvent => ({ transactionId, notificationId: `n-${transactionId}`, payload: { transactionId }, at });
const e0 = event('t0', '2026-01-01T00:00:00.000Z');
const e1 = event('t1', '2026-01-01T00:10:00.000Z');
const e2 = event('t2', '2026-01-01T00:05:00.000Z');
const e3 = event('t3', '2026-01-01T00:20:00.000Z');
const e4 = event('t4', '2026-01-01T00:30:00.000Z');

/**
 * A database at the migration before digests moved into the record store (0017), with an open digest
 * and closed ones with their events and backoff keys, keeps them after upgrading: each reads back
 * through core's digest repository, and joins, closes and opens go on from there. `storage` is made
 * with `migrate: false` on an empty database; `dialect` names its schema.
 */
export async function upgradeKeepsDigests(storage: SqlStorage, dialect: SqlDialect): Promise<void> {
  const db = storage.db;
  await migrate(db, dialect, MIGRATIONS.filter((m) => m.name < '0017'));
  const insert = (table: string, columns: readonly string[], values: readonly unknown[]) =>
    sql`insert into ${tableName(dialect, table)} (${sql.join(columns.map((c) => sql.id(c)))}) values (${sql.join(values)})`.execute(db);
  // As the SQL repository left them: a join moved `due_at` and a close set `status` in their columns only.
  const d0 = head('d0', ADA, 'ada', 'closed', '2025-12-31T00:00:00.000Z');
  const d1 = head('d1', ADA, 'ada', 'open', '2026-01-01T02:00:00.000Z');
  const d2 = head('d2', BOB, 'bob', 'closed', '2026-01-01T01:00:00.000Z');
  for (const [h, count] of [[d0, 1], [d1, 2], [d2, 2]] as const) {
    const stale = { ...h, status: 'open', dueAt: '2026-01-01T00:59:00.000Z' };
    await insert('tidings_digests', ['env', 'id', 'key', 'status', 'subscriber_id', 'due_at', 'doc', 'event_count'], ['env-a', h.id, h.key, h.status, h.subscriberId, h.dueAt, JSON.stringify(stale), count]);
  }
  // Events of the digests interleaved, as they joined.
  for (const [id, key, e] of [['d0', ADA, e0], ['d1', ADA, e1], ['d2', BOB, e3], ['d1', ADA, e2], ['d2', BOB, e4]] as const) {
    await insert('tidings_digest_events', ['env', 'key', 'transaction_id', 'digest_id', 'doc'], ['env-a', key, e.transactionId, id, JSON.stringify(e)]);
  }
  await insert('tidings_digest_keys', ['env', 'key', 'last_at', 'last_transaction_id', 'previous_at'], ['env-a', 'backoff:ada', '2026-01-01T00:10:00.000Z', 't1', '2026-01-01T00:00:00.000Z']);
  // A key recorded before events were keyed (migration 0006 added the columns).
  await insert('tidings_digest_keys', ['env', 'key', 'last_at'], ['env-a', 'backoff:bob', '2026-01-01T00:20:00.000Z']);
  for (const transactionId of ['t1', 't3']) {
    await insert('tidings_notifications', ['env', 'id', 'transaction_id', 'doc', 'created_at'], ['env-a', `n-${transactionId}`, transactionId, JSON.stringify({ _id: `n-${transactionId}`, transactionId }), '2026-01-01T00:00:00.000Z']);
  }

  expect(await storage.migrate()).toEqual(MIGRATIONS.map((m) => m.name).filter((name) => name >= '0017'));

  expect(await storage.digests.openHead('env-a', ADA)).toEqual({ ...d1, eventCount: 2 });
  expect(await storage.digests.openHead('env-a', BOB)).toBeNull();
  expect(await storage.digests.head('env-a', 'd2')).toEqual({ ...d2, eventCount: 2 });
  expect(await storage.digests.get('env-a', 'd0')).toEqual({ ...d0, events: [e0] });
  // Join order, not event time.
  expect(await storage.digests.get('env-a', 'd1')).toEqual({ ...d1, events: [e1, e2] });
  expect(await storage.digests.get('env-a', 'd2')).toEqual({ ...d2, events: [e3, e4] });
  expect(await storage.digests.membership('env-a', ADA, 't0')).toEqual({ digestId: 'd0', first: true });
  expect(await storage.digests.membership('env-a', ADA, 't1')).toEqual({ digestId: 'd1', first: true });
  expect(await storage.digests.membership('env-a', ADA, 't2')).toEqual({ digestId: 'd1', first: false });
  expect(await storage.digests.membership('env-a', BOB, 't4')).toEqual({ digestId: 'd2', first: false });
  expect(await storage.digests.membership('env-a', BOB, 't1')).toBeNull();
  expect(await storage.digests.listOpen('env-a')).toEqual([{ ...d1, events: [e1, e2] }]);
  expect(await storage.digests.listOpen('env-a', { transactionId: 't3' })).toEqual([]);
  expect(await storage.digests.listOpen('env-a', { subscriberId: 'ada' })).toEqual([{ ...d1, events: [e1, e2] }]);
  expect(await storage.digests.countOpen('env-a')).toBe(1);
  expect(await storage.digests.lastEvent('env-a', 'backoff:ada')).toEqual({ at: '2026-01-01T00:10:00.000Z', transactionId: 't1', previous: '2026-01-01T00:00:00.000Z' });
  expect(await storage.digests.lastEvent('env-a', 'backoff:bob')).toEqual({ at: '2026-01-01T00:20:00.000Z', transactionId: '', previous: null });
  // The view in the old table's name shows the heads.
  expect(await db.selectFrom('tidings_digests').select(['id', 'key', 'status', 'subscriber_id', 'due_at', 'event_count']).orderBy('id').execute()).toEqual([
    { id: 'd0', key: ADA, status: 'closed', subscriber_id: 'ada', due_at: d0.dueAt, event_count: 1 },
    { id: 'd1', key: ADA, status: 'open', subscriber_id: 'ada', due_at: d1.dueAt, event_count: 2 },
    { id: 'd2', key: BOB, status: 'closed', subscriber_id: 'bob', due_at: d2.dueAt, event_count: 2 },
  ]);

  // Retention keeps the trigger with an event in the open digest, and deletes the closed digest whose first event is the other's.
  expect(await storage.retention.deleteNotificationsBefore('env-a', '2026-02-01T00:00:00.000Z', 10)).toEqual(['t3']);
  expect(await storage.digests.get('env-a', 'd2')).toBeNull();
  expect(await storage.digests.membership('env-a', BOB, 't4')).toBeNull();
  expect(await storage.digests.get('env-a', 'd1')).toEqual({ ...d1, events: [e1, e2] });

  // Joins go on after the moved events; a removed first event hands `first` to the next.
  const e5 = event('t5', '2026-01-01T00:01:00.000Z');
  await storage.digests.append('env-a', 'd1', ADA, e5, '2026-01-01T03:00:00.000Z');
  expect(await storage.digests.openHead('env-a', ADA)).toEqual({ ...d1, dueAt: '2026-01-01T03:00:00.000Z', eventCount: 3 });
  expect(await storage.digests.removeTransaction('env-a', 't1')).toEqual({ updated: [{ ...d1, dueAt: '2026-01-01T03:00:00.000Z', events: [e2, e5] }], deleted: [] });
  expect(await storage.digests.membership('env-a', ADA, 't2')).toEqual({ digestId: 'd1', first: true });
  // Closing frees the key for the next digest.
  expect(await storage.digests.close('env-a', 'd1')).toEqual({ ...d1, status: 'closed', dueAt: '2026-01-01T03:00:00.000Z', events: [e2, e5] });
  const d3 = head('d3', ADA, 'ada', 'open', '2026-01-02T00:00:00.000Z');
  await storage.digests.insertOpen('env-a', d3, event('t6', '2026-01-01T05:00:00.000Z'));
  expect(await storage.digests.openHead('env-a', ADA)).toEqual({ ...d3, eventCount: 1 });
  expect(await storage.digests.countOpen('env-a')).toBe(1);
  // The old event and key tables are gone.
  for (const table of ['tidings_digest_events', 'tidings_digest_keys']) {
    await expect(sql`select * from ${tableName(dialect, table)}`.execute(db), table).rejects.toThrow();
  }
}
