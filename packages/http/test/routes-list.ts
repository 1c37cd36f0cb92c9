import { randomUUID } from 'node:crypto';
import { postgresStorage } from '@tidings/postgres';
import { sqliteStorage } from '@tidings/sqlite';
import type { Tidings } from '@tidings/core';
import type { SqlStorage } from '@tidings/sql';
import { sql } from 'kysely';

/** Every route of the API, for the fuzz and poison tests. */
export const ROUTES: [string, string][] = [
  ['PATCH', '/v2/subscribers/{a}/preferences'],
  ['POST', '/v1/subscribers/{a}/messages/mark-as'],
  ['POST', '/v1/subscribers/{a}/messages/{b}/actions/{c}'],
  ['GET', '/v1/integrations/active'],
  ['GET', '/v1/topics/{a}/subscribers/{b}'],
  ['POST', '/v1/events/trigger/bulk'],
  ['POST', '/v1/events/trigger'],
  ['POST', '/v1/events/trigger/broadcast'],
  ['DELETE', '/v1/events/trigger/{a}'],
  ['POST', '/v1/notifications/{a}/retry'],
  ['POST', '/v1/signals'],
  ['GET', '/v1/tokens'],
  ['GET', '/v1/tokens/{a}'],
  ['POST', '/v1/tokens/{a}/complete'],
  ['POST', '/v1/subscribers'],
  ['GET', '/v1/subscribers/{a}'],
  ['PUT', '/v1/subscribers/{a}'],
  ['PUT', '/v1/subscribers/{a}/credentials'],
  ['PATCH', '/v1/subscribers/{a}/credentials'],
  ['DELETE', '/v1/subscribers/{a}/credentials/{b}'],
  ['GET', '/v1/suppressions'],
  ['POST', '/v1/suppressions'],
  ['DELETE', '/v1/suppressions/{a}/{b}'],
  ['GET', '/v1/caps'],
  ['PUT', '/v1/caps'],
  ['GET', '/v1/webhook-endpoints'],
  ['POST', '/v1/webhook-endpoints'],
  ['GET', '/v1/webhook-endpoints/{a}'],
  ['PATCH', '/v1/webhook-endpoints/{a}'],
  ['DELETE', '/v1/webhook-endpoints/{a}'],
  ['GET', '/v1/webhook-deliveries'],
  ['GET', '/v1/subscribers/{a}/notifications/feed'],
  ['POST', '/v1/topics'],
  ['POST', '/v1/topics/{a}/subscribers'],
  ['POST', '/v1/topics/{a}/subscribers/removal'],
  ['POST', '/v1/integrations'],
  ['POST', '/v1/tenants'],
  ['POST', '/v1/workflows'],
  ['GET', '/v1/workflows/{a}'],
  ['POST', '/v1/subscribers/{a}/messages/{b}/snooze'],
  ['POST', '/v1/subscribers/{a}/messages/{b}/unsnooze'],
  ['POST', '/v1/subscribers/{a}/messages/{b}/archive'],
  ['POST', '/v1/subscribers/{a}/messages/{b}/unarchive'],
  ['GET', '/v1/subscribers/{a}/notifications/counts'],
  ['GET', '/v1/subscribers/{a}/notifications/unseen'],
  ['GET', '/v2/subscribers/{a}/preferences'],
  ['DELETE', '/v1/subscribers/{a}'],
  ['POST', '/v1/subscribers/{a}/messages/markAs'],
  ['GET', '/v1/integrations'],
  ['PUT', '/v1/integrations/{a}'],
  ['POST', '/v1/integrations/{a}/set-primary'],
  ['GET', '/v1/workflows'],
  ['POST', '/v2/subscribers'],
  ['GET', '/v2/subscribers'],
  ['GET', '/v2/subscribers/{a}'],
  ['PATCH', '/v2/subscribers/{a}'],
  ['DELETE', '/v2/subscribers/{a}'],
  ['GET', '/v2/subscribers/{a}/subscriptions'],
  ['POST', '/v1/subscribers/bulk'],
  ['GET', '/v2/topics'],
  ['POST', '/v2/topics'],
  ['GET', '/v2/topics/{a}'],
  ['PATCH', '/v2/topics/{a}'],
  ['DELETE', '/v2/topics/{a}'],
  ['DELETE', '/v1/topics/{a}'],
  ['GET', '/v2/topics/{a}/subscriptions'],
  ['POST', '/v2/topics/{a}/subscriptions'],
  ['DELETE', '/v2/topics/{a}/subscriptions'],
  ['GET', '/v2/topics/{a}/subscriptions/{b}'],
  ['PATCH', '/v2/topics/{a}/subscriptions/{b}'],
  ['PATCH', '/v2/subscribers/{a}/preferences/bulk'],
  ['GET', '/v1/categories'],
  ['GET', '/v2/subscribers/{a}/notifications'],
  ['GET', '/v2/subscribers/{a}/notifications/count'],
  ['PATCH', '/v2/subscribers/{a}/notifications/{b}/read'],
  ['PATCH', '/v2/subscribers/{a}/notifications/{b}/snooze'],
  ['PATCH', '/v2/subscribers/{a}/notifications/{b}/actions/{c}/complete'],
  ['POST', '/v2/subscribers/{a}/notifications/seen'],
  ['POST', '/v2/subscribers/{a}/notifications/read'],
  ['POST', '/v2/subscribers/{a}/notifications/delete'],
  ['DELETE', '/v2/subscribers/{a}/notifications/{b}'],
  ['POST', '/v1/subscribers/{a}/messages/mark-all'],
  ['PATCH', '/v1/subscribers/{a}/online-status'],
  ['DELETE', '/v1/messages/transaction/{a}'],
  ['POST', '/v2/contexts'],
  ['GET', '/v2/contexts'],
  ['GET', '/v2/contexts/{a}/{b}'],
  ['PATCH', '/v2/contexts/{a}/{b}'],
  ['DELETE', '/v2/contexts/{a}/{b}'],
  ['PUT', '/v1/categories/{a}'],
  ['GET', '/v1/categories/{a}'],
  ['DELETE', '/v1/categories/{a}'],
  ['GET', '/v1/workflows/{a}/revisions'],
  ['GET', '/v1/workflows/{a}/revisions/{b}'],
  ['GET', '/v1/workflows/{a}/diff'],
  ['POST', '/v1/workflows/{a}/rollback'],
  ['GET', '/v1/layouts/{a}/revisions'],
  ['GET', '/v1/partials/{a}/revisions/{b}'],
  ['GET', '/v1/translations/{a}/diff'],
  ['POST', '/v1/layouts/{a}/rollback'],
  ['POST', '/v1/translations/{a}/rollback'],
  ['POST', '/v1/workflow-files/plan'],
  ['POST', '/v1/workflow-files/apply'],
  ['GET', '/v1/subscribers/{a}/preferences/history'],
  ['POST', '/v1/layouts'],
  ['GET', '/v1/layouts/{a}'],
  ['DELETE', '/v1/layouts/{a}'],
  ['POST', '/v1/partials'],
  ['PUT', '/v1/translations/{a}'],
  ['PUT', '/v1/brand'],
  ['POST', '/v1/workflows/{a}/preview'],
];
// GET /v1/subscribers/{id}/events is left out: a valid request opens a stream that never ends.

// Domain tables only: idempotency records are request bookkeeping and may change.
export const TABLES = ['tidings_workflows', 'tidings_subscribers', 'tidings_topics', 'tidings_topic_members', 'tidings_tenants', 'tidings_integrations', 'tidings_preferences', 'tidings_notifications', 'tidings_jobs', 'tidings_messages', 'tidings_digests'] as const;

export interface SqlBackendCase {
  readonly name: 'sqlite' | 'postgres';
  /** Why this backend's route tests are skipped here; absent when they run. */
  readonly skip?: string;
}

/**
 * The SQL backends the route tests run on: SQLite always, Postgres when TIDINGS_TEST_PG_URL is set;
 * without it, Postgres is still listed, as a skipped test naming what it needs (as the conformance
 * suite does), so a run without it shows what it left out.
 */
export const SQL_BACKENDS: readonly SqlBackendCase[] = [
  { name: 'sqlite' },
  { name: 'postgres', ...(!process.env['TIDINGS_TEST_PG_URL'] && { skip: 'needs TIDINGS_TEST_PG_URL (e.g. postgres://postgres@127.0.0.1:5432/test) to run' }) },
];

/** A fresh SQL storage for a route test, and how to drop it afterwards. */
export function sqlBackend(name: string) {
  if (name === 'sqlite') {
    const storage = sqliteStorage({ filename: ':memory:' });
    return { storage, drop: () => storage.close() };
  }
  const schema = `tidings_routes_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const storage = postgresStorage({ connectionString: process.env['TIDINGS_TEST_PG_URL']!, schema, max: 4 });
  return {
    storage,
    async drop() {
      await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(storage.db);
      await storage.close();
    },
  };
}

/** The records a route test acts on: workflow `w` and subscriber `ada`. */
export async function seedRouteRecords(tidings: Tidings): Promise<void> {
  await tidings.workflows.upsert({ name: 'W', triggers: [{ identifier: 'w' }], steps: [{ template: { type: 'in_app', content: 'x' } }] });
  await tidings.subscribers.upsert({ subscriberId: 'ada' });
}

/** Every domain table's rows, in a stable order: equal before and after means nothing changed. */
export async function tableSnapshot(storage: Pick<SqlStorage, 'db'>): Promise<string> {
  const parts: string[] = [];
  // The query builder names the storage's schema (raw `sql` would not).
  for (const table of TABLES) parts.push(JSON.stringify(await storage.db.selectFrom(table).selectAll().orderBy(sql`1, 2`).execute()));
  return parts.join('\n');
}
