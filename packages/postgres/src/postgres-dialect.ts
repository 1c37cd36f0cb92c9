import { claimDueJobs, type SqlDialect } from '@tidings/sql';
import { sql } from 'kysely';

export const JOBS_CHANNEL = 'tidings_jobs';
/** Where changes to in-app messages are relayed between processes (see `Storage.live`). */
export const LIVE_CHANNEL = 'tidings_live';
export const MIGRATION_LOCK = 0x7469_6469; // "tidi"
const RETRYABLE = new Set(['40001', '40P01']); // serialization failure, deadlock

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export const postgresDialect: SqlDialect = {
  name: 'postgres',
  jsonType: 'jsonb',
  serialType: 'bigserial',
  maxParams: 60_000,
  multiProcess: true,
  async transaction(db, fn) {
    // SERIALIZABLE makes concurrent transactions behave as if run one after the other; Postgres
    // reports the losers of a conflict, and they are run again from the start.
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
  claimDue: (db, options) => claimDueJobs(db, options, (select) => select.forUpdate().skipLocked()),
  docMemberEquals: (path, json) => sql<boolean>`(doc #> ${[...path]}::text[]) = ${json}::jsonb`,
  async withMigrationLock(db, fn) {
    await db.transaction().execute(async (tx) => {
      await sql`select pg_advisory_xact_lock(${MIGRATION_LOCK})`.execute(tx);
      await fn(tx);
    });
  },
  async notifyJobs(db, env) {
    await sql`select pg_notify(${JOBS_CHANNEL}, ${env})`.execute(db);
  },
};
