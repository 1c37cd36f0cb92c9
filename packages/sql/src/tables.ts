import type { Generated } from 'kysely';

/**
 * The tables. Each record is kept whole in `doc` (JSON text on SQLite, jsonb on Postgres) so it reads
 * back exactly as written; the other columns are the keys and what queries filter or sort on, written
 * from the same record in the same statement. Booleans are 0/1 integers on both dialects.
 */
export interface Database {
  tidings_migrations: { name: string; applied_at: string };
  tidings_subscribers: { env: string; subscriber_id: string; id: string; doc: unknown };
  tidings_topic_members: { env: string; topic_key: string; subscriber_id: string; subscriber_internal_id: string };
  /** `created_at` since 0012 (filled from `doc` for rows before it): what retention deletes by. */
  tidings_notifications: { env: string; id: string; transaction_id: string; doc: unknown; created_at: string | null };
  tidings_jobs: {
    id: string;
    env: string;
    kind: string;
    run_at: string;
    attempts: number;
    locked_by: string | null;
    locked_until: string | null;
    transaction_id: string;
    subscriber_id: string;
    data: unknown;
    last_error: string | null;
    job_key: string | null;
    /** The job's class: 0 transactional, 1 bulk (claimed after every due transactional job). */
    priority: number;
  };
  tidings_messages: {
    id: string;
    env: string;
    subscriber_internal_id: string;
    transaction_id: string;
    channel: string;
    read: number;
    seen: number;
    created_at: string;
    doc: unknown;
    archived: number;
    snoozed_until: string | null;
    /** Since 0012: the message is gone from this instant (kept out of `doc`). */
    expires_at: string | null;
    /** `,tag1,tag2,`: tag filters match `%,tag,%` on both dialects. */
    tags: string;
    severity: string;
    /** Since 0021: the message's contexts as the Inbox compares them (`contextKeyText`), empty for none. */
    context_key: string;
  };
  tidings_traces: { seq: Generated<number>; env: string; transaction_id: string; subscriber_id: string; at: string; doc: unknown };
  /** The record store: JSON documents by (env, table, key), with the index and sort values finds use. */
  tidings_records: { env: string; tbl: string; key: string; i1: string | null; i2: string | null; i3: string | null; sort: string; doc: unknown };
  /** Since 0020: the records of the tables that have a table of their own (`OWN_RECORD_TABLES`), `tbl` left out. */
  tidings_record_subscribers: OwnRecordRow;
  tidings_record_notifications: OwnRecordRow;
  tidings_record_traces: OwnRecordRow;
  // Read-only views of records in `tidings_records` since 0016 (0017 for digests), with the columns of the tables they
  // replaced, for apps that read Tidings' tables themselves.
  tidings_workflows: { env: string; id: string; identifier: string; slug: string; created_at: string; doc: unknown };
  tidings_tenants: { env: string; identifier: string; doc: unknown };
  tidings_integrations: { env: string; id: string; identifier: string; channel: string; active: number; is_primary: number; created_at: string; doc: unknown };
  tidings_preferences: { env: string; subscriber_id: string; workflow_id: string; doc: unknown };
  /** Since 0017: the digests' heads (their events and the backoff keys have no view). */
  tidings_digests: { env: string; id: string; key: string; status: string; subscriber_id: string; due_at: string; doc: unknown; event_count: number };
  /** Dropped by 0017 (its rows are records now); typed still for migration 0006, which fills it. */
  tidings_digest_events: { seq: Generated<number>; env: string; key: string; transaction_id: string; digest_id: string; doc: unknown };
  /** Since 0019. */
  tidings_topics: { env: string; key: string; id: string; doc: unknown };
}

type OwnRecordRow = { env: string; key: string; i1: string | null; i2: string | null; i3: string | null; sort: string; doc: unknown };

export type TableName = keyof Database;
