import type { Insert, SqlDialect, Upsert } from './dialect.js';
import type { Database } from './tables.js';

type RecordsInsert<O> = Insert<'tidings_records', O>;
type RecordColumn = keyof Database['tidings_records'] & string;

/**
 * `ON CONFLICT`, as Postgres and SQLite write it: skip the rows whose key is taken, or take the new
 * row's columns (`excluded`) into the row that has it.
 */
export const onConflictClauses: Pick<SqlDialect, 'skipTaken' | 'upsert'> = {
  skipTaken: (insert) => insert.onConflict((oc) => oc.doNothing()),
  upsert<T extends keyof Database, O>(insert: Insert<T, O>, { key, whereNotNull, update }: Upsert<T>): Insert<T, O> {
    // One table's column names stand for any table's: the statement is the same whatever the table.
    const typed = insert as unknown as RecordsInsert<O>;
    const done = typed.onConflict((oc) => {
      const target = oc.columns(key as readonly RecordColumn[]);
      const partial = whereNotNull === undefined ? target : target.where(whereNotNull as RecordColumn, 'is not', null);
      return partial.doUpdateSet((eb) => Object.fromEntries((update as readonly RecordColumn[]).map((column) => [column, eb.ref(`excluded.${column}`)])));
    });
    return done as unknown as Insert<T, O>;
  },
};
