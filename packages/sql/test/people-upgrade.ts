import type { DecisionRecord, Notification, Subscriber } from '@tidings/core';
import { fixtures } from '@tidings/core/testing';
import { sql } from 'kysely';
import { expect } from 'vitest';
import { tableName } from '../src/move-to-records.js';
import { migrate, MIGRATIONS, type SqlDialect, type SqlStorage } from '../src/index.js';

const { T0, plus } = fixtures;
const subscriber = (subscriberId: string): Subscriber => ({ _id: `sub-${subscriberId}`, subscriberId, _environmentId: 'env-a', _organizationId: fixtures.ORG, createdAt: T0, updatedAt: T0 }) as Subscriber;
const decision = (subscriberId: string, at: string, reason: string): DecisionRecord => ({
  environmentId: 'env-a',
  transactionId: 'tx-1',
  subscriberId,
  jobId: `job-${subscriberId}`,
  at,
  entries: [{ stepIndex: 0, stepId: 's0', type: 'in_app', decision: 'delivered', reason }],
});

/**
 * A database at the migration before 0020, with subscribers, notifications and decision records in
 * their own tables (trace rows in each shape they were written: runs, a list, one record), keeps them
 * after upgrading: each reads back through core's repositories over the record store, in the orders
 * they had, and the old table names stay readable as views. `storage` is made with `migrate: false`
 * on an empty database; `dialect` names its schema.
 */
export async function upgradeKeepsPeopleAndTriggers(storage: SqlStorage, dialect: SqlDialect): Promise<void> {
  const db = storage.db;
  const upTo = MIGRATIONS.findIndex((m) => m.name === '0020_people_and_triggers_records');
  await migrate(db, dialect, MIGRATIONS.slice(0, upTo));
  const insert = (table: string, columns: readonly string[], values: readonly unknown[]) =>
    sql`insert into ${tableName(dialect, table)} (${sql.join(columns.map((c) => sql.id(c)))}) values (${sql.join(values)})`.execute(db);

  const [ada, bob, cy] = [subscriber('ada'), subscriber('bob'), subscriber('cy')];
  for (const s of [cy, ada, bob]) await insert('tidings_subscribers', ['env', 'subscriber_id', 'id', 'doc'], ['env-a', s.subscriberId, s._id, JSON.stringify(s)]);
  await insert('tidings_subscribers', ['env', 'subscriber_id', 'id', 'doc'], ['env-b', 'ada', 'sub-other', JSON.stringify({ ...ada, _id: 'sub-other', _environmentId: 'env-b' })]);

  const made = [0, 1, 1, 2].map((minutes, i) => fixtures.notificationRecord('env-a', { _id: `n-${i}`, transactionId: `tx-${i}`, createdAt: plus(T0, minutes * 60_000) }));
  for (const n of made) await insert('tidings_notifications', ['env', 'id', 'transaction_id', 'doc', 'created_at'], ['env-a', n._id, n.transactionId, JSON.stringify(n), n.createdAt]);

  const traceColumns = ['env', 'transaction_id', 'subscriber_id', 'at', 'doc'];
  const single = decision('ada', plus(T0, 2000), 'one record');
  const listed = [decision('bob', plus(T0, 1000), 'a list'), decision('cy', plus(T0, 1000), 'a list')];
  const run = [decision('ada', T0, 'a run'), decision('bob', T0, 'a run')];
  await insert('tidings_traces', traceColumns, ['env-a', 'tx-1', 'ada', single.at, JSON.stringify(single)]);
  await insert('tidings_traces', traceColumns, ['env-a', 'tx-1', '*', listed[0]!.at, JSON.stringify(listed)]);
  await insert('tidings_traces', traceColumns, ['env-a', 'tx-1', '*', T0, JSON.stringify({ runs: [{ at: T0, entries: run[0]!.entries, who: run.map((r) => [r.subscriberId, r.jobId]) }] })]);

  expect(await storage.migrate()).toEqual(MIGRATIONS.slice(upTo).map((m) => m.name));

  expect(await storage.subscribers.getMany('env-a', ['bob', 'ada', 'missing'])).toEqual([bob, ada]);
  expect(await storage.subscribers.idPage('env-a', { after: null, limit: 10 })).toEqual(['ada', 'bob', 'cy']);
  expect(await storage.subscribers.idPage('env-a', { after: 'ada', until: 'bob', limit: 10 })).toEqual(['bob']);
  expect((await storage.subscribers.getMany('env-b', ['ada']))[0]?._id).toBe('sub-other');

  expect(await storage.notifications.getByTransactionId('env-a', 'tx-2')).toEqual(made[2]);
  expect(await storage.notifications.getMany('env-a', ['n-3', 'n-0'])).toEqual([made[3], made[0]]);
  const newestFirst = await storage.notifications.list('env-a', { limit: 10 });
  expect(newestFirst.items.map((n: Notification) => n._id)).toEqual(['n-3', 'n-2', 'n-1', 'n-0']);
  // A moved notification keeps its transactionId: a trigger that uses it again stores nothing.
  expect(await storage.notifications.insertMany('env-a', [fixtures.notificationRecord('env-a', { transactionId: 'tx-1' })])).toEqual([]);

  expect(await storage.traces.list('env-a', 'tx-1')).toEqual([...run, ...listed, single]);
  expect(await storage.traces.list('env-a', 'tx-1', 'bob')).toEqual([run[1], listed[0]]);
  // Appended after the upgrade, a record reads after the moved ones of earlier instants.
  const later = decision('ada', plus(T0, 3000), 'after the upgrade');
  await storage.traces.append([later]);
  expect(await storage.traces.list('env-a', 'tx-1', 'ada')).toEqual([run[0], single, later]);

  const views = await sql<{ n: number | string }>`select count(*) as n from ${tableName(dialect, 'tidings_subscribers')} where env = 'env-a'`.execute(db);
  expect(Number(views.rows[0]!.n)).toBe(3);
  const notificationView = await sql<{ id: string; created_at: string }>`select id, created_at from ${tableName(dialect, 'tidings_notifications')} where transaction_id = 'tx-3'`.execute(db);
  expect(notificationView.rows).toEqual([{ id: 'n-3', created_at: made[3]!.createdAt }]);
}
