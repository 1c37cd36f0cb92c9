import type { ProviderStatusEvent } from '@tidings/core';
import type { HeldStatus, ProviderRef } from '@tidings/core/internal';
import { fixtures } from '@tidings/core/testing';
import { sql } from 'kysely';
import { expect } from 'vitest';
import { tableName } from '../src/move-to-records.js';
import { migrate, MIGRATIONS, type SqlDialect, type SqlStorage } from '../src/index.js';

const ada = { _id: 'sub-ada', subscriberId: 'ada' };
const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-02T00:00:00.000Z';
const event = (eventId: string, providerMessageId: string, state: ProviderStatusEvent['state'] = 'delivered'): ProviderStatusEvent => ({ providerMessageId, state, at: T0, eventId });
const ref = (providerMessageId: string, messageId: string, subscriberInternalId = ada._id): ProviderRef => ({ providerId: 'mailer', providerMessageId, messageId, subscriberInternalId });

/**
 * A database at the migration before 0018, with provider references and held status events in their
 * own tables, keeps them after upgrading: each reads back through core's delivery status repository
 * over the record store, held events in the order they came, and a message's deletion still takes
 * its references. `storage` is made with `migrate: false` on an empty database; `dialect` names its schema.
 */
export async function upgradeKeepsDeliveryStatus(storage: SqlStorage, dialect: SqlDialect): Promise<void> {
  const db = storage.db;
  const upTo = MIGRATIONS.findIndex((m) => m.name === '0018_delivery_status_records');
  await migrate(db, dialect, MIGRATIONS.slice(0, upTo));
  const insert = (table: string, columns: readonly string[], values: readonly unknown[]) =>
    sql`insert into ${tableName(dialect, table)} (${sql.join(columns.map((c) => sql.id(c)))}) values (${sql.join(values)})`.execute(db);
  const refColumns = ['env', 'provider_id', 'provider_message_id', 'message_id', 'subscriber_internal_id'];
  const kept = ref('pm-1', 'm1');
  const swept = ref('pm-2', 'm2');
  const deleted = ref('pm-3', 'm3');
  for (const r of [kept, swept, deleted]) await insert('tidings_provider_refs', refColumns, ['env-a', r.providerId, r.providerMessageId, r.messageId, r.subscriberInternalId]);
  await insert('tidings_provider_refs', refColumns, ['env-b', 'mailer', 'pm-1', 'm-other', 'sub-other']);
  // Held in this order (the sequence numbers say so): `e-late` first, then `e-early` in the same
  // millisecond, then an event held before 0015 (no integration), then one for another message.
  const heldColumns = ['env', 'provider_id', 'integration_id', 'event_id', 'provider_message_id', 'received_at', 'doc'];
  const held: HeldStatus[] = [
    { providerId: 'mailer', integrationId: 'i1', event: event('e-late', 'pm-9'), receivedAt: T1 },
    { providerId: 'mailer', integrationId: 'i1', event: event('e-early', 'pm-9', 'opened'), receivedAt: T1 },
    { providerId: 'mailer', event: event('e-legacy', 'pm-9', 'clicked'), receivedAt: T1 },
    { providerId: 'mailer', integrationId: 'i1', event: event('e-old', 'pm-8'), receivedAt: T0 },
  ];
  for (const h of held) await insert('tidings_held_status', heldColumns, ['env-a', h.providerId, h.integrationId ?? null, h.event.eventId, h.event.providerMessageId, h.receivedAt, JSON.stringify(h.event)]);

  expect(await storage.migrate()).toEqual(MIGRATIONS.slice(upTo).map((m) => m.name));

  expect(await storage.deliveryStatus.find('env-a', 'mailer', ['pm-1', 'pm-2', 'pm-3', 'pm-x'])).toEqual([kept, swept, deleted]);
  expect(await storage.deliveryStatus.find('env-b', 'mailer', ['pm-1'])).toEqual([ref('pm-1', 'm-other', 'sub-other')]);
  expect(await storage.deliveryStatus.find('env-a', 'other', ['pm-1'])).toEqual([]);
  // The moved references keep their keys: linking one again leaves it as it is.
  await storage.deliveryStatus.link('env-a', [ref('pm-1', 'm-new')]);
  expect(await storage.deliveryStatus.find('env-a', 'mailer', ['pm-1'])).toEqual([kept]);
  // And their message and subscriber: a message's deletion, by its subscriber or the sweeper, takes them along.
  await storage.messages.insertMany('env-a', [fixtures.messageRecord('env-a', ada, { _id: 'm2', createdAt: T0 }), fixtures.messageRecord('env-a', ada, { _id: 'm3', createdAt: T1 })]);
  expect(await storage.messages.deleteMany('env-a', 'sub-other', ['m3'])).toBe(0);
  expect(await storage.deliveryStatus.find('env-a', 'mailer', ['pm-3'])).toEqual([deleted]);
  expect(await storage.messages.deleteMany('env-a', ada._id, ['m3'])).toBe(1);
  expect(await storage.retention.deleteMessagesBefore('env-a', T1, 10)).toHaveLength(1);
  expect(await storage.deliveryStatus.find('env-a', 'mailer', ['pm-1', 'pm-2', 'pm-3'])).toEqual([kept]);

  // Held events: counted by integration (not those held before 0015), each kept once, dropped by age.
  expect(await storage.deliveryStatus.countHeld('env-a', 'i1')).toBe(3);
  await storage.deliveryStatus.hold('env-a', [{ ...held[0]!, receivedAt: '2026-01-03T00:00:00.000Z' }]);
  expect(await storage.deliveryStatus.countHeld('env-a', 'i1')).toBe(3);
  const next: HeldStatus = { providerId: 'mailer', integrationId: 'i1', event: event('e-next', 'pm-9', 'bounced'), receivedAt: '2026-01-03T00:00:00.000Z' };
  await storage.deliveryStatus.hold('env-a', [next]);
  expect(await storage.deliveryStatus.dropHeldBefore('env-a', T1)).toBe(1);
  expect(await storage.deliveryStatus.takeHeld('env-a', 'mailer', ['pm-8'])).toEqual([]);
  // In the order they came: the moved ones in their old order, then the one held since.
  expect(await storage.deliveryStatus.takeHeld('env-a', 'mailer', ['pm-9'])).toEqual([held[0], held[1], held[2], next]);
  expect(await storage.deliveryStatus.countHeld('env-a', 'i1')).toBe(0);

  for (const table of ['tidings_provider_refs', 'tidings_held_status']) await expect(sql`select * from ${tableName(dialect, table)}`.execute(db), table).rejects.toThrow();
}
