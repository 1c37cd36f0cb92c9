import { sql } from 'kysely';
import type { SqlDialect } from './dialect.js';
import { tableName, type RecordsMove } from './move-to-records.js';
import { OWN_RECORD_TABLES } from './record-tables.js';

/**
 * The tables migration 0016 moves into the record store, each row becoming the record core's
 * repository (`@tidings/core`'s `records/`) writes for it: the same key, index and sort values.
 */
export function recordsMoves(dialect: SqlDialect): RecordsMove[] {
  const pg = dialect.name === 'postgres';
  return [
    {
      from: 'tidings_workflows',
      table: 'workflows',
      key: sql`id`,
      i1: sql`identifier`,
      i2: sql`slug`,
      sort: sql`created_at`,
      doc: sql`doc`,
      view: { env: sql`env`, id: sql`key`, identifier: sql`i1`, slug: sql`i2`, created_at: sql`sort`, doc: sql`doc` },
    },
    { from: 'tidings_tenants', table: 'tenants', key: sql`identifier`, doc: sql`doc`, view: { env: sql`env`, identifier: sql`key`, doc: sql`doc` } },
    {
      from: 'tidings_integrations',
      table: 'integrations',
      key: sql`id`,
      i1: sql`identifier`,
      i2: sql`channel`,
      i3: sql`case when active <> 0 then '1' else '0' end`,
      sort: sql`created_at`,
      doc: sql`doc`,
      view: {
        env: sql`env`,
        id: sql`key`,
        identifier: sql`i1`,
        channel: sql`i2`,
        active: sql`case when i3 = '1' then 1 else 0 end`,
        is_primary: pg ? sql`case when (doc->>'primary')::boolean then 1 else 0 end` : sql`case when json_extract(doc, '$.primary') then 1 else 0 end`,
        created_at: sql`sort`,
        doc: sql`doc`,
      },
    },
    {
      from: 'tidings_preferences',
      table: 'preferences',
      key: pg ? sql`subscriber_id || chr(1) || workflow_id` : sql`subscriber_id || char(1) || workflow_id`,
      i1: sql`subscriber_id`,
      i2: sql`nullif(workflow_id, '')`,
      doc: sql`doc`,
      view: { env: sql`env`, subscriber_id: sql`i1`, workflow_id: sql`coalesce(i2, '')`, doc: sql`doc` },
    },
    { from: 'tidings_settings', table: 'settings', key: sql`name`, doc: sql`doc` },
    {
      from: 'tidings_idempotency',
      table: 'idempotency',
      key: sql`key`,
      sort: sql`expires_at`,
      doc: pg
        ? sql`jsonb_build_object('fingerprint', fingerprint, 'response', response, 'expiresAt', expires_at, 'since', since, 'keepUntil', keep_until, 'released', released <> 0)`
        : sql`json_object('fingerprint', fingerprint, 'response', json(response), 'expiresAt', expires_at, 'since', since, 'keepUntil', keep_until, 'released', json(case when released <> 0 then 'true' else 'false' end))`,
    },
    { from: 'tidings_suppressions', table: 'suppressions', key: sql`channel || ':' || address`, i1: sql`channel`, sort: sql`at || '|' || address`, doc: sql`doc` },
    { from: 'tidings_webhook_endpoints', table: 'webhook-endpoints', key: sql`id`, sort: sql`created_at`, doc: sql`doc` },
    { from: 'tidings_webhook_deliveries', table: 'webhook-deliveries', key: sql`id`, i1: sql`endpoint_id`, i2: sql`status`, sort: sql`created_at`, doc: sql`doc` },
    {
      from: 'tidings_window_hits',
      table: 'window-hits',
      key: pg ? sql`key || chr(1) || id` : sql`key || char(1) || id`,
      i1: sql`key`,
      i2: sql`expires_at`,
      sort: sql`at`,
      doc: pg ? sql`jsonb_build_object('key', key, 'id', id, 'at', at, 'expiresAt', expires_at)` : sql`json_object('key', key, 'id', id, 'at', at, 'expiresAt', expires_at)`,
    },
  ];
}

/** The topics' own records (migration 0019): keyed and ordered by key; their memberships stay a table of their own. */
export const topicsMove = (dialect: SqlDialect): RecordsMove => ({
  from: 'tidings_topics',
  table: 'topics',
  key: sql`key`,
  sort: sql`key`,
  doc: sql`doc`,
  view: { env: sql`env`, key: sql`key`, id: dialect.name === 'postgres' ? sql`doc->>'_id'` : sql`json_extract(doc, '$._id')`, doc: sql`doc` },
});

/**
 * The digest tables migration 0017 moves into the record store, as core's digest repository
 * (`@tidings/core`'s `records/digests.ts`) writes them, in this order: heads (while their events are
 * still there to number them), events, backoff keys. A head is keyed by its digest key while open and
 * by its id once closed, sorted by status and due time; its document takes the status, due time and
 * event count of its columns, and the highest sequence number of its events (the next one joins after
 * it). An event keeps its sequence number as its sort value, fixed-width, and the lowest of its
 * digest is marked first.
 */
export function digestMoves(dialect: SqlDialect): RecordsMove[] {
  const pg = dialect.name === 'postgres';
  const sep = pg ? sql`chr(1)` : sql`char(1)`;
  const events = tableName(dialect, 'tidings_digest_events');
  const lastSeq = sql`coalesce((select max(e.seq) from ${events} e where e.env = tidings_digests.env and e.digest_id = tidings_digests.id), 0)`;
  const field = (name: string) => (pg ? sql`doc->>${sql.lit(name)}` : sql`json_extract(doc, ${sql.lit(`$.${name}`)})`);
  return [
    {
      from: 'tidings_digests',
      table: 'digests',
      key: sql`case when status = 'open' then 'open' || ${sep} || key else 'closed' || ${sep} || id end`,
      i1: sql`id`,
      i3: sql`subscriber_id`,
      sort: sql`status || ${sep} || due_at`,
      doc: pg
        ? sql`doc || jsonb_build_object('status', status, 'dueAt', due_at, 'eventCount', event_count, 'seq', ${lastSeq})`
        : sql`json_set(doc, '$.status', status, '$.dueAt', due_at, '$.eventCount', event_count, '$.seq', ${lastSeq})`,
      view: {
        env: sql`env`,
        id: sql`i1`,
        key: field('key'),
        status: field('status'),
        subscriber_id: sql`i3`,
        due_at: field('dueAt'),
        doc: sql`doc`,
        event_count: pg ? sql`(doc->>'eventCount')::integer` : sql`json_extract(doc, '$.eventCount')`,
      },
      // The table holds the events too (with their trigger in `i2`): the view shows the heads.
      viewWhere: sql`i2 is null`,
    },
    {
      from: 'tidings_digest_events',
      table: 'digests',
      key: sql`'event' || ${sep} || key || ${sep} || transaction_id`,
      i1: sql`digest_id`,
      i2: sql`transaction_id`,
      i3: sql`case when seq = (select min(f.seq) from ${events} f where f.env = tidings_digest_events.env and f.digest_id = tidings_digest_events.digest_id) then 'first' end`,
      sort: pg ? sql`lpad(seq::text, 12, '0')` : sql`substr('000000000000' || seq, -12)`,
      doc: sql`doc`,
    },
    {
      from: 'tidings_digest_keys',
      table: 'digest-keys',
      key: sql`key`,
      // Rows from before events were keyed (no transaction id) match no event.
      doc: pg
        ? sql`jsonb_build_object('at', last_at, 'transactionId', coalesce(last_transaction_id, ''), 'previous', previous_at)`
        : sql`json_object('at', last_at, 'transactionId', coalesce(last_transaction_id, ''), 'previous', previous_at)`,
    },
  ];
}

/**
 * The tables migration 0020 moves into the record store (each into a table of its own,
 * `OWN_RECORD_TABLES`), as core's repositories (`records/`) write
 * them: subscribers keyed by subscriberId; notifications keyed by transactionId, sorted by
 * (createdAt, id); decision records keyed by their trigger and sequence number (read by trigger, in key order).
 * Subscribers and notifications stay behind as read-only views with the columns they had.
 */
export function peopleAndTriggerMoves(dialect: SqlDialect): RecordsMove[] {
  const pg = dialect.name === 'postgres';
  const sep = pg ? sql`chr(1)` : sql`char(1)`;
  return [
    {
      from: 'tidings_subscribers',
      table: 'subscribers',
      into: OWN_RECORD_TABLES['subscribers']!.name,
      key: sql`subscriber_id`,
      doc: sql`doc`,
      view: { env: sql`env`, subscriber_id: sql`key`, id: pg ? sql`doc->>'_id'` : sql`json_extract(doc, '$._id')`, doc: sql`doc` },
    },
    {
      from: 'tidings_notifications',
      table: 'notifications',
      into: OWN_RECORD_TABLES['notifications']!.name,
      key: sql`transaction_id`,
      i1: sql`id`,
      sort: sql`coalesce(created_at, '') || ${sep} || id`,
      doc: sql`doc`,
      view: { env: sql`env`, id: sql`i1`, transaction_id: sql`key`, doc: sql`doc`, created_at: sql`substr(sort, 1, 24)` },
    },
    {
      from: 'tidings_traces',
      table: 'traces',
      into: OWN_RECORD_TABLES['traces']!.name,
      key: pg ? sql`transaction_id || ${sep} || lpad(seq::text, 20, '0')` : sql`transaction_id || ${sep} || substr('00000000000000000000' || seq, -20)`,
      i1: sql`transaction_id`,
      i3: sql`subscriber_id`,
      doc: sql`doc`,
    },
  ];
}
