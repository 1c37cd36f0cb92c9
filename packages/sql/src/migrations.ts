import { sql, type ColumnDefinitionBuilder } from 'kysely';
import type { Db, SqlDialect } from './dialect.js';
import { moveToRecords } from './move-to-records.js';
import { OWN_RECORD_TABLES } from './record-tables.js';
import { deliveryStatusMoves } from './delivery-status-moves.js';
import { digestMoves, recordsMoves, topicsMove, peopleAndTriggerMoves } from './records-moves.js';

export interface Migration {
  readonly name: string;
  up(db: Db, dialect: SqlDialect): Promise<void>;
}

/** Ordered, append-only: a released migration is never edited, only followed by a new one. */
/**
 * A table of records: the record store's columns (`tbl` where several tables' records share it),
 * keys, index and sort values compared in byte order, as every other ordered column.
 */
function recordTable(db: Db, dialect: SqlDialect, name: string, shared: boolean) {
  const collate = (c: ColumnDefinitionBuilder) => (dialect.name === 'postgres' ? c.modifyFront(sql`collate "C"`) : c);
  const table = db.schema.createTable(name).addColumn('env', 'text', (c) => c.notNull());
  return (shared ? table.addColumn('tbl', 'text', (c) => c.notNull()) : table)
    .addColumn('key', 'text', (c) => collate(c).notNull())
    .addColumn('i1', 'text', collate)
    .addColumn('i2', 'text', collate)
    .addColumn('i3', 'text', collate)
    .addColumn('sort', 'text', (c) => collate(c).notNull())
    .addColumn('doc', dialect.jsonType, (c) => c.notNull())
    // (The builder's type knows `tbl` on one branch only.)
    .addPrimaryKeyConstraint(`${name}_pk`, (shared ? ['env', 'tbl', 'key'] : ['env', 'key']) as ['env', 'key']);
}

export const MIGRATIONS: readonly Migration[] = [
  {
    name: '0001_initial',
    async up(db, dialect) {
      const json = dialect.jsonType;
      // Instants and ids are compared as text; byte order keeps that right whatever the database locale.
      const ordered = (c: ColumnDefinitionBuilder) => (dialect.name === 'postgres' ? c.modifyFront(sql`collate "C"`) : c).notNull();
      await db.schema
        .createTable('tidings_workflows')
        .addColumn('env', 'text', (c) => c.notNull())
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('identifier', 'text', (c) => c.notNull())
        .addColumn('slug', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', ordered)
        .addColumn('doc', json, (c) => c.notNull())
        .addPrimaryKeyConstraint('tidings_workflows_pk', ['env', 'id'])
        .addUniqueConstraint('tidings_workflows_identifier', ['env', 'identifier'])
        .execute();
      await db.schema
        .createTable('tidings_subscribers')
        .addColumn('env', 'text', (c) => c.notNull())
        .addColumn('subscriber_id', 'text', (c) => c.notNull())
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('doc', json, (c) => c.notNull())
        .addPrimaryKeyConstraint('tidings_subscribers_pk', ['env', 'subscriber_id'])
        .execute();
      await db.schema
        .createTable('tidings_topics')
        .addColumn('env', 'text', (c) => c.notNull())
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('doc', json, (c) => c.notNull())
        .addPrimaryKeyConstraint('tidings_topics_pk', ['env', 'key'])
        .execute();
      await db.schema
        .createTable('tidings_topic_members')
        .addColumn('env', 'text', (c) => c.notNull())
        .addColumn('topic_key', 'text', (c) => c.notNull())
        .addColumn('subscriber_id', 'text', (c) => c.notNull())
        .addColumn('subscriber_internal_id', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('tidings_topic_members_pk', ['env', 'topic_key', 'subscriber_id'])
        .execute();
      await db.schema.createIndex('tidings_topic_members_subscriber').on('tidings_topic_members').columns(['env', 'subscriber_id']).execute();
      await db.schema
        .createTable('tidings_tenants')
        .addColumn('env', 'text', (c) => c.notNull())
        .addColumn('identifier', 'text', (c) => c.notNull())
        .addColumn('doc', json, (c) => c.notNull())
        .addPrimaryKeyConstraint('tidings_tenants_pk', ['env', 'identifier'])
        .execute();
      await db.schema
        .createTable('tidings_integrations')
        .addColumn('env', 'text', (c) => c.notNull())
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('identifier', 'text', (c) => c.notNull())
        .addColumn('channel', 'text', (c) => c.notNull())
        .addColumn('active', 'integer', (c) => c.notNull())
        .addColumn('is_primary', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'text', ordered)
        .addColumn('doc', json, (c) => c.notNull())
        .addPrimaryKeyConstraint('tidings_integrations_pk', ['env', 'id'])
        .addUniqueConstraint('tidings_integrations_identifier', ['env', 'identifier'])
        .execute();
      await db.schema
        .createTable('tidings_preferences')
        .addColumn('env', 'text', (c) => c.notNull())
        .addColumn('subscriber_id', 'text', (c) => c.notNull())
        .addColumn('workflow_id', 'text', (c) => c.notNull())
        .addColumn('doc', json, (c) => c.notNull())
        .addPrimaryKeyConstraint('tidings_preferences_pk', ['env', 'subscriber_id', 'workflow_id'])
        .execute();
      await db.schema
        .createTable('tidings_notifications')
        .addColumn('env', 'text', (c) => c.notNull())
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('transaction_id', 'text', (c) => c.notNull())
        .addColumn('doc', json, (c) => c.notNull())
        .addPrimaryKeyConstraint('tidings_notifications_pk', ['env', 'id'])
        .addUniqueConstraint('tidings_notifications_transaction', ['env', 'transaction_id'])
        .execute();
      await db.schema
        .createTable('tidings_jobs')
        .addColumn('id', 'text', (c) => ordered(c).primaryKey())
        .addColumn('env', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('run_at', 'text', ordered)
        .addColumn('attempts', 'integer', (c) => c.notNull())
        .addColumn('locked_by', 'text')
        .addColumn('locked_until', 'text', (c) => (dialect.name === 'postgres' ? c.modifyFront(sql`collate "C"`) : c))
        .addColumn('transaction_id', 'text', (c) => c.notNull())
        .addColumn('subscriber_id', 'text', (c) => c.notNull())
        .addColumn('data', json, (c) => c.notNull())
        .addColumn('last_error', 'text')
        .execute();
      await db.schema.createIndex('tidings_jobs_due').on('tidings_jobs').columns(['run_at', 'id']).execute();
      await db.schema.createIndex('tidings_jobs_transaction').on('tidings_jobs').columns(['env', 'transaction_id']).execute();
      await db.schema
        .createTable('tidings_messages')
        .addColumn('id', 'text', (c) => ordered(c).primaryKey())
        .addColumn('env', 'text', (c) => c.notNull())
        .addColumn('subscriber_internal_id', 'text', (c) => c.notNull())
        .addColumn('transaction_id', 'text', (c) => c.notNull())
        .addColumn('channel', 'text', (c) => c.notNull())
        .addColumn('read', 'integer', (c) => c.notNull())
        .addColumn('seen', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'text', ordered)
        .addColumn('doc', json, (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('tidings_messages_feed')
        .on('tidings_messages')
        .columns(['env', 'subscriber_internal_id', 'created_at desc', 'id desc'])
        .execute();
      await db.schema.createIndex('tidings_messages_transaction').on('tidings_messages').columns(['env', 'transaction_id']).execute();
      await db.schema
        .createTable('tidings_traces')
        .addColumn('seq', dialect.serialType, (c) => c.primaryKey())
        .addColumn('env', 'text', (c) => c.notNull())
        .addColumn('transaction_id', 'text', (c) => c.notNull())
        .addColumn('subscriber_id', 'text', (c) => c.notNull())
        .addColumn('at', 'text', ordered)
        .addColumn('doc', json, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('tidings_traces_transaction').on('tidings_traces').columns(['env', 'transaction_id', 'at']).execute();
    },
  },
  {
    name: '0002_digests',
    async up(db, dialect) {
      const ordered = (c: ColumnDefinitionBuilder) => (dialect.name === 'postgres' ? c.modifyFront(sql`collate "C"`) : c).notNull();
      await db.schema
        .createTable('tidings_digests')
        .addColumn('env', 'text', (c) => c.notNull())
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('subscriber_id', 'text', (c) => c.notNull())
        .addColumn('due_at', 'text', ordered)
        .addColumn('doc', dialect.jsonType, (c) => c.notNull())
        .addPrimaryKeyConstraint('tidings_digests_pk', ['env', 'id'])
        .execute();
      // At most one open digest per key: the database refuses a second even if two joins race.
      await db.schema.createIndex('tidings_digests_open').on('tidings_digests').columns(['env', 'key']).unique().where(sql.ref('status'), '=', 'open').execute();
      await db.schema
        .createTable('tidings_digest_keys')
        .addColumn('env', 'text', (c) => c.notNull())
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('last_at', 'text', ordered)
        .addPrimaryKeyConstraint('tidings_digest_keys_pk', ['env', 'key'])
        .execute();
    },
  },
  {
    name: '0003_idempotency',
    async up(db, dialect) {
      await db.schema
        .createTable('tidings_idempotency')
        .addColumn('env', 'text', (c) => c.notNull())
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('fingerprint', 'text', (c) => c.notNull())
        .addColumn('response', dialect.jsonType)
        .addColumn('expires_at', 'text', (c) => (dialect.name === 'postgres' ? c.modifyFront(sql`collate "C"`) : c).notNull())
        .addPrimaryKeyConstraint('tidings_idempotency_pk', ['env', 'key'])
        .execute();
    },
  },
  {
    name: '0004_inbox',
    async up(db, dialect) {
      const collate = (c: ColumnDefinitionBuilder) => (dialect.name === 'postgres' ? c.modifyFront(sql`collate "C"`) : c);
      await db.schema.alterTable('tidings_messages').addColumn('archived', 'integer', (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.alterTable('tidings_messages').addColumn('snoozed_until', 'text', collate).execute();
      await db.schema.alterTable('tidings_messages').addColumn('tags', 'text', (c) => c.notNull().defaultTo('')).execute();
    },
  },
  {
    name: '0005_jobs_env_due',
    async up(db) {
      // Claims filter by environment and take the earliest jobs: without this index the planner picked
      // (env, transaction_id) and sorted every job of the environment on each claim.
      await db.schema.createIndex('tidings_jobs_env_due').on('tidings_jobs').columns(['env', 'run_at', 'id']).execute();
    },
  },
  {
    name: '0006_digest_events',
    async up(db, dialect) {
      // A digest's events move out of its document into rows of their own, keyed by the event, so a
      // join inserts one row (not a rewrite of every event so far) and a re-run join finds its event.
      await db.schema
        .createTable('tidings_digest_events')
        .addColumn('seq', dialect.serialType, (c) => c.primaryKey())
        .addColumn('env', 'text', (c) => c.notNull())
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('transaction_id', 'text', (c) => c.notNull())
        .addColumn('digest_id', 'text', (c) => c.notNull())
        .addColumn('doc', dialect.jsonType, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('tidings_digest_events_event').on('tidings_digest_events').columns(['env', 'key', 'transaction_id']).unique().execute();
      await db.schema.createIndex('tidings_digest_events_digest').on('tidings_digest_events').columns(['env', 'digest_id', 'seq']).execute();
      await db.schema.createIndex('tidings_digest_events_transaction').on('tidings_digest_events').columns(['env', 'transaction_id']).execute();
      // A flush looks for the subscriber's jobs due before its window closed (events still on their way).
      await db.schema.createIndex('tidings_jobs_subscriber_due').on('tidings_jobs').columns(['env', 'subscriber_id', 'run_at']).execute();
      await db.schema.alterTable('tidings_digests').addColumn('event_count', 'integer', (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.alterTable('tidings_digest_keys').addColumn('last_transaction_id', 'text').execute();
      await db.schema.alterTable('tidings_digest_keys').addColumn('previous_at', 'text').execute();
      const rows = await db.selectFrom('tidings_digests').select(['env', 'id', 'key', 'doc']).orderBy('id').execute();
      const moved = new Set<string>();
      for (const row of rows) {
        const { events: all = [], ...head } = (typeof row.doc === 'string' ? JSON.parse(row.doc) : row.doc) as { events?: { transactionId: string }[] };
        // An event joined twice before joins were keyed (a re-run job) is kept once.
        const events = all.filter((event) => !moved.has(JSON.stringify([row.env, row.key, event.transactionId])) && moved.add(JSON.stringify([row.env, row.key, event.transactionId])));
        for (const event of events) {
          await db.insertInto('tidings_digest_events').values({ env: row.env, key: row.key, transaction_id: event.transactionId, digest_id: row.id, doc: JSON.stringify(event) }).execute();
        }
        await db.updateTable('tidings_digests').set({ doc: JSON.stringify(head), event_count: events.length }).where('env', '=', row.env).where('id', '=', row.id).execute();
      }
    },
  },
  {
    name: '0007_idempotency_since',
    async up(db, dialect) {
      // A released key keeps when its use began, so a retry of a request that may have committed
      // derives the same transactionIds (see the HTTP adapter's keyed triggers).
      const collate = (c: ColumnDefinitionBuilder) => (dialect.name === 'postgres' ? c.modifyFront(sql`collate "C"`) : c);
      await db.schema.alterTable('tidings_idempotency').addColumn('since', 'text', collate).execute();
      await db.schema.alterTable('tidings_idempotency').addColumn('keep_until', 'text', collate).execute();
      await db.schema.alterTable('tidings_idempotency').addColumn('released', 'integer', (c) => c.notNull().defaultTo(0)).execute();
    },
  },
  {
    name: '0008_inbox_filters',
    async up(db) {
      // Novu's Inbox filters and counts by severity, and re-counts after every action: the bell's four
      // counts (unread, unarchived, unsnoozed, one severity each) read this index alone.
      await db.schema.alterTable('tidings_messages').addColumn('severity', 'text', (c) => c.notNull().defaultTo('none')).execute();
      await db.schema
        .createIndex('tidings_messages_inbox')
        .on('tidings_messages')
        .columns(['env', 'subscriber_internal_id', 'archived', 'read', 'severity', 'snoozed_until'])
        .execute();
    },
  },
  {
    name: '0009_job_keys',
    async up(db) {
      // A job may carry a key, unique in its environment: enqueuing the key again moves that job. A
      // digest's flush is one job keyed by the digest, where it used to ride on its first event's job.
      await db.schema.alterTable('tidings_jobs').addColumn('job_key', 'text').execute();
      await db.schema.createIndex('tidings_jobs_key').on('tidings_jobs').columns(['env', 'job_key']).unique().where(sql.ref('job_key'), 'is not', null).execute();
      const waiting = await db.selectFrom('tidings_jobs').select(['id', 'env', 'data']).where('kind', '=', 'walk').execute();
      for (const job of waiting) {
        const data = (typeof job.data === 'string' ? JSON.parse(job.data) : job.data) as { digestId?: string };
        if (data.digestId === undefined) continue;
        const digest = await db.selectFrom('tidings_digests').select('status').where('env', '=', job.env).where('id', '=', data.digestId).executeTakeFirst();
        // A closed digest is being flushed: its walk goes on as it is.
        if (digest?.status !== 'open') continue;
        const key = `digest:${data.digestId}`;
        const flush = JSON.stringify({ digestId: data.digestId });
        await db.updateTable('tidings_jobs').set({ kind: 'digest', job_key: key, transaction_id: key, data: flush }).where('id', '=', job.id).execute();
      }
    },
  },
  {
    name: '0010_delivery_status',
    async up(db, dialect) {
      // Where a provider's message id points (a status callback finds its message by it), and callback
      // events that came before their message was stored.
      await db.schema
        .createTable('tidings_provider_refs')
        .addColumn('env', 'text', (c) => c.notNull())
        .addColumn('provider_id', 'text', (c) => c.notNull())
        .addColumn('provider_message_id', 'text', (c) => c.notNull())
        .addColumn('message_id', 'text', (c) => c.notNull())
        .addColumn('subscriber_internal_id', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('tidings_provider_refs_pk', ['env', 'provider_id', 'provider_message_id'])
        .execute();
      await db.schema
        .createTable('tidings_held_status')
        .addColumn('seq', dialect.serialType, (c) => c.primaryKey())
        .addColumn('env', 'text', (c) => c.notNull())
        .addColumn('provider_id', 'text', (c) => c.notNull())
        .addColumn('event_id', 'text', (c) => c.notNull())
        .addColumn('provider_message_id', 'text', (c) => c.notNull())
        .addColumn('received_at', 'text', (c) => c.notNull())
        .addColumn('doc', dialect.jsonType, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('tidings_held_status_event').on('tidings_held_status').columns(['env', 'provider_id', 'event_id']).unique().execute();
      await db.schema.createIndex('tidings_held_status_message').on('tidings_held_status').columns(['env', 'provider_id', 'provider_message_id']).execute();
      await db.schema.createIndex('tidings_held_status_received').on('tidings_held_status').columns(['env', 'received_at']).execute();
      // The addresses not sent to: one row per (channel, address), listed newest first.
      const ordered = (c: ColumnDefinitionBuilder) => (dialect.name === 'postgres' ? c.modifyFront(sql`collate "C"`) : c).notNull();
      await db.schema
        .createTable('tidings_suppressions')
        .addColumn('env', 'text', (c) => c.notNull())
        .addColumn('channel', 'text', (c) => c.notNull())
        .addColumn('address', 'text', ordered)
        .addColumn('at', 'text', ordered)
        .addColumn('doc', dialect.jsonType, (c) => c.notNull())
        .addPrimaryKeyConstraint('tidings_suppressions_pk', ['env', 'channel', 'address'])
        .execute();
      await db.schema.createIndex('tidings_suppressions_list').on('tidings_suppressions').columns(['env', 'at', 'address']).execute();
      // Webhook endpoints, and the outbox: one delivery per event and endpoint, written with the change.
      await db.schema
        .createTable('tidings_webhook_endpoints')
        .addColumn('env', 'text', (c) => c.notNull())
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', ordered)
        .addColumn('doc', dialect.jsonType, (c) => c.notNull())
        .addPrimaryKeyConstraint('tidings_webhook_endpoints_pk', ['env', 'id'])
        .execute();
      await db.schema
        .createTable('tidings_webhook_deliveries')
        .addColumn('env', 'text', (c) => c.notNull())
        .addColumn('id', 'text', ordered)
        .addColumn('endpoint_id', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', ordered)
        .addColumn('doc', dialect.jsonType, (c) => c.notNull())
        .addPrimaryKeyConstraint('tidings_webhook_deliveries_pk', ['env', 'id'])
        .execute();
      await db.schema.createIndex('tidings_webhook_deliveries_list').on('tidings_webhook_deliveries').columns(['env', 'created_at', 'id']).execute();
      await db.schema.createIndex('tidings_webhook_deliveries_endpoint').on('tidings_webhook_deliveries').columns(['env', 'endpoint_id', 'created_at', 'id']).execute();
    },
  },
  {
    name: '0011_frequency',
    async up(db, dialect) {
      // Sliding-window hits (throttle runs, sends counted by caps and rates), and an environment's settings.
      const ordered = (c: ColumnDefinitionBuilder) => (dialect.name === 'postgres' ? c.modifyFront(sql`collate "C"`) : c).notNull();
      await db.schema
        .createTable('tidings_window_hits')
        .addColumn('env', 'text', (c) => c.notNull())
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('at', 'text', ordered)
        .addColumn('expires_at', 'text', ordered)
        .addPrimaryKeyConstraint('tidings_window_hits_pk', ['env', 'key', 'id'])
        .execute();
      await db.schema.createIndex('tidings_window_hits_at').on('tidings_window_hits').columns(['env', 'key', 'at']).execute();
      await db.schema
        .createTable('tidings_settings')
        .addColumn('env', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('doc', dialect.jsonType, (c) => c.notNull())
        .addPrimaryKeyConstraint('tidings_settings_pk', ['env', 'name'])
        .execute();
    },
  },
  {
    name: '0012_message_expiry',
    async up(db, dialect) {
      const collate = (c: ColumnDefinitionBuilder) => (dialect.name === 'postgres' ? c.modifyFront(sql`collate "C"`) : c);
      // A message's expiry: every read leaves expired rows out, and the sweeper finds them by this
      // index, which holds only the rows that expire (the others cost it nothing).
      await db.schema.alterTable('tidings_messages').addColumn('expires_at', 'text', collate).execute();
      await db.schema.createIndex('tidings_messages_expiry').on('tidings_messages').columns(['env', 'expires_at', 'id']).where(sql.ref('expires_at'), 'is not', null).execute();
      // Retention deletes the oldest rows first, a small batch at a time, each batch read by index.
      await db.schema.createIndex('tidings_messages_created').on('tidings_messages').columns(['env', 'created_at', 'id']).execute();
      await db.schema.alterTable('tidings_notifications').addColumn('created_at', 'text', collate).execute();
      const createdAt = dialect.name === 'postgres' ? sql<string>`doc->>'createdAt'` : sql<string>`json_extract(doc, '$.createdAt')`;
      await db.updateTable('tidings_notifications').set({ created_at: createdAt }).execute();
      await db.schema.createIndex('tidings_notifications_created').on('tidings_notifications').columns(['env', 'created_at', 'id']).execute();
      // A deleted message takes the provider references that point to it along.
      await db.schema.createIndex('tidings_provider_refs_message').on('tidings_provider_refs').columns(['env', 'message_id']).execute();
    },
  },
  {
    name: '0013_window_hits_expiry',
    async up(db) {
      // The sweeper deletes expired window hits of keys no longer used (a throttle key, a subscriber who left).
      await db.schema.createIndex('tidings_window_hits_expiry').on('tidings_window_hits').columns(['env', 'expires_at']).execute();
    },
  },
  {
    name: '0014_inbox_index_expiry',
    async up(db) {
      // The bell's counts leave expired messages out: with `expires_at` in the inbox index they read
      // it alone again, instead of every row of the subscriber.
      await db.schema.dropIndex('tidings_messages_inbox').execute();
      await db.schema
        .createIndex('tidings_messages_inbox')
        .on('tidings_messages')
        .columns(['env', 'subscriber_internal_id', 'archived', 'read', 'severity', 'snoozed_until', 'expires_at'])
        .execute();
    },
  },
  {
    name: '0015_held_status_integration',
    async up(db, dialect) {
      // A held report names the integration whose callback brought it: only that integration's
      // message takes it, and the engine counts what each integration holds (it holds at most so
      // many). Rows held before stay without one, taken by any integration's message, for a day.
      const collate = (c: ColumnDefinitionBuilder) => (dialect.name === 'postgres' ? c.modifyFront(sql`collate "C"`) : c);
      await db.schema.alterTable('tidings_held_status').addColumn('integration_id', 'text', collate).execute();
      await db.schema.createIndex('tidings_held_status_integration').on('tidings_held_status').columns(['env', 'integration_id']).execute();
    },
  },
  {
    name: '0016_records',
    async up(db, dialect) {
      // The record store: the repositories core keeps as keyed JSON records, in one table. Keys, index
      // and sort values are compared in byte order, as every other ordered column.
      await recordTable(db, dialect, 'tidings_records', true).execute();
      // Finds filter on an index value or none, and read in (sort, key) order.
      await db.schema.createIndex('tidings_records_sort').on('tidings_records').columns(['env', 'tbl', 'sort', 'key']).execute();
      await db.schema.createIndex('tidings_records_i1').on('tidings_records').columns(['env', 'tbl', 'i1', 'sort', 'key']).execute();
      await db.schema.createIndex('tidings_records_i2').on('tidings_records').columns(['env', 'tbl', 'i2', 'sort', 'key']).execute();
      // The rows of the tables whose repositories moved onto it, copied, and those tables dropped.
      for (const move of recordsMoves(dialect)) await moveToRecords(db, dialect, move);
    },
  },
  {
    name: '0017_digests_records',
    async up(db, dialect) {
      // Digests move into the record store (core's `records/digests.ts`): heads and events in one
      // table, so a join writes both in one statement; the backoff keys in a table of their own. Only
      // the heads are left behind, as a read-only view `tidings_digests` with the columns it had.
      for (const move of digestMoves(dialect)) await moveToRecords(db, dialect, move);
    },
  },
  {
    name: '0018_delivery_status_records',
    async up(db, dialect) {
      // Provider references and held status events move to the record store (core's delivery status
      // repository): their rows copied, their tables dropped. Needs only 0016's table.
      for (const move of deliveryStatusMoves(dialect)) await moveToRecords(db, dialect, move);
    },
  },
  {
    name: '0019_topics_records',
    async up(db, dialect) {
      // Topics' own records join the record store (core writes them); memberships stay a table.
      await moveToRecords(db, dialect, topicsMove(dialect));
    },
  },
  {
    name: '0020_people_and_triggers_records',
    async up(db, dialect) {
      // Subscribers, notifications and decision records join the record store (core writes them):
      // what a backend writes itself is down to jobs, messages and topic memberships. Each gets a
      // table of its own with only the indexes its finds use (`OWN_RECORD_TABLES`).
      for (const { name, indexes } of Object.values(OWN_RECORD_TABLES)) {
        await recordTable(db, dialect, name, false).execute();
        for (const columns of indexes) {
          const index = db.schema.createIndex(`${name}_${columns.join('_')}`).on(name).columns(['env', ...columns]);
          await (columns[0] === 'i1' ? index.where(sql.ref('i1'), 'is not', null) : index).execute();
        }
      }
      for (const move of peopleAndTriggerMoves(dialect)) await moveToRecords(db, dialect, move);
      // Most records leave an index value empty (a subscriber its second, a decision record its
      // second): each index value's index holds only the records with one, a write fewer for each
      // without. A find on a value (equal, in a list, in a range) implies it is not null, so it still
      // uses them.
      for (const column of ['i1', 'i2'] as const) {
        await db.schema.dropIndex(`tidings_records_${column}`).execute();
        await db.schema.createIndex(`tidings_records_${column}`).on('tidings_records').columns(['env', 'tbl', column, 'sort', 'key']).where(sql.ref(column), 'is not', null).execute();
      }
    },
  },
  {
    name: '0021_message_context',
    async up(db, dialect) {
      // Novu's Inbox opened with a context shows only the messages triggered with exactly that
      // context, and one opened without shows only those with none: every feed and count of the
      // Inbox compares it, so it is a column of the inbox index (the bell's counts read that alone).
      // Messages stored before have none.
      await db.schema.alterTable('tidings_messages').addColumn('context_key', dialect.keyType, (c) => c.notNull().defaultTo('')).execute();
      const drop = db.schema.dropIndex('tidings_messages_inbox');
      await (dialect.name === 'mysql' ? drop.on('tidings_messages') : drop).execute();
      await db.schema
        .createIndex('tidings_messages_inbox')
        .on('tidings_messages')
        .columns(['env', 'subscriber_internal_id', 'context_key', 'archived', 'read', 'severity', 'snoozed_until', 'expires_at'])
        .execute();
    },
  },
  {
    name: '0022_job_priority',
    async up(db) {
      // A claim takes every due transactional job (0) before any bulk one (1): each class is read in
      // its own range of this index, earliest first, so a broadcast's queued pages never stand before
      // a password reset triggered after them. Jobs stored before are transactional, as they were served.
      await db.schema.alterTable('tidings_jobs').addColumn('priority', 'integer', (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.createIndex('tidings_jobs_env_priority_due').on('tidings_jobs').columns(['env', 'priority', 'run_at', 'id']).execute();
    },
  },
];

/**
 * Applies every migration not yet recorded in `tidings_migrations`, in order, inside one lock that
 * other processes migrating the same database wait for. Returns the names it applied.
 */
export async function migrate(db: Db, dialect: SqlDialect, migrations: readonly Migration[] = MIGRATIONS): Promise<string[]> {
  const applied: string[] = [];
  await dialect.withMigrationLock(db, async (locked) => {
    await locked.schema
      .createTable('tidings_migrations')
      .ifNotExists()
      .addColumn('name', dialect.keyType, (c) => c.primaryKey())
      .addColumn('applied_at', 'text', (c) => c.notNull())
      .execute();
    const done = new Set((await locked.selectFrom('tidings_migrations').select('name').execute()).map((r) => r.name));
    // A database with no migrations yet starts from the dialect's baseline, if it has one: the schema
    // the migrations it covers would have left, recorded under their names.
    const baseline = dialect.baseline;
    if (baseline && done.size === 0) {
      await baseline.up(locked, dialect);
      const at = new Date().toISOString();
      await locked.insertInto('tidings_migrations').values(baseline.covers.map((name) => ({ name, applied_at: at }))).execute();
      for (const name of baseline.covers) done.add(name);
      applied.push(...baseline.covers.filter((name) => migrations.some((m) => m.name === name)));
    }
    for (const migration of migrations) {
      if (done.has(migration.name)) continue;
      await migration.up(locked, dialect);
      await locked.insertInto('tidings_migrations').values({ name: migration.name, applied_at: new Date().toISOString() }).execute();
      applied.push(migration.name);
    }
  });
  return applied;
}

