import type { Compilable, Expression, ExpressionBuilder, SqlBool, UpdateObject } from 'kysely';
import type { Db, SqlDialect } from './dialect.js';
import { reusableQuery } from './reusable-query.js';
import type { Database } from './tables.js';

type Args = Record<string, unknown>;
type Table = keyof Database & string;
type Where<T extends Table, A> = (eb: ExpressionBuilder<Database, T>, args: A) => Expression<SqlBool>;
type Column<T extends Table> = keyof Database[T] & string;

// One table's types stand for any table's inside these builders: the statements are the same.
type AnyWhere = Where<'tidings_jobs', Args>;
type AnyColumns = readonly Column<'tidings_jobs'>[];

/**
 * An update of the rows of `table` that `where` selects, returning their `columns` as they were
 * before it (the columns it returns are ones it leaves as they are), built once per dialect (see
 * `reusableQuery`); the dialect says how (`SqlDialect.changedRows`).
 */
export function updateReturning<A extends Args, T extends Table, C extends Column<T>>(table: T, set: (args: A) => UpdateObject<Database, T>, where: Where<T, A>, columns: readonly C[]) {
  const w = where as unknown as AnyWhere;
  const cols = columns as unknown as AnyColumns;
  const update = (db: Db, args: A) => db.updateTable(table as 'tidings_jobs').set(set(args) as UpdateObject<Database, 'tidings_jobs'>).where((eb) => w(eb, args));
  return changed<A, Pick<Database[T], C>>(
    (db, args) => update(db, args).returning(cols),
    (db, args) => db.selectFrom(table as 'tidings_jobs').select(cols).where((eb) => w(eb, args)).forUpdate(),
    update,
  );
}

/** A delete of the rows of `table` that `where` selects, returning their `columns` (as `updateReturning`). */
export function deleteReturning<A extends Args, T extends Table, C extends Column<T>>(table: T, where: Where<T, A>, columns: readonly C[]) {
  const w = where as unknown as AnyWhere;
  const cols = columns as unknown as AnyColumns;
  const remove = (db: Db, args: A) => db.deleteFrom(table as 'tidings_jobs').where((eb) => w(eb, args));
  return changed<A, Pick<Database[T], C>>(
    (db, args) => remove(db, args).returning(cols),
    (db, args) => db.selectFrom(table as 'tidings_jobs').select(cols).where((eb) => w(eb, args)).forUpdate(),
    remove,
  );
}

function changed<A extends Args, R>(
  returning: (db: Db, args: A) => Compilable,
  lock: (db: Db, args: A) => Compilable,
  write: (db: Db, args: A) => Compilable,
) {
  const [returningQuery, lockQuery, writeQuery] = [reusableQuery<A>(returning), reusableQuery<A>(lock), reusableQuery<A>(write)];
  return (db: Db, dialect: SqlDialect, args: A): Promise<R[]> =>
    dialect.changedRows<R>(db, {
      returning: async (tx) => (await returningQuery<R>(tx, dialect, args)).rows,
      lock: async (tx) => (await lockQuery<R>(tx, dialect, args)).rows,
      write: (tx) => writeQuery(tx, dialect, args),
    });
}

/**
 * A delete of the rows of `table` that `where` selects, returning their `columns`, built for this
 * call (its conditions' shape depends on its values).
 */
export function deleteReturningNow<T extends Table, C extends Column<T>>(db: Db, dialect: SqlDialect, table: T, where: (eb: ExpressionBuilder<Database, T>) => Expression<SqlBool>, columns: readonly C[]): Promise<Pick<Database[T], C>[]> {
  const w = where as unknown as (eb: ExpressionBuilder<Database, 'tidings_jobs'>) => Expression<SqlBool>;
  const cols = columns as unknown as AnyColumns;
  const remove = (tx: Db) => tx.deleteFrom(table as 'tidings_jobs').where(w);
  return dialect.changedRows<Pick<Database[T], C>>(db, {
    returning: async (tx) => (await remove(tx).returning(cols).execute()) as unknown as Pick<Database[T], C>[],
    lock: async (tx) => (await tx.selectFrom(table as 'tidings_jobs').select(cols).where(w).forUpdate().execute()) as unknown as Pick<Database[T], C>[],
    write: (tx) => remove(tx).execute(),
  });
}
