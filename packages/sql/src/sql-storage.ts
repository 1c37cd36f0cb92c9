import type { Storage } from '@tidings/core';
import type { KernelRepositories, StorageRepositories } from '@tidings/core/internal';
import { storageRepositories, wrapRepositories } from '@tidings/core/internal';
import type { Db, SqlDialect } from './dialect.js';
import { migrate } from './migrations.js';
import type { RepoContext } from './repositories/context.js';
import { deliveryRepositories } from './repositories/delivery.js';
import { peopleRepositories } from './repositories/people.js';
import { recordStore } from './repositories/records.js';
import { retentionRepositories } from './repositories/retention.js';

/** The backend's own repositories over one connection. */
function kernelRepositories(context: RepoContext): KernelRepositories {
  return {
    ...peopleRepositories(context),
    ...deliveryRepositories(context),
    ...retentionRepositories(context),
  };
}

/** A transaction's connection: what must be atomic is already. */
const inTransaction = (tx: Db, dialect: SqlDialect): RepoContext => ({ db: tx, dialect, atomic: (fn) => fn(tx) });

/** The repositories of one transaction. */
function transactionRepositories(tx: Db, dialect: SqlDialect): StorageRepositories {
  const context = inTransaction(tx, dialect);
  const kernel = kernelRepositories(context);
  const records = recordStore(context);
  return storageRepositories(kernel, records, (fn) => fn(kernel, records));
}

/** The repositories outside transactions: calls that must be atomic together run in a transaction of their own. */
function outsideRepositories(db: Db, dialect: SqlDialect): StorageRepositories {
  const context: RepoContext = { db, dialect, atomic: (fn) => dialect.transaction(db, fn) };
  return storageRepositories(kernelRepositories(context), recordStore(context), (fn) =>
    dialect.transaction(db, (tx) => {
      const inner = inTransaction(tx, dialect);
      return fn(kernelRepositories(inner), recordStore(inner));
    }),
  );
}

export interface SqlStorageOptions {
  readonly db: Db;
  readonly dialect: SqlDialect;
  /** Closes what the adapter opened itself; a client the user passed in is left open. */
  readonly close: () => Promise<void>;
  readonly durable: boolean;
  /** Apply pending migrations before the first operation. @default true */
  readonly migrate?: boolean;
  /**
   * The schema that holds the tables: every statement names it, so the connections' search path is
   * never touched (the pool may be the app's own).
   */
  readonly schema?: string;
  /** Runs before the migrations (e.g. creating the Postgres schema they run in). */
  readonly beforeMigrate?: () => Promise<void>;
}

/** A Storage over SQL with its `migrate()`; thin packages add the driver (`@tidings/sqlite`, `@tidings/postgres`). */
export interface SqlStorage extends Storage {
  /** Applies pending migrations; returns the names applied. Safe when several processes call it at once. */
  migrate(): Promise<string[]>;
  /**
   * The Kysely instance, for apps that want to read Tidings' tables themselves. With a schema, the
   * query builder names it in every statement; raw `sql` text does not (write `sql.table('schema.table')`).
   */
  readonly db: Db;
}

export function createSqlStorage({ db: unqualified, dialect: base, schema, close, durable, migrate: autoMigrate = true, beforeMigrate }: SqlStorageOptions): SqlStorage {
  const db = schema === undefined ? unqualified : unqualified.withSchema(schema);
  const dialect: SqlDialect = schema === undefined ? base : { ...base, schema };
  let migrating: Promise<string[]> | null = null;
  const runMigrations = () => (migrating ??= (async () => {
    await beforeMigrate?.();
    return migrate(db, dialect);
  })().catch((error: unknown) => {
    migrating = null;
    throw error;
  }));
  const ready = autoMigrate ? runMigrations : () => Promise.resolve();
  const transaction = async <T>(fn: (tx: StorageRepositories) => Promise<T>): Promise<T> => {
    await ready();
    return dialect.transaction(db, (tx) => fn(transactionRepositories(tx, dialect)));
  };
  // Every call outside a transaction waits for the migrations first.
  const outside = wrapRepositories(outsideRepositories(db, dialect), async (call) => {
    await ready();
    return call();
  });
  return {
    ...outside,
    db,
    capabilities: { multiProcess: dialect.multiProcess, durable },
    transaction,
    migrate: runMigrations,
    close,
  };
}
