import { dueJobsClaim, nativeReturning, onConflictClauses, type Db, type SqlDialect } from '@tidings/sql';
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
      // SQLite ends the transaction itself on some errors (SQLITE_FULL, SQLITE_IOERR, SQLITE_NOMEM,
      // SQLITE_BUSY): ROLLBACK then fails with "no transaction is active", which must not take the
      // place of the error that ended it. A rollback that fails otherwise says so, keeping the cause.
      await sql`rollback`.execute(conn).catch((rollbackError: unknown) => {
        if (/no transaction is active/.test((rollbackError as Error)?.message ?? '')) return;
        throw new Error(`SQLite could not roll back (${(rollbackError as Error)?.message}) after: ${(error as Error)?.message}`, { cause: error });
      });
      throw error;
    }
  });
}

export const sqliteDialect: SqlDialect = {
  name: 'sqlite',
  jsonType: 'text',
  serialType: 'integer',
  keyType: 'text',
  maxParams: 30_000,
  multiProcess: false,
  transaction: immediate,
  claimDue: dueJobsClaim((select) => select, { inOneRange: true, readFirst: true }),
  // json_extract makes both sides SQL values (text, number, 0/1 for booleans); json_type keeps a
  // boolean from equalling a number.
  docMemberEquals(path, json) {
    const at = `$${path.map((key) => `."${key}"`).join('')}`;
    return sql<boolean>`(json_extract(doc, ${at}) = json_extract(${json}, '$') and (json_type(doc, ${at}) in ('true', 'false')) = (json_type(${json}, '$') in ('true', 'false')))`;
  },
  withMigrationLock: (db, fn) => immediate(db, fn),
  ...onConflictClauses,
  ...nativeReturning,
};
