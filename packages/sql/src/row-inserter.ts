import type { Compilable, InsertQueryBuilder, InsertResult } from 'kysely';
import { chunk } from './codec.js';
import type { Db, SqlDialect } from './dialect.js';
import { reusableQuery } from './reusable-query.js';
import type { Database } from './tables.js';

type Builder<T extends keyof Database> = InsertQueryBuilder<Database, T, InsertResult>;

/**
 * A multi-row insert built once per dialect and row count (see `reusableQuery`). Rows are given as
 * values in `columns` order; they go in as few statements as the dialect's parameter limit allows.
 */
export function rowInserter<T extends keyof Database & string, R = unknown>(
  table: T,
  columns: readonly (keyof Database[T] & string)[],
  finish: (query: Builder<T>) => Compilable = (query) => query,
) {
  const insert = reusableQuery<{ cells: readonly unknown[] }>((db, { cells }) => {
    const rows: Record<string, unknown>[] = [];
    for (let at = 0; at < cells.length; at += columns.length) rows.push(Object.fromEntries(columns.map((column, i) => [column, cells[at + i]])));
    return finish(db.insertInto(table).values(rows as never));
  });
  /** Returns what `finish` makes the statement return (nothing unless it adds `returning`). */
  return async (db: Db, dialect: SqlDialect, rows: readonly (readonly unknown[])[]): Promise<R[]> => {
    const out: R[] = [];
    for (const part of chunk(rows, columns.length, dialect.maxParams)) {
      const cells: unknown[] = [];
      for (const row of part) for (const value of row) cells.push(value);
      for (const row of (await insert<R>(db, dialect, { cells })).rows) out.push(row);
    }
    return out;
  };
}
