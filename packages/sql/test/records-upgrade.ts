import type { Subscriber, Suppression, Tenant, WebhookDelivery, WebhookEndpoint } from '@tidings/core';
import type { IdempotencyRecord } from '@tidings/core/internal';
import type { PreferenceRow } from '@tidings/core/schemas';
import { fixtures } from '@tidings/core/testing';
import { sql } from 'kysely';
import { expect } from 'vitest';
import { tableName } from '../src/move-to-records.js';
import { migrate, MIGRATIONS, type SqlDialect, type SqlStorage } from '../src/index.js';

const tenant: Tenant = { _id: 't1', identifier: 'acme', name: 'Acme', data: { plan: 'pro' }, _environmentId: 'env-a', createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' };
const suppression = (address: string, at: string): Suppression => ({ channel: 'email', address, reason: 'bounced', at });
const endpoint: WebhookEndpoint = { _id: 'e1', url: 'https://hooks.example/a', secret: 's', events: ['message.sent'], active: true, failures: 0, createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' };
const delivery = (id: string, status: WebhookDelivery['status'], createdAt: string): WebhookDelivery => ({ _id: id, endpointId: 'e1', eventType: 'message.sent', payload: {}, status, attempts: 0, createdAt, updatedAt: createdAt });
const workflow = fixtures.workflowRecord('env-a', { _id: 'w1', identifier: 'welcome', slug: 'welcome-slug', createdAt: '2026-01-02T00:00:00.000Z' });
const older = fixtures.workflowRecord('env-a', { _id: 'w0', identifier: 'older', createdAt: '2026-01-01T00:00:00.000Z' });
const mail = fixtures.integrationRecord('env-a', { _id: 'i1', identifier: 'mail', channel: 'email', primary: true });
const chat = fixtures.integrationRecord('env-a', { _id: 'i2', identifier: 'chat', channel: 'chat', active: false });
const globalRow: PreferenceRow = { subscriberId: 'ada', workflowId: null, enabled: true, channels: { email: false }, updatedAt: '2026-01-01T00:00:00.000Z' };
const workflowRow: PreferenceRow = { subscriberId: 'ada', workflowId: 'w1', enabled: false, channels: {}, updatedAt: '2026-01-01T00:00:00.000Z' };
const response = { status: 201, body: '{"ok":true}', headers: { 'content-type': 'application/json' } };

/**
 * A database at the migration before the record store, with rows in the tables it replaces, keeps
 * them after upgrading: each reads back through core's repository over the record store. `storage`
 * is made with `migrate: false` on an empty database; `dialect` names its schema.
 */
export async function upgradeKeepsRecords(storage: SqlStorage, dialect: SqlDialect): Promise<void> {
  const db = storage.db;
  // The migrations before 0016 only: later ones build on its table.
  const upTo = MIGRATIONS.findIndex((m) => m.name === '0016_records');
  await migrate(db, dialect, MIGRATIONS.slice(0, upTo));
  const insert = (table: string, columns: readonly string[], values: readonly unknown[]) =>
    sql`insert into ${tableName(dialect, table)} (${sql.join(columns.map((c) => sql.id(c)))}) values (${sql.join(values)})`.execute(db);
  await insert('tidings_tenants', ['env', 'identifier', 'doc'], ['env-a', 'acme', JSON.stringify(tenant)]);
  await insert('tidings_tenants', ['env', 'identifier', 'doc'], ['env-b', 'acme', JSON.stringify({ ...tenant, _environmentId: 'env-b', name: 'Other' })]);
  for (const w of [workflow, older]) await insert('tidings_workflows', ['env', 'id', 'identifier', 'slug', 'created_at', 'doc'], ['env-a', w._id, w.identifier, w.slug, w.createdAt, JSON.stringify(w)]);
  for (const i of [mail, chat]) {
    await insert('tidings_integrations', ['env', 'id', 'identifier', 'channel', 'active', 'is_primary', 'created_at', 'doc'], ['env-a', i._id, i.identifier, i.channel, i.active ? 1 : 0, i.primary ? 1 : 0, i.createdAt, JSON.stringify(i)]);
  }
  await insert('tidings_preferences', ['env', 'subscriber_id', 'workflow_id', 'doc'], ['env-a', 'ada', '', JSON.stringify(globalRow)]);
  await insert('tidings_preferences', ['env', 'subscriber_id', 'workflow_id', 'doc'], ['env-a', 'ada', 'w1', JSON.stringify(workflowRow)]);
  await insert('tidings_preferences', ['env', 'subscriber_id', 'workflow_id', 'doc'], ['env-a', 'bob', 'w1', JSON.stringify({ ...workflowRow, subscriberId: 'bob' })]);
  await insert('tidings_window_hits', ['env', 'key', 'id', 'at', 'expires_at'], ['env-a', 'cap:ada', 'm1', '2026-01-01T00:00:00.000Z', '2026-01-01T01:00:00.000Z']);
  await insert('tidings_window_hits', ['env', 'key', 'id', 'at', 'expires_at'], ['env-a', 'cap:ada', 'm2', '2026-01-01T00:30:00.000Z', '2026-01-01T01:30:00.000Z']);
  await insert('tidings_settings', ['env', 'name', 'doc'], ['env-a', 'caps', JSON.stringify([{ limit: 2 }])]);
  await insert('tidings_idempotency', ['env', 'key', 'fingerprint', 'response', 'expires_at', 'since', 'keep_until', 'released'], ['env-a', 'done', 'f1', JSON.stringify(response), '2026-01-02T00:00:00.000Z', '2026-01-01T00:00:00.000Z', null, 0]);
  await insert('tidings_idempotency', ['env', 'key', 'fingerprint', 'response', 'expires_at', 'since', 'keep_until', 'released'], ['env-a', 'freed', 'f2', null, '2026-01-01T00:01:00.000Z', '2026-01-01T00:00:00.000Z', '2026-01-03T00:00:00.000Z', 1]);
  // A record stored before `since` was kept (migration 0007 added the columns with these defaults).
  await insert('tidings_idempotency', ['env', 'key', 'fingerprint', 'response', 'expires_at'], ['env-a', 'old', 'f3', null, '2026-01-01T00:02:00.000Z']);
  await insert('tidings_suppressions', ['env', 'channel', 'address', 'at', 'doc'], ['env-a', 'email', 'a@x.io', '2026-01-01T00:00:00.000Z', JSON.stringify(suppression('a@x.io', '2026-01-01T00:00:00.000Z'))]);
  await insert('tidings_suppressions', ['env', 'channel', 'address', 'at', 'doc'], ['env-a', 'email', 'b@x.io', '2026-01-02T00:00:00.000Z', JSON.stringify(suppression('b@x.io', '2026-01-02T00:00:00.000Z'))]);
  await insert('tidings_webhook_endpoints', ['env', 'id', 'created_at', 'doc'], ['env-a', 'e1', endpoint.createdAt, JSON.stringify(endpoint)]);
  for (const d of [delivery('d1', 'delivered', '2026-01-01T00:00:00.000Z'), delivery('d2', 'pending', '2026-01-01T00:00:01.000Z'), delivery('d3', 'failed', '2026-01-01T00:00:02.000Z')]) {
    await insert('tidings_webhook_deliveries', ['env', 'id', 'endpoint_id', 'status', 'created_at', 'doc'], ['env-a', d._id, d.endpointId, d.status, d.createdAt, JSON.stringify(d)]);
  }

  expect(await storage.migrate()).toEqual(MIGRATIONS.slice(upTo).map((m) => m.name));

  expect(await storage.tenants.get('env-a', 'acme')).toEqual(tenant);
  expect((await storage.tenants.get('env-b', 'acme'))?.name).toBe('Other');
  for (const ref of ['w1', 'welcome', 'welcome-slug']) expect(await storage.workflows.find('env-a', ref)).toEqual(workflow);
  expect((await storage.workflows.list('env-a')).map((w) => w._id)).toEqual(['w0', 'w1']);
  await expect(storage.workflows.upsert('env-a', fixtures.workflowRecord('env-a', { identifier: 'welcome' }))).rejects.toThrow(/already exists/);
  expect(await storage.integrations.list('env-a', { active: true })).toEqual([mail]);
  expect(await storage.integrations.list('env-a', { channel: 'chat' })).toEqual([chat]);
  expect(await storage.preferences.list('env-a', 'ada')).toEqual([globalRow, workflowRow]);
  expect((await storage.preferences.listMany('env-a', ['ada', 'bob'])).map((r) => [r.subscriberId, r.workflowId])).toEqual([['ada', null], ['ada', 'w1'], ['bob', 'w1']]);
  await storage.preferences.putMany('env-a', [{ ...globalRow, enabled: false }]);
  expect(await storage.preferences.list('env-a', 'ada')).toEqual([{ ...globalRow, enabled: false }, workflowRow]);
  expect(await db.selectFrom('tidings_preferences').select(['subscriber_id', 'workflow_id']).orderBy('subscriber_id').orderBy('workflow_id').execute()).toEqual([
    { subscriber_id: 'ada', workflow_id: '' },
    { subscriber_id: 'ada', workflow_id: 'w1' },
    { subscriber_id: 'bob', workflow_id: 'w1' },
  ]);
  expect(await storage.frequency.recent('env-a', ['cap:ada', 'other'], '2026-01-01T00:00:00.000Z')).toEqual(new Map([['cap:ada', ['2026-01-01T00:30:00.000Z']]]));
  await storage.frequency.record('env-a', [{ key: 'cap:ada', id: 'm1', at: '2026-01-01T00:59:00.000Z', expiresAt: '2026-01-01T01:59:00.000Z' }]);
  expect(await storage.frequency.prune('env-a', ['cap:ada'], '2026-01-01T01:00:00.000Z')).toBe(1);
  expect(await storage.frequency.forget('env-a', [{ key: 'cap:ada', id: 'm2' }])).toBe(1);
  expect(await storage.settings.get('env-a', 'caps')).toEqual([{ limit: 2 }]);
  expect(await storage.idempotency.get('env-a', 'done')).toEqual<IdempotencyRecord>({ fingerprint: 'f1', response, expiresAt: '2026-01-02T00:00:00.000Z', since: '2026-01-01T00:00:00.000Z', keepUntil: null, released: false });
  expect(await storage.idempotency.get('env-a', 'freed')).toEqual<IdempotencyRecord>({ fingerprint: 'f2', response: null, expiresAt: '2026-01-01T00:01:00.000Z', since: '2026-01-01T00:00:00.000Z', keepUntil: '2026-01-03T00:00:00.000Z', released: true });
  expect(await storage.idempotency.get('env-a', 'old')).toEqual<IdempotencyRecord>({ fingerprint: 'f3', response: null, expiresAt: '2026-01-01T00:02:00.000Z', since: null, keepUntil: null, released: false });
  // The moved rows keep their sort values: a purge finds what expired (the released key keeps its `since` until keepUntil).
  expect(await storage.idempotency.purgeExpired('env-a', '2026-01-02T12:00:00.000Z')).toBe(2);
  expect(await storage.idempotency.get('env-a', 'freed')).not.toBeNull();
  expect((await storage.suppressions.list('env-a', { limit: 10 })).map((e) => e.address)).toEqual(['b@x.io', 'a@x.io']);
  expect((await storage.suppressions.list('env-a', { channel: 'email', limit: 10, after: { at: '2026-01-02T00:00:00.000Z', address: 'b@x.io' } })).map((e) => e.address)).toEqual(['a@x.io']);
  expect(await storage.suppressions.find('env-a', 'email', ['a@x.io', 'c@x.io'])).toEqual([suppression('a@x.io', '2026-01-01T00:00:00.000Z')]);
  expect(await storage.webhooks.listEndpoints('env-a')).toEqual([endpoint]);
  expect((await storage.webhooks.listDeliveries('env-a', { endpointId: 'e1', limit: 10 })).map((d) => d._id)).toEqual(['d3', 'd2', 'd1']);
  expect((await storage.webhooks.listDeliveries('env-a', { status: 'pending', limit: 10 })).map((d) => d._id)).toEqual(['d2']);
  expect(await storage.retention.deleteDeliveriesBefore('env-a', '2026-01-02T00:00:00.000Z', 10)).toBe(2);
  expect(await storage.webhooks.deleteEndpoint('env-a', 'e1')).toBe(true);
  expect(await storage.webhooks.getDelivery('env-a', 'd2')).toBeNull();
  // The tables in the views' names show the records now, for apps that read them.
  expect(await db.selectFrom('tidings_integrations').select(['id', 'identifier', 'channel', 'active', 'is_primary', 'created_at']).orderBy('id').execute()).toEqual([
    { id: 'i1', identifier: 'mail', channel: 'email', active: 1, is_primary: 1, created_at: mail.createdAt },
    { id: 'i2', identifier: 'chat', channel: 'chat', active: 0, is_primary: 0, created_at: chat.createdAt },
  ]);
  expect(await db.selectFrom('tidings_workflows').select(['id', 'identifier', 'slug', 'created_at']).orderBy('id').execute()).toEqual([
    { id: 'w0', identifier: 'older', slug: older.slug, created_at: older.createdAt },
    { id: 'w1', identifier: 'welcome', slug: 'welcome-slug', created_at: workflow.createdAt },
  ]);
  const viewed = await db.selectFrom('tidings_tenants').selectAll().orderBy('env').execute();
  expect(viewed.map((r) => [r.env, r.identifier, typeof r.doc === 'string' ? JSON.parse(r.doc) : r.doc])).toEqual([['env-a', 'acme', tenant], ['env-b', 'acme', { ...tenant, _environmentId: 'env-b', name: 'Other' }]]);
  await storage.tenants.upsert('env-a', { ...tenant, identifier: 'new' });
  expect(await db.selectFrom('tidings_tenants').select('identifier').where('env', '=', 'env-a').orderBy('identifier').execute()).toEqual([{ identifier: 'acme' }, { identifier: 'new' }]);
  await storage.subscribers.putMany('env-a', [{ _id: 'sub-bob', subscriberId: 'bob', _environmentId: 'env-a', _organizationId: 'org', createdAt: tenant.createdAt, updatedAt: tenant.createdAt } as Subscriber]);
  expect(await storage.subscribers.delete('env-a', 'bob')).toBe(true);
  expect(await storage.preferences.list('env-a', 'bob')).toEqual([]);
  // The other old tables are gone.
  for (const table of ['tidings_settings', 'tidings_idempotency', 'tidings_window_hits', 'tidings_suppressions', 'tidings_webhook_endpoints', 'tidings_webhook_deliveries']) {
    await expect(sql`select * from ${tableName(dialect, table)}`.execute(db), table).rejects.toThrow();
  }
}
