import type { RawBuilder } from 'kysely';
import type { Job } from '@tidings/core';
import type { ClaimOptions } from '@tidings/core/internal';
import type { Kysely } from 'kysely';
import type { Database } from './tables.js';

export type Db = Kysely<Database>;

/**
 * What differs between SQLite and Postgres, side by side in the two implementations of this
 * interface; every other statement is shared.
 */
export interface SqlDialect {
  readonly name: 'sqlite' | 'postgres';
  /** Column type of JSON documents. */
  readonly jsonType: 'text' | 'jsonb';
  /** Column type of the auto-numbered trace sequence. */
  readonly serialType: 'integer' | 'bigserial';
  /** Most bound parameters one statement may carry. */
  readonly maxParams: number;
  readonly multiProcess: boolean;
  /**
   * The schema that holds the tables (Postgres), named in every statement instead of relying on the
   * connection's search path; set by `createSqlStorage` from its `schema` option.
   */
  readonly schema?: string;
  /** Runs `fn` in a transaction that behaves as if it ran alone (retrying where the dialect must). */
  transaction<T>(db: Db, fn: (tx: Db) => Promise<T>): Promise<T>;
  /** Leases due jobs in one statement (see `JobRepository.claimDue`). */
  claimDue(db: Db, options: ClaimOptions): Promise<Job[]>;
  /** Runs `fn` holding a lock that other processes migrating the same database wait for. */
  withMigrationLock(db: Db, fn: (db: Db) => Promise<void>): Promise<void>;
  /**
   * True where the member of the row's `doc` at `path` equals the JSON value `json` (a JSON text),
   * compared as JSON, not as text.
   */
  docMemberEquals(path: readonly string[], json: string): RawBuilder<boolean>;
  /** Tells other processes that jobs were enqueued (inside the enqueuing transaction). */
  notifyJobs?(db: Db, env: string): Promise<void>;
}

/** A raw job row as both dialects return it (Postgres may hand counts back as text). */
export type JobRow = Omit<Database['tidings_jobs'], 'attempts'> & { attempts: number | string };
