import type { ColumnDataType, Expression, InsertQueryBuilder, RawBuilder } from 'kysely';
import type { Job } from '@tidings/core';
import type { ClaimOptions } from '@tidings/core/internal';
import type { Kysely } from 'kysely';
import type { Migration } from './migrations.js';
import type { Database } from './tables.js';

export type Db = Kysely<Database>;

/** A column's type, named or written out. */
export type ColumnType = ColumnDataType | Expression<unknown>;

/** An insert into one of the tables, as the repositories build it. */
export type Insert<T extends keyof Database, O> = InsertQueryBuilder<Database, T, O>;

/** What an upsert replaces: the unique key it collides on, and the columns it takes from the new row. */
export interface Upsert<T extends keyof Database> {
  readonly key: readonly (keyof Database[T] & string)[];
  /** A column the key's unique index leaves out when null (a partial index on Postgres and SQLite). */
  readonly whereNotNull?: keyof Database[T] & string;
  readonly update: readonly (keyof Database[T] & string)[];
}

/** A write that must say which rows it changed: its statement with RETURNING, and the two it is without. */
export interface ReturningWrite<R> {
  /** The write returning the rows it changed, in one statement. */
  returning(db: Db): Promise<R[]>;
  /** The rows the write would change, read with a lock that holds them until the transaction ends. */
  lock(db: Db): Promise<R[]>;
  /** The write alone. */
  write(db: Db): Promise<unknown>;
}

/** An insert of rows that skips those whose unique key is taken, and says which it inserted. */
export interface NewRowsInsert<R> {
  readonly count: number;
  /** The insert returning its rows, in one statement. */
  returning(db: Db): Promise<R[]>;
  /** The insert alone: how many rows it inserted. */
  insert(db: Db): Promise<number>;
  /** The insert of row `index` alone: whether it was inserted. */
  insertOne(db: Db, index: number): Promise<boolean>;
  /** What `returning` would have returned for row `index`. */
  returned(index: number): R;
}

/**
 * What differs between SQLite, Postgres and MySQL/MariaDB, side by side in the implementations of
 * this interface; every other statement is shared.
 */
export interface SqlDialect {
  readonly name: 'sqlite' | 'postgres' | 'mysql';
  /** Column type of JSON documents. */
  readonly jsonType: ColumnType;
  /** Column type of the auto-numbered trace sequence. */
  readonly serialType: ColumnType;
  /**
   * Column type of text that is a key, or in an index, compared in byte order (MySQL indexes no
   * unbounded text: it is a bounded binary string there).
   */
  readonly keyType: ColumnType;
  /** Most bound parameters one statement may carry. */
  readonly maxParams: number;
  readonly multiProcess: boolean;
  /**
   * The schema that holds the tables (Postgres), named in every statement instead of relying on the
   * connection's search path; set by `createSqlStorage` from its `schema` option.
   */
  readonly schema?: string;
  /**
   * Where the dialect's schema starts from a baseline (MySQL, which has no databases from before it):
   * on a database without migrations it runs instead of the migrations it is recorded as.
   */
  readonly baseline?: Migration & { readonly covers: readonly string[] };
  /** Runs `fn` in a transaction that behaves as if it ran alone (retrying where the dialect must). */
  transaction<T>(db: Db, fn: (tx: Db) => Promise<T>): Promise<T>;
  /** Leases due jobs (see `JobRepository.claimDue`). */
  claimDue(db: Db, options: ClaimOptions, dialect: SqlDialect): Promise<Job[]>;
  /** Runs `fn` holding a lock that other processes migrating the same database wait for. */
  withMigrationLock(db: Db, fn: (db: Db) => Promise<void>): Promise<void>;
  /**
   * True where the member of the row's `doc` at `path` equals the JSON value `json` (a JSON text),
   * compared as JSON, not as text.
   */
  docMemberEquals(path: readonly string[], json: string): RawBuilder<boolean>;
  /** Tells other processes that jobs were enqueued (inside the enqueuing transaction). */
  notifyJobs?(db: Db, env: string): Promise<void>;
  /** The insert, skipping rows whose unique key (any of them) is taken. */
  skipTaken<T extends keyof Database, O>(insert: Insert<T, O>): Insert<T, O>;
  /** The insert, replacing a row whose `upsert.key` is taken by the new row's `upsert.update` columns. */
  upsert<T extends keyof Database, O>(insert: Insert<T, O>, upsert: Upsert<T>): Insert<T, O>;
  /** Runs an update or delete and returns the rows it changed (see `returning.ts`). */
  changedRows<R>(db: Db, write: ReturningWrite<R>): Promise<R[]>;
  /** Runs an insert that skips taken keys and returns what it returns for the rows it inserted (see `returning.ts`). */
  insertedRows<R>(db: Db, insert: NewRowsInsert<R>): Promise<R[]>;
}

/** A raw job row as the dialects return it (Postgres may hand counts back as text). */
export type JobRow = Omit<Database['tidings_jobs'], 'attempts'> & { attempts: number | string };
