import { CompiledQuery, type Compilable, type InsertQueryBuilder, type InsertResult } from 'kysely';
import type { Db, SqlDialect } from './dialect.js';
import type { Database } from './tables.js';

type Builder<T extends keyof Database> = InsertQueryBuilder<Database, T, InsertResult>;

/**
 * A multi-row insert whose SQL is built by Kysely once per dialect and row count, then run with
 * fresh parameters. The hot writes (notifications, jobs, messages, traces) take thousands of rows a
 * second; building and compiling the same statement for each call cost more than SQLite spent
 * running it. Rows are given as values in `columns` order.
 */
export function rowInserter<T extends keyof Database & string, R = unknown>(
  table: T,
  columns: readonly (keyof Database[T] & string)[],
  finish: (query: Builder<T>) => Compilable = (query) => query,
) {
  const templates = new Map<string, string>();
  const template = (db: Db, dialect: SqlDialect, rows: number): string => {
    const key = `${dialect.name}:${rows}`;
    let text = templates.get(key);
    if (text === undefined) {
      const blank = Object.fromEntries(columns.map((column) => [column, null]));
      const query = db.insertInto(table).values(Array.from({ length: rows }, () => blank) as never);
      text = finish(query).compile().sql;
      templates.set(key, text);
    }
    return text;
  };
  /** Inserts `rows` in as few statements as the dialect's parameter limit allows; returns what `finish` returns. */
  return async (db: Db, dialect: SqlDialect, rows: readonly (readonly unknown[])[]): Promise<R[]> => {
    const out: R[] = [];
    const size = Math.max(1, Math.floor(dialect.maxParams / columns.length));
    for (let start = 0; start < rows.length; start += size) {
      const part = rows.length <= size ? rows : rows.slice(start, start + size);
      const params: unknown[] = [];
      for (const row of part) for (const value of row) params.push(value);
      const result = await db.executeQuery<R>(CompiledQuery.raw(template(db, dialect, part.length), params));
      for (const row of result.rows) out.push(row);
    }
    return out;
  };
}
