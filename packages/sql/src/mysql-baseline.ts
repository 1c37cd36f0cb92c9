import { sql, type RawBuilder } from 'kysely';
import type { Db } from './dialect.js';
import type { Migration } from './migrations.js';

/*
 * Column types. Text that is a key, or in an index, is a bounded binary string: it compares in byte
 * order (the order of the other dialects' `collate "C"` and SQLite's default) with no trailing-space
 * padding, and its bounds are bytes, so the indexes fit InnoDB's 3,072-byte key limit. Lengths are in
 * bytes: ids and keys are at most 256 characters (core's limit), four bytes each at the most.
 */
const ENV = 'varbinary(255)';
const ID = 'varbinary(1024)';
/** A record's key, which may join two ids (a preference: subscriber and workflow). */
const RECORD_KEY = 'varbinary(2048)';
const RECORD_SORT = 'varbinary(1536)';
/** A kind, channel, status, severity or table name. */
const NAME = 'varbinary(64)';
/** An ISO instant. */
const INSTANT = 'varbinary(64)';
const JSON_TEXT = 'longtext';
/** Text in byte order (`utf8mb4_bin`), for every column not declared otherwise. */
const TABLE_OPTIONS = 'engine=InnoDB default charset=utf8mb4 collate=utf8mb4_bin';

/** The secondary indexes of the record tables with tables of their own (InnoDB appends the key to each). */
const OWN_INDEXES: Readonly<Record<string, readonly (readonly string[])[]>> = { subscribers: [], notifications: [['i1'], ['sort']], traces: [['i1']] };

const STATEMENTS: readonly string[] = [
  `create table if not exists tidings_topic_members (
    env ${ENV} not null, topic_key ${ID} not null, subscriber_id ${ID} not null, subscriber_internal_id ${ID} not null,
    primary key (env, topic_key, subscriber_id),
    index tidings_topic_members_subscriber (env, subscriber_id)
  ) ${TABLE_OPTIONS}`,
  `create table if not exists tidings_jobs (
    id ${ID} not null primary key, env ${ENV} not null, kind ${NAME} not null, run_at ${INSTANT} not null, attempts integer not null,
    locked_by ${ID}, locked_until ${INSTANT}, transaction_id ${ID} not null, subscriber_id ${ID} not null,
    data ${JSON_TEXT} not null, last_error mediumtext, job_key ${ID},
    index tidings_jobs_due (run_at, id),
    index tidings_jobs_transaction (env, transaction_id),
    index tidings_jobs_env_due (env, run_at, id),
    index tidings_jobs_subscriber_due (env, subscriber_id, run_at),
    unique index tidings_jobs_key (env, job_key)
  ) ${TABLE_OPTIONS}`,
  `create table if not exists tidings_messages (
    id ${ID} not null primary key, env ${ENV} not null, subscriber_internal_id ${ID} not null, transaction_id ${ID} not null,
    channel ${NAME} not null, \`read\` integer not null, seen integer not null, created_at ${INSTANT} not null, doc ${JSON_TEXT} not null,
    archived integer not null default 0, snoozed_until ${INSTANT}, tags text not null, severity ${NAME} not null default 'none',
    expires_at ${INSTANT},
    index tidings_messages_feed (env, subscriber_internal_id, created_at desc, id desc),
    index tidings_messages_transaction (env, transaction_id),
    index tidings_messages_inbox (env, subscriber_internal_id, archived, \`read\`, severity, snoozed_until, expires_at),
    index tidings_messages_expiry (env, expires_at, id),
    index tidings_messages_created (env, created_at, id)
  ) ${TABLE_OPTIONS}`,
  // The record store (0016). Its secondary indexes end in the primary key's columns, which InnoDB
  // appends to every secondary index: (env, tbl, sort) orders by (sort, key) as the other dialects'
  // (env, tbl, sort, key) does, within the key-size limit.
  // The record tables with tables of their own (0020, `OWN_RECORD_TABLES`).
  ...Object.entries(OWN_INDEXES).map(
    ([table, indexes]) => `create table if not exists tidings_record_${table} (
    env ${ENV} not null, \`key\` ${RECORD_KEY} not null, i1 ${ID}, i2 ${ID}, i3 ${ID}, sort ${RECORD_SORT} not null, doc ${JSON_TEXT} not null,
    ${['primary key (env, `key`)', ...indexes.map((columns) => `index tidings_record_${table}_${columns.join('_')} (env, ${columns.join(', ')})`)].join(',\n    ')}
  ) ${TABLE_OPTIONS}`,
  ),
  `create table if not exists tidings_records (
    env ${ENV} not null, tbl ${NAME} not null, \`key\` ${RECORD_KEY} not null, i1 ${ID}, i2 ${ID}, i3 ${ID},
    sort ${RECORD_SORT} not null, doc ${JSON_TEXT} not null,
    primary key (env, tbl, \`key\`),
    index tidings_records_sort (env, tbl, sort),
    index tidings_records_i1 (env, tbl, i1, sort),
    index tidings_records_i2 (env, tbl, i2, sort)
  ) ${TABLE_OPTIONS}`,
];

/** A member of a record's document as text (the views' columns). */
const member = (name: string) => `json_unquote(json_extract(doc, '$.${name}'))`;

/** The read-only views the record store's migrations left on the other dialects, for apps that read Tidings' tables. */
const VIEWS: Readonly<Record<string, string>> = {
  tidings_workflows: `select env, \`key\` as id, i1 as identifier, i2 as slug, sort as created_at, doc from tidings_records where tbl = 'workflows'`,
  tidings_tenants: `select env, \`key\` as identifier, doc from tidings_records where tbl = 'tenants'`,
  tidings_integrations: `select env, \`key\` as id, i1 as identifier, i2 as channel, case when i3 = '1' then 1 else 0 end as active,
    case when json_extract(doc, '$.primary') = true then 1 else 0 end as is_primary, sort as created_at, doc from tidings_records where tbl = 'integrations'`,
  tidings_preferences: `select env, i1 as subscriber_id, coalesce(i2, '') as workflow_id, doc from tidings_records where tbl = 'preferences'`,
  tidings_digests: `select env, i1 as id, ${member('key')} as \`key\`, ${member('status')} as status, i3 as subscriber_id, ${member('dueAt')} as due_at, doc,
    cast(json_extract(doc, '$.eventCount') as signed) as event_count from tidings_records where tbl = 'digests' and i2 is null`,
  tidings_topics: `select env, \`key\`, ${member('_id')} as id, doc from tidings_records where tbl = 'topics'`,
  tidings_subscribers: `select env, \`key\` as subscriber_id, ${member('_id')} as id, doc from tidings_record_subscribers`,
  tidings_notifications: `select env, i1 as id, \`key\` as transaction_id, doc, substr(sort, 1, 24) as created_at from tidings_record_notifications`,
};

const run = (db: Db, text: string): Promise<unknown> => (sql.raw(text) as RawBuilder<unknown>).execute(db);

/**
 * MySQL's schema, as migrations 0001 to 0020 leave it on the other dialects (without the tables they
 * dropped): a MySQL database has no history to upgrade. MySQL commits each DDL statement on its own,
 * so every statement may run again: an interrupted baseline is finished by the next start.
 */
export const MYSQL_BASELINE: Migration & { readonly covers: readonly string[] } = {
  name: 'mysql_baseline',
  covers: [
    '0001_initial',
    '0002_digests',
    '0003_idempotency',
    '0004_inbox',
    '0005_jobs_env_due',
    '0006_digest_events',
    '0007_idempotency_since',
    '0008_inbox_filters',
    '0009_job_keys',
    '0010_delivery_status',
    '0011_frequency',
    '0012_message_expiry',
    '0013_window_hits_expiry',
    '0014_inbox_index_expiry',
    '0015_held_status_integration',
    '0016_records',
    '0017_digests_records',
    '0018_delivery_status_records',
    '0019_topics_records',
    '0020_people_and_triggers_records',
  ],
  async up(db) {
    for (const statement of STATEMENTS) await run(db, statement);
    for (const [name, select] of Object.entries(VIEWS)) await run(db, `create or replace view ${name} as ${select}`);
  },
};
