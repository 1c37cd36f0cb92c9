import type { Compilable } from 'kysely';
import { chunk } from './codec.js';
import type { Db, SqlDialect, Upsert } from './dialect.js';
import { reusableQuery } from './reusable-query.js';
import type { Database } from './tables.js';

/** What an insert does with a row whose unique key is taken (an error unless one of these is given). */
export interface RowConflict<T extends keyof Database, C extends keyof Database[T] & string> {
  /** Skip the row (whichever unique key it collides on). */
  readonly skipTaken?: true;
  /** Replace the taken row's columns. */
  readonly upsert?: Upsert<T>;
  /** With `skipTaken`: return this column of the rows inserted. */
  readonly returning?: C;
}

/**
 * A multi-row insert built once per dialect and row count (see `reusableQuery`). Rows are given as
 * values in `columns` order; they go in as few statements as the dialect's parameter limit allows.
 */
export function rowInserter<T extends keyof Database & string, C extends keyof Database[T] & string = never>(
  table: T,
  columns: readonly (keyof Database[T] & string)[],
  conflict: RowConflict<T, C> = {},
) {
  const statement = (returning: boolean) =>
    reusableQuery<{ cells: readonly unknown[] }>((db, { cells }, dialect): Compilable => {
      const rows: Record<string, unknown>[] = [];
      for (let at = 0; at < cells.length; at += columns.length) rows.push(Object.fromEntries(columns.map((column, i) => [column, cells[at + i]])));
      let query = db.insertInto(table).values(rows as never);
      if (conflict.skipTaken) query = dialect.skipTaken(query);
      if (conflict.upsert) query = dialect.upsert(query, conflict.upsert);
      return returning && conflict.returning !== undefined ? query.returning(conflict.returning as never) : query;
    });
  const plain = statement(false);
  const returning = statement(true);
  const returned = conflict.returning === undefined ? -1 : columns.indexOf(conflict.returning);
  type Returned = Pick<Database[T], C>;
  /** Returns the `returning` column of the rows inserted (nothing without it). */
  return async (db: Db, dialect: SqlDialect, rows: readonly (readonly unknown[])[]): Promise<Returned[]> => {
    const out: Returned[] = [];
    for (const part of chunk(rows, columns.length, dialect.maxParams)) {
      const cells: unknown[] = [];
      for (const row of part) for (const value of row) cells.push(value);
      if (returned < 0) {
        await plain(db, dialect, { cells });
        continue;
      }
      const inserted = await dialect.insertedRows<Returned>(db, {
        count: part.length,
        returning: async (tx) => (await returning<Returned>(tx, dialect, { cells })).rows,
        insert: async (tx) => Number((await plain(tx, dialect, { cells })).numAffectedRows ?? 0),
        insertOne: async (tx, index) => Number((await plain(tx, dialect, { cells: part[index]! })).numAffectedRows ?? 0) > 0,
        returned: (index) => ({ [conflict.returning!]: part[index]![returned] }) as Returned,
      });
      for (const row of inserted) out.push(row);
    }
    return out;
  };
}
