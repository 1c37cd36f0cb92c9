import { sql, type Compilable, type InsertResult, type QueryResult } from 'kysely';
import { chunk } from './codec.js';
import type { Db, Insert, SqlDialect, Upsert } from './dialect.js';
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

/** Columns whose cells arrive as JSON text already (`encodeJson`): in a rows document they go in as they are. */
const JSON_COLUMNS: ReadonlySet<string> = new Set(['doc', 'response']);

/**
 * Rows as one JSON document (an array of objects by column), for Postgres' `json_populate_recordset`:
 * each cell JSON-encoded, a JSON column's text inserted as it is.
 */
function rowsDocument(columns: readonly string[], rows: readonly (readonly unknown[])[]): string {
  const names = columns.map((column) => `${JSON.stringify(column)}:`);
  const objects = rows.map((row) => `{${columns.map((column, i) => names[i]! + (JSON_COLUMNS.has(column) && typeof row[i] === 'string' ? row[i] : JSON.stringify(row[i] ?? null))).join(',')}}`);
  return `[${objects.join(',')}]`;
}

/** The rows' cells in one list (`Array.prototype.flat` was a fifth of this package's own time in a bulk profile). */
function cellsOf(rows: readonly (readonly unknown[])[]): unknown[] {
  const cells: unknown[] = [];
  for (const row of rows) for (const cell of row) cells.push(cell);
  return cells;
}

/**
 * A multi-row insert built once per dialect and row count (see `reusableQuery`). Rows are given as
 * values in `columns` order; they go in as few statements as the dialect's parameter limit allows.
 * On Postgres the rows travel as one JSON parameter read by `json_populate_recordset` (one statement
 * text for any row count, and one value to bind instead of a value per cell: binding hundreds of
 * parameters cost the server more than the insert).
 */
export function rowInserter<T extends keyof Database & string, C extends keyof Database[T] & string = never>(
  table: T,
  columns: readonly (keyof Database[T] & string)[],
  conflict: RowConflict<T, C> = {},
) {
  /** The insert with what it does on a taken key, and what it returns. */
  const finish = (insert: Insert<T, InsertResult>, returning: boolean, dialect: SqlDialect): Compilable => {
    let query = insert;
    if (conflict.skipTaken) query = dialect.skipTaken(query);
    if (conflict.upsert) query = dialect.upsert(query, conflict.upsert);
    return returning && conflict.returning !== undefined ? query.returning(conflict.returning as never) : query;
  };
  const statement = (returning: boolean) =>
    reusableQuery<{ cells: readonly unknown[] }>((db, { cells }, dialect) => {
      const rows: Record<string, unknown>[] = [];
      for (let at = 0; at < cells.length; at += columns.length) rows.push(Object.fromEntries(columns.map((column, i) => [column, cells[at + i]])));
      return finish(db.insertInto(table).values(rows as never), returning, dialect);
    });
  const fromDocument = (returning: boolean) =>
    reusableQuery<{ rows: string }>((db, { rows }, dialect) => {
      const source = db.selectFrom(sql`json_populate_recordset(null::${sql.table(table)}, ${rows}::json)`.as('r') as never).select(columns as never);
      return finish(db.insertInto(table).columns(columns as never).expression(source as never), returning, dialect);
    });
  type Rows = readonly (readonly unknown[])[];
  /** A statement of this inserter bound to a dialect: it takes the rows. */
  type RowsStatement = <R>(db: Db, rows: Rows) => Promise<QueryResult<R>>;
  const listed = [statement(false), statement(true)] as const;
  const documented = [fromDocument(false), fromDocument(true)] as const;
  const bound = (dialect: SqlDialect, returning: boolean): RowsStatement =>
    dialect.name === 'postgres'
      ? (db, rows) => documented[returning ? 1 : 0](db, dialect, { rows: rowsDocument(columns, rows) })
      : (db, rows) => listed[returning ? 1 : 0](db, dialect, { cells: cellsOf(rows) });
  const returned = conflict.returning === undefined ? -1 : columns.indexOf(conflict.returning);
  type Returned = Pick<Database[T], C>;
  /** Returns the `returning` column of the rows inserted (nothing without it). */
  return async (db: Db, dialect: SqlDialect, rows: Rows): Promise<Returned[]> => {
    const out: Returned[] = [];
    const byDocument = dialect.name === 'postgres';
    const plain = bound(dialect, false);
    const returning = bound(dialect, true);
    for (const part of byDocument ? [rows] : chunk(rows, columns.length, dialect.maxParams)) {
      if (part.length === 0) continue;
      if (returned < 0) {
        await plain(db, part);
        continue;
      }
      const inserted = await dialect.insertedRows<Returned>(db, {
        count: part.length,
        returning: async (tx) => (await returning<Returned>(tx, part)).rows,
        insert: async (tx) => Number((await plain(tx, part)).numAffectedRows ?? 0),
        insertOne: async (tx, index) => Number((await plain(tx, [part[index]!])).numAffectedRows ?? 0) > 0,
        returned: (index) => ({ [conflict.returning!]: part[index]![returned] }) as Returned,
      });
      for (const row of inserted) out.push(row);
    }
    return out;
  };
}
