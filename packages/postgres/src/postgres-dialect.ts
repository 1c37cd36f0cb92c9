import { createHash } from 'node:crypto';
import { dueJobsClaim, nativeReturning, onConflictClauses, type SqlDialect } from '@tidings/sql';
import { sql } from 'kysely';

/** The NOTIFY channels of one schema's processes: job wake-ups, and changes to in-app messages (see `Storage.live`). */
export interface PostgresChannels {
  jobs: string;
  live: string;
}

/**
 * NOTIFY channels belong to the database, not to a schema: each schema gets channels of its own, so
 * apps that share a database in different schemas never wake or flood each other. The default schema
 * keeps the plain names.
 */
export function channelsOf(schema?: string): PostgresChannels {
  if (schema === undefined || schema === 'public') return { jobs: 'tidings_jobs', live: 'tidings_live' };
  const tag = createHash('sha256').update(schema).digest('hex').slice(0, 16);
  return { jobs: `tidings_jobs_${tag}`, live: `tidings_live_${tag}` };
}

export const MIGRATION_LOCK = 0x7469_6469; // "tidi"
const RETRYABLE = new Set(['40001', '40P01']); // serialization failure, deadlock

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The Postgres dialect whose job wake-ups go to `channels` (see `channelsOf`). */
export const postgresDialectOn = (channels: PostgresChannels): SqlDialect => ({
  name: 'postgres',
  jsonType: 'jsonb',
  serialType: 'bigserial',
  keyType: 'text',
  maxParams: 60_000,
  multiProcess: true,
  async transaction(db, fn) {
    // SERIALIZABLE makes concurrent transactions behave as if run one after the other; Postgres
    // reports the losers of a conflict, and they are run again from the start. A sequential scan
    // under SERIALIZABLE locks its whole table (Postgres' manual, "Serializable Isolation Level"): a
    // commit that found its 100 jobs in a small jobs table that way conflicted with every other
    // process's enqueue. Inside a transaction the planner reads through indexes: the driver
    // (`scanlessPostgresDialect`) begins every serializable transaction with `set local enable_seqscan = off`.
    for (let attempt = 1; ; attempt++) {
      try {
        return await db.transaction().setIsolationLevel('serializable').execute(fn);
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (attempt >= 20 || code === undefined || !RETRYABLE.has(code)) throw error;
        await pause(Math.random() * Math.min(100, 2 ** attempt));
      }
    }
  },
  claimDue: dueJobsClaim((select) => select.forUpdate().skipLocked()),
  docMemberEquals: (path, json) => sql<boolean>`(doc #> ${[...path]}::text[]) = ${json}::jsonb`,
  async withMigrationLock(db, fn) {
    await db.transaction().execute(async (tx) => {
      await sql`select pg_advisory_xact_lock(${MIGRATION_LOCK})`.execute(tx);
      await fn(tx);
    });
  },
  async notifyJobs(db, env) {
    await sql`select pg_notify(${channels.jobs}, ${env})`.execute(db);
  },
  ...onConflictClauses,
  ...nativeReturning,
});

/** The dialect of the default schema. */
export const postgresDialect: SqlDialect = postgresDialectOn(channelsOf());
