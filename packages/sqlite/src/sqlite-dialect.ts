import { claimDueJobs, type Db, type SqlDialect } from '@tidings/sql';
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
  claimDue: (db, options) => claimDueJobs(db, options, sql``),
  withMigrationLock: (db, fn) => immediate(db, fn),
};
