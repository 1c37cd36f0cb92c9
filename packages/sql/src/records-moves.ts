import { sql } from 'kysely';
import type { SqlDialect } from './dialect.js';
import type { RecordsMove } from './move-to-records.js';

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
