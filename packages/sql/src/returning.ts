import { sql } from 'kysely';
import type { Db, SqlDialect } from './dialect.js';

type Returning = Pick<SqlDialect, 'changedRows' | 'insertedRows'>;

/** Postgres and SQLite: a write says which rows it changed with RETURNING, in one statement. */
export const nativeReturning: Returning = {
  changedRows: (db, write) => write.returning(db),
  insertedRows: (db, insert) => insert.returning(db),
};

/**
 * MySQL has no RETURNING (MariaDB's is only on INSERT and DELETE), so a write that must say which rows
 * it changed runs in a transaction (the current one, or one of its own through `transaction`):
 * - an update or delete first reads its rows with a lock (`for update`), then writes them;
 * - an insert that skips taken keys runs whole behind a savepoint; when it inserted fewer rows than it
 *   was given (some keys were taken, the rare case) it is undone and its rows are inserted one at a
 *   time, each saying whether it went in.
 */
export function lockingReturning(transaction: SqlDialect['transaction']): Returning {
  const atomic = <T>(db: Db, fn: (tx: Db) => Promise<T>) => (db.isTransaction ? fn(db) : transaction(db, fn));
  return {
    changedRows: (db, write) =>
      atomic(db, async (tx) => {
        const rows = await write.lock(tx);
        if (rows.length > 0) await write.write(tx);
        return rows;
      }),
    insertedRows: (db, insert) =>
      atomic(db, async (tx) => {
        const all = Array.from({ length: insert.count }, (_, index) => index);
        await sql`savepoint tidings_insert`.execute(tx);
        if ((await insert.insert(tx)) === insert.count) {
          await sql`release savepoint tidings_insert`.execute(tx);
          return all.map((index) => insert.returned(index));
        }
        await sql`rollback to savepoint tidings_insert`.execute(tx);
        const inserted: number[] = [];
        for (const index of all) if (await insert.insertOne(tx, index)) inserted.push(index);
        await sql`release savepoint tidings_insert`.execute(tx);
        return inserted.map((index) => insert.returned(index));
      }),
  };
}
