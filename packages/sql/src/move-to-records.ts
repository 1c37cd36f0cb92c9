import { sql, type RawBuilder } from 'kysely';
import type { Db, SqlDialect } from './dialect.js';

/** How the rows of a table of its own become records of the record store (column expressions of the old row). */
export interface RecordsMove {
  readonly from: string;
  /** The record store's table, as core's repository names it (`records/`). */
  readonly table: string;
  readonly key: RawBuilder<unknown>;
  readonly i1?: RawBuilder<unknown>;
  readonly i2?: RawBuilder<unknown>;
  readonly i3?: RawBuilder<unknown>;
  readonly sort?: RawBuilder<unknown>;
  readonly doc: RawBuilder<unknown>;
  /**
   * Left behind as a read-only view of the same name with these columns (expressions over a record's
   * columns), for apps that read Tidings' tables themselves.
   */
  readonly view?: Readonly<Record<string, RawBuilder<unknown>>>;
  /** Which records of the table the view shows (a condition on their columns); all of them when absent. */
  readonly viewWhere?: RawBuilder<unknown>;
  /** The table of its own the records go to (`OWN_RECORD_TABLES`), instead of the shared `tidings_records`. */
  readonly into?: string;
}

/** The table's name as raw SQL must write it: qualified by the storage's schema (Postgres). */
export const tableName = (dialect: SqlDialect, name: string) => sql.table(dialect.schema === undefined ? name : `${dialect.schema}.${name}`);

/** Copies every row of `move.from` into the record store in one statement, drops the old table, and leaves its view. */
export async function moveToRecords(db: Db, dialect: SqlDialect, move: RecordsMove): Promise<void> {
  const none = sql`null`;
  const values = sql`${move.key}, ${move.i1 ?? none}, ${move.i2 ?? none}, ${move.i3 ?? none}, ${move.sort ?? sql.lit('')}, ${move.doc}`;
  await (move.into === undefined
    ? sql`insert into ${tableName(dialect, 'tidings_records')} (env, tbl, key, i1, i2, i3, sort, doc) select env, ${sql.lit(move.table)}, ${values} from ${tableName(dialect, move.from)}`
    : sql`insert into ${tableName(dialect, move.into)} (env, key, i1, i2, i3, sort, doc) select env, ${values} from ${tableName(dialect, move.from)}`
  ).execute(db);
  await sql`drop table ${tableName(dialect, move.from)}`.execute(db);
  if (!move.view) return;
  const columns = Object.entries(move.view).map(([name, expression]) => sql`${expression} as ${sql.id(name)}`);
  const source = move.into === undefined ? sql`${tableName(dialect, 'tidings_records')} where tbl = ${sql.lit(move.table)}` : sql`${tableName(dialect, move.into)} where 1 = 1`;
  await sql`
    create view ${tableName(dialect, move.from)} as
    select ${sql.join(columns)} from ${source}${move.viewWhere ? sql` and ${move.viewWhere}` : sql``}
  `.execute(db);
}
