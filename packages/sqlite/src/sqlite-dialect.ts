import type { Job } from '@tidings/core';
import { jobFromRow, type Db, type JobRow, type SqlDialect } from '@tidings/sql';
import { sql } from 'kysely';

async function immediate<T>(db: Db, fn: (tx: Db) => Promise<T>): Promise<T> {
  // BEGIN IMMEDIATE takes the write lock up front, so two processes on one file never deadlock on a
  // read-then-write upgrade; the busy timeout makes the second one wait instead of failing.
  return db.connection().execute(async (conn) => {
    await sql`begin immediate`.execute(conn);
    try {
      const result = await fn(conn);
      await sql`commit`.execute(conn);
      return result;
    } catch (error) {
      await sql`rollback`.execute(conn);
      throw error;
    }
  });
}

export const sqliteDialect: SqlDialect = {
  name: 'sqlite',
  jsonType: 'text',
  serialType: 'integer',
  maxParams: 30_000,
  multiProcess: false,
  transaction: immediate,
  async claimDue(db, { env, workerId, now, limit, leaseMs }) {
    const until = new Date(Date.parse(now) + leaseMs).toISOString();
    const envFilter = env === undefined ? sql`` : sql`and env = ${env}`;
    const { rows } = await sql<JobRow>`
      update tidings_jobs
         set locked_by = ${workerId}, locked_until = ${until}, attempts = attempts + 1
       where id in (
         select id from tidings_jobs
          where run_at <= ${now} and (locked_until is null or locked_until <= ${now}) ${envFilter}
          order by run_at, id
          limit ${limit})
      returning *`.execute(db);
    return rows.map(jobFromRow).sort((a: Job, b: Job) => (a.runAt < b.runAt ? -1 : a.runAt > b.runAt ? 1 : a.id < b.id ? -1 : 1));
  },
  withMigrationLock: (db, fn) => immediate(db, fn),
};
