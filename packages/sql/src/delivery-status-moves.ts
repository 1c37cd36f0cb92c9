import { sql } from 'kysely';
import type { SqlDialect } from './dialect.js';
import type { RecordsMove } from './move-to-records.js';

/**
 * The tables migration 0018 moves into the record store, each row becoming the record core's
 * delivery status repository (`@tidings/core`'s `records/delivery-status.ts`) writes for it: the same
 * key, index and sort values. A held event's sort is its receive instant then its old sequence
 * number, so the events held before keep their order.
 */
export function deliveryStatusMoves(dialect: SqlDialect): RecordsMove[] {
  const pg = dialect.name === 'postgres';
  const ofProvider = (id: string) => (pg ? sql`provider_id || chr(1) || ${sql.ref(id)}` : sql`provider_id || char(1) || ${sql.ref(id)}`);
  return [
    {
      from: 'tidings_provider_refs',
      table: 'provider-refs',
      key: ofProvider('provider_message_id'),
      i1: sql`message_id`,
      i2: sql`subscriber_internal_id`,
      doc: pg
        ? sql`jsonb_build_object('providerId', provider_id, 'providerMessageId', provider_message_id, 'messageId', message_id, 'subscriberInternalId', subscriber_internal_id)`
        : sql`json_object('providerId', provider_id, 'providerMessageId', provider_message_id, 'messageId', message_id, 'subscriberInternalId', subscriber_internal_id)`,
    },
    {
      from: 'tidings_held_status',
      table: 'held-status',
      key: ofProvider('event_id'),
      i1: ofProvider('provider_message_id'),
      i2: sql`integration_id`,
      sort: pg ? sql`received_at || '|' || lpad(seq::text, 16, '0')` : sql`received_at || '|' || substr('0000000000000000' || seq, -16, 16)`,
      // Events held before 0015 have no integration, and their records none either.
      doc: pg
        ? sql`jsonb_build_object('providerId', provider_id, 'event', doc, 'receivedAt', received_at) || jsonb_strip_nulls(jsonb_build_object('integrationId', integration_id))`
        : sql`json_patch(json_object('providerId', provider_id, 'event', json(doc), 'receivedAt', received_at), json_object('integrationId', integration_id))`,
    },
  ];
}
